// The loopback receiver of bench/webhooks.ts, in a process of its own so that the load generator cannot
// starve it: answers every delivery 204 and reports each event's lag (receipt − occurred_at) to its parent,
// gathered and sent every 50 ms: a message per event took the two cores' CPU from the creates and deliveries
// being measured (with it, creates with the endpoint ran ~13 % slower).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let lags: number[] = [];
setInterval(() => {
  if (lags.length === 0) return;
  process.send!({ lags });
  lags = [];
}, 50).unref();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { occurred_at: string };
    lags.push(Date.now() - Date.parse(body.occurred_at));
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
