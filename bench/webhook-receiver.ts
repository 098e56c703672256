// The loopback receiver of bench/webhooks.ts, in a process of its own so that the load generator cannot
// starve it: answers every delivery 204 and reports each event's lag (receipt − occurred_at) to its parent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { occurred_at: string };
    process.send!({ lag: Date.now() - Date.parse(body.occurred_at) });
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
