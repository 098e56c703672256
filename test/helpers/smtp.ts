// An SMTP server started inside a test (smtp-server): it keeps every message it receives and refuses
// recipients at `refused.test`.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface TestSmtp {
  url: string;
  received: Received[];
  /** Resolves with the next message that arrives. */
  next(): Promise<Received>;
  close(): Promise<void>;
}

export interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP server on a free port that keeps what it receives and refuses recipients at `refused.test`. */
export async function startSmtp(): Promise<TestSmtp> {
  const received: Received[] = [];
  const waiting: ((mail: Received) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.test')) return callback(new Error('mailbox unavailable'));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        };
        received.push(mail);
        for (const resolve of waiting.splice(0)) resolve(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const header = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(raw)?.[1]?.trim();
export const bodyOf = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/=\r\n/g, '').trim();

