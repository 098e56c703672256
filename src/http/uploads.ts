// Reading a multipart upload (POST /v0/files, attachments): the `file` part plus text fields. Associations
// arrive either as form fields `associations[][id]` / `associations[][type]` (TypeScript SDK) or as one
// `associations` part holding JSON (Ruby SDK); both are accepted.
import type { FastifyRequest } from 'fastify';
import { AppError, invalidAt } from '../domain/errors.ts';
import type { Upload } from '../domain/files.ts';

/** `fileOptional`: a `file_id` field may stand in for the file (attachments); it is returned as `fileId`. */
export async function readUpload(request: FastifyRequest, options: { fileOptional?: boolean } = {}): Promise<Upload & { fileId?: string }> {
  if (!request.isMultipart()) {
    throw new AppError('unsupported_media_type', 'send the upload as multipart/form-data with a "file" part');
  }
  let file: { filename: string; contentType: string; data: Buffer } | undefined;
  const fields: Record<string, string[]> = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (part.fieldname === 'file') file = { filename: part.filename, contentType: part.mimetype, data };
      else if (part.fieldname === 'associations') (fields.associations ??= []).push(data.toString('utf8'));
    } else {
      // A field part sent as application/json (Ruby SDK associations) arrives already parsed.
      (fields[part.fieldname] ??= []).push(typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
    }
  }
  const fileId = fields.file_id?.[0];
  if (!file && options.fileOptional && fileId !== undefined) return { filename: '', contentType: '', data: Buffer.alloc(0), fileId };
  if (!file) throw invalidAt('/file', 'the upload needs a "file" part with the file contents and a filename');
  const upload: Upload = { ...file };
  if (fields.name?.[0] !== undefined) upload.name = fields.name[0];
  const associations = parseAssociations(fields);
  if (associations) upload.associations = associations;
  return upload;
}

function parseAssociations(fields: Record<string, string[]>): { type: string; id: string }[] | undefined {
  if (fields.associations) {
    try {
      const parsed: unknown = JSON.parse(fields.associations[0]!);
      const list = Array.isArray(parsed) ? parsed : [parsed];
      return list.map((a, i) => {
        if (typeof a !== 'object' || a === null || typeof a.id !== 'string') throw new Error(`entry ${i}`);
        return { type: typeof a.type === 'string' ? a.type : 'item', id: a.id };
      });
    } catch {
      throw invalidAt('/associations', 'associations must be a JSON array of item pointers [{"type": "item", "id": "…"}]');
    }
  }
  const ids = fields['associations[][id]'];
  if (!ids) return undefined;
  const types = fields['associations[][type]'] ?? [];
  return ids.map((id, i) => ({ id, type: types[i] ?? 'item' }));
}
