// Reading a multipart upload (POST /v0/files, attachments): the `file` part plus text fields. Associations
// arrive as form fields `associations[][id]` / `associations[][type]` (TypeScript SDK; indexed ones,
// `associations[0][id]`, from other form encoders) or as one `associations` part holding JSON (Ruby SDK); all
// are accepted, and any other field named associations… is refused rather than ignored. The `file` part
// streams into the blob store as it arrives (`ContentSink`), whatever comes after it; when the rest of the body
// turns out malformed (4xx), the stored contents are discarded again, so a refused upload never leaves a file
// behind.
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { AppError, invalidAt } from '../domain/errors.ts';
import type { ContentSink, ReceivedContent, Upload } from '../domain/files.ts';
import { findBadText, textProblem } from './plugins/text-guard.ts';
import { characterCount, longerThan } from '../domain/characters.ts';

/**
 * Longest text field: a name, a file id, associations as JSON. Busboy truncates longer ones, which readUpload
 * refuses; its default (1 MB) let one upload of 100 fields hold 100 MB in memory.
 */
const FIELD_SIZE_LIMIT = 64 * 1024;
/** Part counts and text sizes a multipart upload may have (the file size limit is TYCHO_UPLOAD_LIMIT). */
export const MULTIPART_LIMITS = { files: 2, fields: 100, parts: 110, fieldSize: FIELD_SIZE_LIMIT } as const;
/** Room for one part's boundary line and headers (busboy refuses a part whose headers pass 16 KB). */
const PART_HEAD_BYTES = 16 * 1024 + 128;

/**
 * The largest multipart body an upload can need: its file at the limit, every text field at its own, and
 * every part's head. A Content-Length beyond it is refused before a byte of the body is read.
 */
export const multipartBodyLimit = (uploadLimit: number): number => uploadLimit + MULTIPART_LIMITS.fields * FIELD_SIZE_LIMIT + MULTIPART_LIMITS.parts * PART_HEAD_BYTES;

/** A media type as a Content-Type header states it, without parameters (RFC 9110 §8.3.1: token "/" token). */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Whether `value` is a media type that can be sent back as a Content-Type header. */
export const isMediaType = (value: string): boolean => MEDIA_TYPE.test(value);
/**
 * Busboy stalls for good when a part it skips (one without Content-Disposition) arrives in one chunk larger
 * than a part's buffer: the skipped part is not read yet when the chunk is pushed into it, and the parser
 * never resumes. A buffer this size is never full; memory stays bounded because every part is streamed to
 * the store, read whole within the upload limit, or discarded as it arrives.
 */
const PART_BUFFER = 1024 * 1024 * 1024;

/** The longest filename an upload keeps (as a file's `name`). */
const MAX_FILENAME = 255;

const SHAPE =
  'send Content-Type `multipart/form-data; boundary=<token>` and a body of parts, each opened by `--<token>\\r\\n`, ' +
  'headers (`Content-Disposition: form-data; name="file"; filename="…"`), a blank line and the contents, closed by `--<token>--`';

type File = { filename: string; contentType: string; content: ReceivedContent };

/** An upload with its `file` part (POST /v0/files). */
export async function readUpload(request: FastifyRequest, sink: ContentSink): Promise<Upload> {
  const { upload } = await readSource(request, sink, false);
  return upload!;
}

/** An attachment's source: an uploaded `file` part, or a `file_id` field naming an existing file. */
export async function readAttachmentSource(request: FastifyRequest, sink: ContentSink): Promise<{ upload: Upload } | { fileId: string }> {
  const { upload, fileId } = await readSource(request, sink, true);
  return upload ? { upload } : { fileId: fileId! };
}

async function readSource(request: FastifyRequest, sink: ContentSink, fileOptional: boolean): Promise<{ upload?: Upload; fileId?: string }> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'send the upload as multipart/form-data with a "file" part');
  }
  if (!/;\s*boundary\s*=\s*("[^"]+|[^";\s]+)/i.test(request.headers['content-type'] ?? '')) {
    throw new AppError('invalid_header', `Content-Type multipart/form-data has no boundary parameter; ${SHAPE}`, { parameter: 'content-type' });
  }
  let file: File | undefined;
  const fields: Record<string, string[]> = {};
  try {
    try {
      for await (const part of request.parts({ fileHwm: PART_BUFFER })) {
        if (part.type === 'file') {
          if (part.fieldname === 'file') {
            if (file) throw invalidAt('/file', 'the upload has more than one "file" part; send exactly one');
            // A part typed as a file may come without a filename; the domain names such uploads itself.
            file = { filename: part.filename ?? '', contentType: part.mimetype ?? 'application/octet-stream', content: await sink.receive(limited(part.file)) };
          } else {
            const data = await part.toBuffer();
            if (part.fieldname === 'associations') (fields.associations ??= []).push(data.toString('utf8'));
          }
        } else {
          if (part.valueTruncated || part.fieldnameTruncated) {
            throw new AppError('payload_too_large', `the form field "${part.fieldname}" is longer than ${FIELD_SIZE_LIMIT} bytes; send shorter text fields`);
          }
          // A field part sent as application/json (Ruby SDK associations) arrives already parsed.
          (fields[part.fieldname] ??= []).push(typeof part.value === 'string' ? part.value : jsonFieldText(part.fieldname, part.value));
        }
      }
    } catch (error) {
      throw multipartError(error);
    }
    refuseBadText(file, fields);
    const fileId = fields.file_id?.[0];
    if (!file && fileOptional && fileId !== undefined) return { fileId };
    if (!file) throw invalidAt('/file', 'the upload needs a "file" part with the file contents and a filename');
    const upload: Upload = { ...file };
    if (fields.name?.[0] !== undefined) upload.name = fields.name[0];
    const associations = parseAssociations(fields);
    if (associations) upload.associations = associations;
    return { upload };
  } catch (error) {
    if (file) await sink.discard(file.content);
    throw error;
  }
}

/** A field part parsed as JSON, as text again; one nested deeper than the stack goes is refused, not a 500. */
function jsonFieldText(name: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    throw invalidAt(`/${name}`, `the form field "${name}" nests arrays and objects too deeply; send associations as [{"type": "item", "id": "…"}]`);
  }
}

/** The file part's stream, failing with the size-limit error (413) instead of ending short when it is too large. */
function limited(stream: Readable & { truncated?: boolean }): Readable {
  stream.once('limit', () => stream.destroy(Object.assign(new Error('request file too large'), { code: 'FST_REQ_FILE_TOO_LARGE' })));
  return stream;
}

/** Text of a multipart body is held to the rule JSON bodies follow (text-guard.ts). */
function refuseBadText(file: File | undefined, fields: Record<string, string[]>): void {
  const inFile = file && findBadText([file.filename, file.contentType]);
  if (inFile) throw invalidAt('/file', `the file part's filename and Content-Type ${inFile.problem}`);
  // Served back in the download's Content-Disposition header, which clients bound (undici at 16 KiB).
  if (file && longerThan(file.filename, MAX_FILENAME)) {
    throw invalidAt('/file', `the file part's filename must be at most ${MAX_FILENAME} characters; got ${characterCount(file.filename)}`);
  }
  // Kept and served back as the download's Content-Type: it must be one a header can carry.
  if (file && !isMediaType(file.contentType)) {
    throw invalidAt('/file', `the file part's Content-Type must be a media type such as "text/plain" or "application/pdf"; got ${JSON.stringify(file.contentType)}`);
  }
  const inFields = findBadText(fields);
  if (inFields !== undefined) {
    const name = inFields.path[0]!;
    throw invalidAt(`/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, `the form field "${name}" ${inFields.problem}`);
  }
}

const ASSOCIATIONS_SHAPE =
  'send associations as form fields associations[][id] and associations[][type] (or associations[0][id], associations[0][type] …), or as one associations field holding JSON [{"type": "item", "id": "…"}]';
/** The one JSON field, and the fields of the TypeScript SDK's encoding. */
const BRACKET_FIELDS = new Set(['associations', 'associations[][id]', 'associations[][type]']);
/** `associations[<index>][id|type]`, as form encoders with indices write an array of objects. */
const INDEXED_FIELD = /^associations\[(\d{1,3})\]\[(id|type)\]$/;

function parseAssociations(fields: Record<string, string[]>): { type: string; id: string }[] | undefined {
  const named = Object.keys(fields).filter((name) => name.startsWith('associations'));
  const unknown = named.find((name) => !BRACKET_FIELDS.has(name) && !INDEXED_FIELD.test(name));
  if (unknown !== undefined || (named.includes('associations[][type]') && !named.includes('associations[][id]'))) {
    throw invalidAt('/associations', `the form field "${unknown ?? 'associations[][type]'}" is not one associations are read from; ${ASSOCIATIONS_SHAPE}`);
  }
  const list = fields.associations ? jsonAssociations(fields.associations[0]!) : bracketAssociations(fields);
  // Parsed JSON may hold escapes (\u0000) of text no engine stores: held to the rule the form fields are.
  list?.forEach((association, i) => {
    for (const key of ['id', 'type'] as const) {
      const problem = textProblem(association[key]);
      if (problem) throw invalidAt(`/associations/${i}/${key}`, `associations.${i}.${key} ${problem}`);
    }
  });
  return list;
}

function jsonAssociations(text: string): { type: string; id: string }[] {
  try {
    const parsed: unknown = JSON.parse(text);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.map((a, i) => {
      if (typeof a !== 'object' || a === null || typeof a.id !== 'string') throw new Error(`entry ${i}`);
      return { type: typeof a.type === 'string' ? a.type : 'item', id: a.id };
    });
  } catch {
    throw invalidAt('/associations', 'associations must be a JSON array of item pointers [{"type": "item", "id": "…"}]');
  }
}

/** `associations[][id]` with `associations[][type]` in the same order, or the indexed form, entries in index order. */
function bracketAssociations(fields: Record<string, string[]>): { type: string; id: string }[] | undefined {
  const ids = fields['associations[][id]'];
  if (ids) {
    const types = fields['associations[][type]'] ?? [];
    return ids.map((id, i) => ({ id, type: types[i] ?? 'item' }));
  }
  const entries = new Map<number, { id?: string; type?: string }>();
  for (const [name, values] of Object.entries(fields)) {
    const match = INDEXED_FIELD.exec(name);
    if (!match) continue;
    const index = Number(match[1]);
    const entry = entries.get(index) ?? {};
    entry[match[2] as 'id' | 'type'] = values[0];
    entries.set(index, entry);
  }
  if (entries.size === 0) return undefined;
  return [...entries.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, entry]) => {
      if (entry.id === undefined) throw invalidAt('/associations', `the form field associations[${index}][type] has no associations[${index}][id]; ${ASSOCIATIONS_SHAPE}`);
      return { id: entry.id, type: entry.type ?? 'item' };
    });
}

/** What went wrong while reading the multipart body, as the client's error: never a 500, since only the
 * request's own bytes are read here. */
function multipartError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const e = error as { code?: string; message?: string };
  switch (e.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('payload_too_large', 'the "file" part is larger than the upload limit (TYCHO_UPLOAD_LIMIT); send a smaller file');
    case 'FST_FILES_LIMIT':
      return new AppError('payload_too_large', `the upload has more than ${MULTIPART_LIMITS.files} file parts; send one "file" part`);
    case 'FST_FIELDS_LIMIT':
      return new AppError('payload_too_large', `the upload has more than ${MULTIPART_LIMITS.fields} text fields; send at most ${MULTIPART_LIMITS.fields}`);
    case 'FST_PARTS_LIMIT':
      return new AppError('payload_too_large', `the upload has more than ${MULTIPART_LIMITS.parts} parts; send at most ${MULTIPART_LIMITS.parts}`);
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new AppError('invalid_body', 'a form field declared as application/json is not valid JSON, or holds a "__proto__" or "constructor.prototype" key; send valid JSON of the documented shape, or drop its Content-Type');
    case 'FST_PROTO_VIOLATION':
      return new AppError('invalid_body', 'a form field name is reserved (such as "__proto__"); use the documented field names: file, name, associations, file_id');
  }
  // Busboy's parse failures ("Unexpected end of multipart data", "… terminated early …") and a request
  // stream that ended or broke before the closing delimiter.
  return new AppError('invalid_body', `the multipart body is malformed (${e.message ?? 'unreadable'}); ${SHAPE}`);
}
