// Malformed multipart uploads (POST /v0/files and draft attachments): every one is a 4xx in the errors
// envelope — never a 500 — and leaves no file or attachment behind.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { BLOB_STORES, ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { BOUNDARY, multipartBody, storedKeys } from '../helpers/multipart.ts';
import { createInbox } from '../../src/domain/inboxes.ts';

const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const fileHead = (name = 'file', filename = 'notes.txt') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`;
const field = (name: string, value: string, contentType?: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n${contentType ? `Content-Type: ${contentType}\r\n` : ''}\r\n${value}\r\n`;
const complete = multipartBody([{ name: 'file', filename: 'notes.txt', content: 'hello' }]);

interface Case {
  label: string;
  contentType: string;
  payload: string | Buffer;
  status: number;
  code: string;
  detail: RegExp;
  /** The header named as the error's source. */
  parameter?: string;
}

const CASES: Case[] = [
  {
    label: 'multipart/form-data without a boundary',
    contentType: 'multipart/form-data',
    payload: complete,
    status: 400,
    code: 'invalid_header',
    detail: /no boundary parameter; send Content-Type `multipart\/form-data; boundary=<token>`/,
    parameter: 'content-type',
  },
  { label: 'an empty boundary', contentType: 'multipart/form-data; boundary=', payload: complete, status: 400, code: 'invalid_header', detail: /no boundary/, parameter: 'content-type' },
  {
    label: 'a body without its closing delimiter',
    contentType: MULTIPART,
    payload: `${fileHead()}hello`,
    status: 400,
    code: 'invalid_body',
    detail: /multipart body is malformed .*closed by `--<token>--`/,
  },
  {
    label: 'a large file part cut off before its closing delimiter (the file is being written when the body ends)',
    contentType: MULTIPART,
    payload: `${fileHead()}${'a'.repeat(70_000)}`,
    status: 400,
    code: 'invalid_body',
    detail: /multipart body is malformed/,
  },
  { label: 'a body cut off inside part headers', contentType: MULTIPART, payload: `--${BOUNDARY}\r\nContent-Disposition: form-da`, status: 400, code: 'invalid_body', detail: /malformed/ },
  { label: 'a body that never uses the declared boundary', contentType: 'multipart/form-data; boundary=SomethingElse', payload: complete, status: 400, code: 'invalid_body', detail: /malformed/ },
  { label: 'bytes that are not multipart at all', contentType: MULTIPART, payload: 'just some text', status: 400, code: 'invalid_body', detail: /malformed/ },
  {
    label: 'a text field over 64 KiB (was: silently truncated; up to 1 MiB was held in memory per field)',
    contentType: MULTIPART,
    payload: `${field('name', 'n'.repeat(64 * 1024 + 1))}${complete.toString('latin1')}`,
    status: 413,
    code: 'payload_too_large',
    detail: /form field "name" is longer than 65536 bytes/,
  },
  {
    label: 'two "file" parts (was: the last one kept)',
    contentType: MULTIPART,
    payload: `${fileHead('file', 'a.txt')}a\r\n${fileHead('file', 'b.txt')}b\r\n--${BOUNDARY}--\r\n`,
    status: 422,
    code: 'validation_failed',
    detail: /more than one "file" part; send exactly one/,
  },
  {
    label: 'more file parts than the limit',
    contentType: MULTIPART,
    payload: `${fileHead('file')}a\r\n${fileHead('x')}b\r\n${fileHead('y')}c\r\n--${BOUNDARY}--\r\n`,
    status: 413,
    code: 'payload_too_large',
    detail: /more than 2 file parts/,
  },
  {
    label: 'more text fields than the limit',
    contentType: MULTIPART,
    payload: `${Array.from({ length: 101 }, (_, i) => field(`f${i}`, 'v')).join('')}${complete.toString('latin1')}`,
    status: 413,
    code: 'payload_too_large',
    detail: /more than 100 text fields; send at most 100/,
  },
  {
    label: 'a field declared application/json that is not JSON',
    contentType: MULTIPART,
    payload: `${field('associations', '{not json', 'application/json')}${complete.toString('latin1')}`,
    status: 400,
    code: 'invalid_body',
    detail: /not valid JSON/,
  },
  {
    label: 'a part over 16 KiB without Content-Disposition (was: the request hung)',
    contentType: MULTIPART,
    payload: `--${BOUNDARY}\r\n\r\n${'a'.repeat(70_000)}\r\n--${BOUNDARY}--\r\n`,
    status: 422,
    code: 'validation_failed',
    detail: /needs a "file" part/,
  },
  {
    label: 'a part over 16 KiB that is not form-data (was: the request hung)',
    contentType: MULTIPART,
    payload: `--${BOUNDARY}\r\nContent-Disposition: attachment; filename="x.txt"\r\n\r\n${'a'.repeat(70_000)}\r\n--${BOUNDARY}--\r\n`,
    status: 422,
    code: 'validation_failed',
    detail: /needs a "file" part/,
  },
  ...['text/plain\u0001', 'text/plain\u007f', 'text/\u00e9', 'plain'].map((type): Case => ({
    label: `a file part typed ${JSON.stringify(type)} (was: accepted, then every download a 500)`,
    contentType: MULTIPART,
    payload: Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: ${type}\r\n\r\nhi\r\n--${BOUNDARY}--\r\n`, 'latin1'),
    status: 422,
    code: 'validation_failed',
    detail: /Content-Type must be a media type such as "text\/plain"/,
  })),
  {
    label: 'a filename of 20,000 characters (was: an attachment kept it, and its download header broke clients)',
    contentType: MULTIPART,
    payload: multipartBody([{ name: 'file', filename: `${'n'.repeat(20_000)}.txt`, content: 'hello' }]),
    status: 422,
    code: 'validation_failed',
    detail: /filename must be at most 255 characters; got 20004/,
  },
  {
    label: 'a reserved field name',
    contentType: MULTIPART,
    payload: `${field('__proto__', 'x')}${complete.toString('latin1')}`,
    status: 400,
    code: 'invalid_body',
    detail: /reserved/,
  },
];

function assertRefused(res: Response, expected: Case): void {
  assert.equal(res.status, expected.status, `${expected.label}: ${res.text}`);
  const error = errorOf(res);
  assert.equal(error.code, expected.code, res.text);
  assert.match(error.detail ?? '', expected.detail);
  if (expected.parameter) assert.equal(error.source?.parameter, expected.parameter);
}

for (const engine of ENGINES) for (const blobs of BLOB_STORES) {
  describe(`malformed multipart uploads are 4xx and write nothing (${engine}, ${blobs} store)`, () => {
    let h: Harness;
    let draftId: string;
    before(async () => {
      h = await createHarness(engine, { blobs });
      const inbox = await createInbox(h.store, h.orgId, { name: 'Support', email: 'support@tycho.test' });
      const draft = await h.post('/v0/inbox_messages', { inbox_id: inbox.id, body: 'x' });
      assert.equal(draft.status, 201, draft.text);
      draftId = draft.body.id;
    });
    after(() => h.close());

    const nothingWritten = async () => {
      const files = await h.get('/v0/files');
      assert.deepEqual(files.body.data, [], 'no file row');
      const message = await h.get(`/v0/inbox_messages/${draftId}?include[]=attachments`);
      assert.deepEqual(message.body.attachments ?? [], [], 'no attachment');
      assert.deepEqual(await storedKeys(h), [], 'no contents in the blob store');
    };

    for (const target of ['POST /v0/files', 'POST /v0/inbox_messages/{id}/attachments']) {
      for (const c of CASES) {
        // A timeout, so that a request that hangs fails instead of stalling the run.
        it(`${target} with ${c.label} answers ${c.status} (was: 500 or accepted)`, { timeout: 30_000 }, async () => {
          const url = target.includes('attachments') ? `/v0/inbox_messages/${draftId}/attachments` : '/v0/files';
          assertRefused(await h.request('POST', url, { payload: c.payload, headers: { 'content-type': c.contentType } }), c);
          await nothingWritten();
        });
      }
    }

    it('a skipped part over 16 KiB next to the file is ignored, not a hang', { timeout: 30_000 }, async () => {
      const payload = `--${BOUNDARY}\r\n\r\n${'a'.repeat(70_000)}\r\n${complete.toString('latin1')}`;
      const res = await h.request('POST', '/v0/files', { payload, headers: { 'content-type': MULTIPART } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.size, 5);
      assert.equal((await h.delete(`/v0/files/${res.body.id}`)).status, 204);
    });

    it('a well-formed upload still works after all of them', async () => {
      const res = await h.request('POST', '/v0/files', { payload: complete, headers: { 'content-type': MULTIPART } });
      assert.equal(res.status, 201, res.text);
      assert.equal((await h.get('/v0/files')).body.data.length, 1);
      assert.equal((await h.delete(`/v0/files/${res.body.id}`)).status, 204);
    });

    it('an upload whose chunked framing breaks mid-file answers 400 on the socket and writes nothing', async () => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (h.app.server.address() as net.AddressInfo).port;
      const head =
        `POST /v0/files HTTP/1.1\r\nHost: tycho.test\r\nAuthorization: Bearer ${h.key}\r\n` +
        `Content-Type: ${MULTIPART}\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const start = fileHead();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (d) => (text += d.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
        socket.write(head + `${Buffer.byteLength(start).toString(16)}\r\n${start}\r\n`);
        setTimeout(() => socket.write('not-a-chunk-size\r\n'), 50);
      });
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.match(answer, /\r\nConnection: close\r\n/i);
      assert.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).errors[0].code, 'bad_request');
      await nothingWritten();
    });
  });
}
