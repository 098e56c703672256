// The ceiling: a bare Fastify server answering GET /bytes/<n> with a precomputed JSON body of n bytes.
// No real server can beat it on this machine; every Tycho scenario is reported as a ratio to it.
import Fastify from 'fastify';

const bodies = new Map<number, string>();

function body(size: number): string {
  let cached = bodies.get(size);
  if (!cached) {
    const padding = Math.max(0, size - '{"type":"list","data":""}'.length);
    cached = `{"type":"list","data":"${'x'.repeat(padding)}"}`;
    bodies.set(size, cached);
  }
  return cached;
}

const app = Fastify({ logger: false });
app.get<{ Params: { size: string } }>('/bytes/:size', async (request, reply) =>
  reply.type('application/json; charset=utf-8').send(body(Number(request.params.size))),
);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`ceiling listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
