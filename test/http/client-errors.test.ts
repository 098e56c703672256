// Requests Node's HTTP parser rejects before any route runs (headers too large, broken framing, forbidden
// bytes), and HEAD answers: raw bytes over a real socket, since app.inject never goes through the parser.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { TEST_KEY, createHarness, type Harness } from '../helpers/harness.ts';
import { BOUNDARY, multipartBody } from '../helpers/multipart.ts';

/** Only a guard against a hung exchange; no test asserts on time. */
const GUARD_MS = 10_000;

interface Answer {
  statusLine: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Exchange {
  /** Every byte the server sent. */
  bytes: Buffer;
  /** The server ended the connection (sent FIN) instead of leaving it open. */
  closedByServer: boolean;
  /** The connection was reset rather than closed. */
  reset: boolean;
}

/** Writes `chunks` in turn on a new connection and reads until the server closes it. */
function exchange(port: number, chunks: (string | Buffer)[], options: { keepSending?: Buffer } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let closedByServer = false;
    let reset = false;
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server never closed the connection; received: ${Buffer.concat(received).toString('latin1')}`));
    }, GUARD_MS);
    socket.on('data', (data) => received.push(data));
    socket.on('end', () => (closedByServer = true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') reset = true;
      else if (error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ bytes: Buffer.concat(received), closedByServer, reset });
    });
    socket.once('connect', async () => {
      for (const chunk of chunks) {
        socket.write(chunk);
        // Separate packets, so the parser sees them one at a time.
        await new Promise((r) => setTimeout(r, 20));
      }
      // A client that has not finished its upload when the server gives up.
      if (options.keepSending) socket.write(options.keepSending);
    });
  });
}

/** Splits the bytes into responses, framing each body by its Content-Length (none for answers to HEAD). */
function answersIn(bytes: Buffer, methods: string[]): Answer[] {
  const answers: Answer[] = [];
  let rest = bytes;
  for (const method of methods) {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end >= 0, `no complete header section in: ${rest.toString('latin1')}`);
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = method === 'HEAD' ? 0 : Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length);
    answers.push({ statusLine: statusLine!, status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = rest.subarray(end + 4 + length);
  }
  assert.equal(rest.length, 0, `bytes after the last answer: ${JSON.stringify(rest.toString('latin1'))}`);
  return answers;
}

/** The single error of an envelope answer, after checking the envelope, its length and `Connection: close`. */
function assertClosingEnvelope(answer: Answer, status: number, title: string): { detail?: string; code?: string } {
  assert.equal(answer.statusLine, `HTTP/1.1 ${status} ${title}`);
  assert.equal(answer.headers.connection?.toLowerCase(), 'close');
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(Number(answer.headers['content-length']), answer.body.length);
  assert.ok(answer.headers['x-request-id'], 'every answer carries a request id');
  const envelope = JSON.parse(answer.body.toString('utf8'));
  assert.equal(envelope.type, 'errors');
  assert.equal(envelope.errors.length, 1);
  const [error] = envelope.errors;
  assert.deepEqual({ type: error.type, status: error.status, title: error.title }, { type: 'error', status: String(status), title });
  assert.ok(error.detail, 'the detail says what was wrong');
  return error;
}

const HOST = 'Host: tycho.test\r\n';

/** A harness listening on a loopback port for the duration of the suite it is called in. */
function listening(): { h: Harness; port: number } {
  const server = {} as { h: Harness; port: number };
  before(async () => {
    server.h = await createHarness();
    await server.h.app.listen({ port: 0, host: '127.0.0.1' });
    server.port = (server.h.app.server.address() as net.AddressInfo).port;
  });
  after(() => server.h.close());
  return server;
}

describe('transport-level errors (real sockets)', () => {
  const server = listening();

  it('headers over 16 KiB answer 431 in the errors envelope with Connection: close, then the connection closes (was: Fastify\'s own body and a reset)', async () => {
    const big = `GET /v0/collections HTTP/1.1\r\n${HOST}Authorization: Bearer ${server.h.key}\r\nX-Padding: ${'p'.repeat(17 * 1024)}\r\n\r\n`;
    const result = await exchange(server.port, [big]);
    assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
    const [answer] = answersIn(result.bytes, ['GET']);
    const error = assertClosingEnvelope(answer!, 431, 'Request Header Fields Too Large');
    assert.equal(error.code, 'headers_too_large');
    assert.match(error.detail!, /16384 bytes/);

    // The server is unharmed: the next connection is served.
    const next = await exchange(server.port, [`GET /v0/collections HTTP/1.1\r\n${HOST}Authorization: Bearer ${server.h.key}\r\nConnection: close\r\n\r\n`]);
    const [ok] = answersIn(next.bytes, ['GET']);
    assert.equal(ok!.status, 200);
    assert.equal(JSON.parse(ok!.body.toString('utf8')).type, 'list');
  });

  const framing: [string, string, RegExp][] = [
    [
      'a broken chunked body',
      `POST /v0/collections HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      /chunked body is broken/,
    ],
    ['a duplicate Content-Length', `POST /v0/collections HTTP/1.1\r\n${HOST}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, /more than one Content-Length/],
    [
      'both Transfer-Encoding and Content-Length',
      `POST /v0/collections HTTP/1.1\r\n${HOST}Content-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      /Transfer-Encoding .*Content-Length/,
    ],
    [
      'Content-Length after Transfer-Encoding',
      `POST /v0/collections HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      /Transfer-Encoding .*Content-Length/,
    ],
    ['a NUL inside a header value', `GET /healthz HTTP/1.1\r\n${HOST}X-Note: a\0b\r\n\r\n`, /forbidden character/],
    ['a malformed Content-Length', `POST /v0/collections HTTP/1.1\r\n${HOST}Content-Length: 12abc\r\n\r\n{}`, /Content-Length is not a decimal/],
  ];
  for (const [label, request, detail] of framing) {
    it(`${label} answers 400 in the errors envelope with Connection: close, then the connection closes (was: a bare 400)`, async () => {
      const result = await exchange(server.port, [request]);
      assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
      const [answer] = answersIn(result.bytes, ['POST']);
      const error = assertClosingEnvelope(answer!, 400, 'Bad Request');
      assert.equal(error.code, 'bad_request');
      assert.match(error.detail!, detail);
    });
  }

  it('an HTTP/1.1 request without Host answers 400 in the errors envelope with Connection: close (was: Node\'s bare 400)', async () => {
    const result = await exchange(server.port, ['GET /v0/collections HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n']);
    assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
    const [answer] = answersIn(result.bytes, ['GET']);
    const error = assertClosingEnvelope(answer!, 400, 'Bad Request');
    assert.equal(error.code, 'bad_request');
    assert.match(error.detail!, /Host header/);
  });

  it('an Expect other than 100-continue answers 417 in the errors envelope and closes (was: Node\'s bare 417)', async () => {
    const result = await exchange(server.port, [`POST /v0/collections HTTP/1.1\r\n${HOST}Expect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"X"}`]);
    assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
    const [answer] = answersIn(result.bytes, ['POST']);
    const error = assertClosingEnvelope(answer!, 417, 'Expectation Failed');
    assert.equal(error.code, 'expectation_failed');
    assert.equal((await server.h.get('/v0/collections?limit=100')).body.data.length, 4, 'nothing was created');
  });

  it('a transfer coding other than chunked (gzip, chunked) answers 501 in the errors envelope and closes, nothing written (was: 201, the body read as it came)', async () => {
    const result = await exchange(server.port, [
      `POST /v0/collections HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\nc\r\n{"name":"Z"}\r\n0\r\n\r\n`,
    ]);
    assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
    const [answer] = answersIn(result.bytes, ['POST']);
    const error = assertClosingEnvelope(answer!, 501, 'Not Implemented');
    assert.equal(error.code, 'not_implemented');
    assert.match(error.detail!, /gzip/);
    assert.equal((await server.h.get('/v0/collections?limit=100')).body.data.length, 4, 'nothing was created');
  });

  for (const [label, hostLines, detail] of [
    ['two Host lines', 'Host: evil.example\r\nHost: tycho.test\r\n', /more than one Host/],
    ['a Host that is not a host', 'Host: a b\r\n', /is not a host name/],
    ['a Host with a path and query', 'Host: evil.example/x?y=\r\n', /is not a host name/],
    ['a Host with a port beyond 65535', 'Host: 1.2.3.4:99999\r\n', /has port 99999; a port is 1 to 65535/],
    ['a Host with port 0', 'Host: files.example:0\r\n', /has port 0; a port is 1 to 65535/],
  ] as const) {
    it(`${label} answers 400 in the errors envelope and closes (was: 200, links in the answer made from it)`, async () => {
      const result = await exchange(server.port, [`GET /v0/files HTTP/1.1\r\n${hostLines}Authorization: Bearer ${TEST_KEY}\r\n\r\n`]);
      const [answer] = answersIn(result.bytes, ['GET']);
      const error = assertClosingEnvelope(answer!, 400, 'Bad Request');
      assert.equal(error.code, 'bad_request');
      assert.match(error.detail!, detail);
    });
  }

  it('two Authorization lines answer 400 in the errors envelope, whichever comes first (was: the first one silently won)', async () => {
    for (const lines of [`Authorization: Bearer ${TEST_KEY}\r\nAuthorization: Bearer wrong_key_0123456789\r\n`, `Authorization: Bearer wrong_key_0123456789\r\nAuthorization: Bearer ${TEST_KEY}\r\n`]) {
      const result = await exchange(server.port, [`GET /v0/collections HTTP/1.1\r\n${HOST}${lines}\r\n`]);
      const [answer] = answersIn(result.bytes, ['GET']);
      const error = assertClosingEnvelope(answer!, 400, 'Bad Request');
      assert.match(error.detail!, /more than one Authorization header/);
    }
  });

  it('Transfer-Encoding in HTTP/1.0, or empty beside Content-Length, answers 400 and closes, nothing written (was: 201)', async () => {
    for (const request of [
      `POST /v0/collections HTTP/1.0\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nc\r\n{"name":"Y"}\r\n0\r\n\r\n`,
      `POST /v0/collections HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: \r\nContent-Length: 12\r\n\r\n{"name":"Y"}`,
    ]) {
      const result = await exchange(server.port, [request]);
      const [answer] = answersIn(result.bytes, ['POST']);
      assert.match(assertClosingEnvelope(answer!, 400, 'Bad Request').detail!, /framing is faulty/);
    }
    assert.equal((await server.h.get('/v0/collections?limit=100')).body.data.length, 4, 'nothing was created');
  });

  it('the asterisk form answers 400 but for OPTIONS (was: GET * answered with the root document)', async () => {
    const result = await exchange(server.port, [`GET * HTTP/1.1\r\n${HOST}\r\n`]);
    const [answer] = answersIn(result.bytes, ['GET']);
    assert.match(assertClosingEnvelope(answer!, 400, 'Bad Request').detail!, /for OPTIONS only/);
  });

  it('links in answers point where the client addressed: the absolute form over Host, the server itself for HTTP/1.0 without Host (was: http:///…)', async () => {
    const upload = await server.h.request('POST', '/v0/files', { payload: multipartBody([{ name: 'file', filename: 'a.txt', content: 'hi' }]), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } });
    assert.equal(upload.status, 201, upload.text);
    const downloadUrl = async (request: string) => {
      const [answer] = answersIn((await exchange(server.port, [request])).bytes, ['GET']);
      assert.equal(answer!.status, 200, answer!.body.toString());
      return JSON.parse(answer!.body.toString()).data[0].download_url as string;
    };
    const auth = `Authorization: Bearer ${TEST_KEY}\r\nConnection: close\r\n`;
    assert.match(await downloadUrl(`GET http://files.example:8443/v0/files HTTP/1.1\r\nHost: evil.example\r\n${auth}\r\n`), /^http:\/\/files\.example:8443\/tycho\/downloads\//);
    assert.ok((await downloadUrl(`GET /v0/files HTTP/1.0\r\n${auth}\r\n`)).startsWith(`http://127.0.0.1:${server.port}/tycho/downloads/`));
    assert.match(await downloadUrl(`GET /v0/files HTTP/1.1\r\nHost: files.example\r\n${auth}\r\n`), /^http:\/\/files\.example\/tycho\/downloads\//);
    // An absolute-form target the URL standard cannot parse is no server error.
    const [odd] = answersIn((await exchange(server.port, [`GET http://[bad/v0/files HTTP/1.1\r\nHost: files.example\r\n${auth}\r\n`])).bytes, ['GET']);
    assert.ok(odd!.status < 500, odd!.statusLine);
  });

  it('headers past the 2,000th are read (was: dropped silently, an Authorization or Idempotency-Key among them)', async () => {
    // 2,100 short lines: 10.5 KB, within the 16 KiB of headers Node reads.
    const filler = 'X:1\r\n'.repeat(2100);
    const result = await exchange(server.port, [`GET /v0/collections HTTP/1.1\r\n${HOST}${filler}Authorization: Bearer ${TEST_KEY}\r\nConnection: close\r\n\r\n`]);
    assert.equal(answersIn(result.bytes, ['GET'])[0]!.status, 200);
  });

  it('CONNECT answers 400 in the errors envelope and closes (was: the connection dropped unanswered)', async () => {
    const result = await exchange(server.port, [`CONNECT 127.0.0.1:443 HTTP/1.1\r\n${HOST}\r\n`]);
    assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
    const [answer] = answersIn(result.bytes, ['CONNECT']);
    assert.match(assertClosingEnvelope(answer!, 400, 'Bad Request').detail!, /not a proxy/);
  });

  it('a framing error on a keep-alive connection is answered after the earlier requests, in order', async () => {
    const good = `GET /healthz HTTP/1.1\r\n${HOST}\r\n`;
    const broken = `GET /healthz HTTP/1.1\r\n${HOST}X-Note: a\0b\r\n\r\n`;
    // Pipelined in one packet, and on a connection already used for a request.
    for (const chunks of [[good + broken], [good, broken]]) {
      const result = await exchange(server.port, chunks);
      const [first, second] = answersIn(result.bytes, ['GET', 'GET']);
      assert.equal(first!.status, 200);
      assert.deepEqual(JSON.parse(first!.body.toString('utf8')), { status: 'ok' });
      assertClosingEnvelope(second!, 400, 'Bad Request');
      assert.ok(result.closedByServer);
    }
  });

  it('a client still uploading when its framing breaks reads the whole answer (was: a reset could discard it)', async () => {
    const start = `POST /v0/files HTTP/1.1\r\n${HOST}Authorization: Bearer ${server.h.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nnot-hex\r\n`;
    const result = await exchange(server.port, [start], { keepSending: Buffer.alloc(256 * 1024, 'x') });
    const [answer] = answersIn(result.bytes, ['POST']);
    assertClosingEnvelope(answer!, 400, 'Bad Request');
  });
});

describe('a request that never arrives whole (real sockets)', () => {
  const server = {} as { h: Harness; port: number };
  before(async () => {
    server.h = await createHarness('sqlite', { env: { TYCHO_REQUEST_TIMEOUT: '1' } });
    await server.h.app.listen({ port: 0, host: '127.0.0.1' });
    server.port = (server.h.app.server.address() as net.AddressInfo).port;
  });
  after(() => server.h.close());

  it('a body cut short answers 408 in the errors envelope after TYCHO_REQUEST_TIMEOUT, then the connection closes (was: held open forever)', async () => {
    const started = Date.now();
    const result = await exchange(server.port, [`POST /v0/collections HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"na`]);
    assert.ok(Date.now() - started < GUARD_MS);
    assert.ok(result.closedByServer && !result.reset, 'closed, not reset');
    const [answer] = answersIn(result.bytes, ['POST']);
    assert.equal(assertClosingEnvelope(answer!, 408, 'Request Timeout').code, 'request_timeout');
    assert.equal((await server.h.get('/v0/collections?limit=100')).body.data.length, 4, 'nothing was written');
  });
});

describe('HEAD answers carry no body (real sockets)', () => {
  const server = listening();

  const heads: [string, string, number][] = [
    ['a route (GET exposed as HEAD)', `HEAD /v0/collections HTTP/1.1\r\n${HOST}Authorization: Bearer KEY\r\n\r\n`, 200],
    ['an unknown path (404)', `HEAD /v0/nowhere HTTP/1.1\r\n${HOST}Authorization: Bearer KEY\r\n\r\n`, 404],
    ['a missing key (401)', `HEAD /v0/collections HTTP/1.1\r\n${HOST}\r\n`, 401],
    ['an operations route', `HEAD /healthz HTTP/1.1\r\n${HOST}\r\n`, 200],
  ];
  for (const [label, request, status] of heads) {
    it(`HEAD on ${label} answers ${status} with its Content-Length and no body; the next request on the connection parses`, async () => {
      const next = `GET /healthz HTTP/1.1\r\n${HOST}Connection: close\r\n\r\n`;
      const result = await exchange(server.port, [request.replace('KEY', server.h.key) + next]);
      // answersIn fails if any body byte follows the HEAD answer's headers: the GET answer would not parse.
      const [head, get] = answersIn(result.bytes, ['HEAD', 'GET']);
      assert.equal(head!.status, status);
      assert.ok(Number(head!.headers['content-length']) > 0, 'the length a GET would have');
      assert.equal(get!.status, 200);
      assert.deepEqual(JSON.parse(get!.body.toString('utf8')), { status: 'ok' });
    });
  }

  it('a HEAD request with broken framing gets the 400 envelope headers and no body (was: a body)', async () => {
    const result = await exchange(server.port, [`HEAD /healthz HTTP/1.1\r\n${HOST}X-Note: a\0b\r\n\r\n`]);
    const [answer] = answersIn(result.bytes, ['HEAD']);
    assert.equal(answer!.statusLine, 'HTTP/1.1 400 Bad Request');
    assert.equal(answer!.headers.connection, 'close');
    assert.ok(Number(answer!.headers['content-length']) > 0);
    assert.equal(answer!.body.length, 0);
    assert.ok(result.closedByServer);
  });
});

describe('Expect: 100-continue (real sockets)', () => {
  const server = listening();

  /** Sends `head` and resolves with the first bytes the server answers, and the open socket. */
  function firstAnswer(head: string): Promise<{ text: string; socket: net.Socket }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1');
      const guard = setTimeout(() => reject(new Error('no answer')), GUARD_MS);
      socket.on('error', () => {});
      socket.once('data', (data) => {
        clearTimeout(guard);
        resolve({ text: data.toString('latin1'), socket });
      });
      socket.once('connect', () => socket.write(head));
    });
  }
  const rest = (socket: net.Socket) =>
    new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (data) => (text += data.toString('latin1')));
      socket.once('end', () => resolve(text));
    });

  it('100 Continue comes once the request passed every check that needs no body, and the body is then read', async () => {
    const body = JSON.stringify({ body: 'continued' });
    const { text, socket } = await firstAnswer(
      `POST /v0/notes HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
    const answer = rest(socket);
    socket.write(body);
    assert.match(text + (await answer), /HTTP\/1\.1 201 /);
  });

  it('an upload gets 100 Continue after its size is checked', async () => {
    const body = multipartBody([{ name: 'file', filename: 'c.txt', content: 'continued' }]);
    const { text, socket } = await firstAnswer(
      `POST /v0/files HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    assert.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\n/);
    const answer = rest(socket);
    socket.write(body);
    assert.match(text + (await answer), /HTTP\/1\.1 201 /);
  });

  it('a request refused without its body gets the refusal, not 100 Continue (was: 100 first, then the refusal)', async () => {
    const heads = [
      // No key: 401.
      `POST /v0/notes HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n`,
      // Over the body limit: 413.
      `POST /v0/notes HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\nExpect: 100-continue\r\n\r\n`,
      // A type that is not read: 415.
      `POST /v0/notes HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: text/plain\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n`,
      // A malformed Idempotency-Key: 400.
      `POST /v0/notes HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nIdempotency-Key: \r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n`,
      // No such route: 404.
      `POST /v0/nope HTTP/1.1\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n`,
    ];
    for (const [i, head] of heads.entries()) {
      const { text, socket } = await firstAnswer(head);
      socket.destroy();
      assert.match(text, new RegExp(`^HTTP/1\\.1 ${[401, 413, 415, 400, 404][i]} `), text);
    }
  });

  it('an HTTP/1.0 request gets no 100 Continue (RFC 9110 §15.2), and its body is read once sent', async () => {
    const body = JSON.stringify({ body: 'one-oh' });
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    const answer = rest(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v0/notes HTTP/1.0\r\n${HOST}Authorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
    // What a 1.0 client does without a 100: waits a moment, then sends the body anyway.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write(body);
    const text = await answer;
    assert.doesNotMatch(text, /100 Continue/);
    assert.match(text, /^HTTP\/1\.1 201 /);
  });
});
