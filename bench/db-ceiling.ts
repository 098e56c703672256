// The second ceiling: a minimal real server over the benchmark's own SQLite database. `node:http` and
// better-sqlite3, one prepared statement per request, the stored rows written out as they are — no
// authentication, validation, cursors or framework. It is the honest limit for an answer that comes from the
// database; the static ceiling (ceiling.ts) is the limit for any answer at all.
//
//   GET  /item/<id>                  one item's stored form
//   GET  /list?limit=20[&after=<id>] a page of the collection, newest first, in the list envelope
//   POST /search                     {filter: {op: "eq" | "starts_with", field, value}}: 20 matches through the value index
//   POST /write                      the body stored as one row of a table of its own database, and sent back
//
// The stored form is the `wire` column where the database has one, otherwise the values document.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Database from 'better-sqlite3';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`db-ceiling needs ${name}`);
  return value;
};
const orgId = env('CEILING_ORG_ID');
const collectionId = env('CEILING_COLLECTION_ID');

/** As Tycho opens SQLite (store/sqlite/open.ts). */
function open(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

const db = open(env('CEILING_DATABASE'));
const stored = (db.prepare(`select name from pragma_table_info('items') where name = 'wire'`).get() ? 'wire' : 'doc') as 'wire';
const one = db.prepare(`select ${stored} from items where id = ?`).pluck();
const first = db.prepare(`select ${stored} from items where org_id = ? and collection_id = ? order by id desc limit ?`).pluck();
const after = db.prepare(`select ${stored} from items where org_id = ? and collection_id = ? and id < ? order by id desc limit ?`).pluck();
const matching = (condition: string) =>
  db
    .prepare(
      `select i.${stored} from item_values v cross join items i on i.id = v.item_id
       where v.field_id = ? and ${condition} and i.org_id = ? and i.collection_id = ? order by v.item_id desc limit 20`,
    )
    .pluck();
const eq = matching('v.key_text = ?');
const startsWith = matching(`v.key_text >= ? and v.key_text < ? || char(1114111)`);
const fieldIds = new Map(
  (db.prepare('select ref, id from fields where collection_id = ?').all(collectionId) as { ref: string; id: string }[]).map((f) => [f.ref, f.id]),
);

// Writes go to a database of their own, so they never wait for Tycho's writer.
const scratch = open(env('CEILING_WRITE_DATABASE'));
scratch.exec('create table if not exists writes (id integer primary key, body text not null)');
const write = scratch.prepare('insert into writes (body) values (?) returning body').pluck();

const list = (rows: unknown[]) => `{"type":"list","data":[${rows.join(',')}],"meta":{"cursors":{}}}`;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.once('end', () => resolve(text));
    req.once('error', reject);
  });
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function answer(req: IncomingMessage): Promise<[number, string]> {
  const url = new URL(req.url ?? '/', 'http://ceiling');
  if (req.method === 'GET' && url.pathname.startsWith('/item/')) {
    const found = one.get(url.pathname.slice('/item/'.length)) as string | undefined;
    return found === undefined ? [404, '{}'] : [200, found];
  }
  if (req.method === 'GET' && url.pathname === '/list') {
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const cursor = url.searchParams.get('after');
    return [200, list(cursor ? after.all(orgId, collectionId, cursor, limit) : first.all(orgId, collectionId, limit))];
  }
  if (req.method === 'POST' && url.pathname === '/search') {
    const { filter } = JSON.parse(await body(req)) as { filter: { op: string; field: string; value: string } };
    const field = fieldIds.get(filter.field);
    const key = filter.value.toLowerCase();
    if (filter.op === 'eq') return [200, list(eq.all(field, key, orgId, collectionId))];
    if (filter.op === 'starts_with') return [200, list(startsWith.all(field, key, key, orgId, collectionId))];
    return [400, '{}'];
  }
  if (req.method === 'POST' && url.pathname === '/write') return [201, write.get(await body(req)) as string];
  return [404, '{}'];
}

const server = createServer((req, res) => {
  answer(req).then(
    ([status, text]) => send(res, status, text),
    (error: Error) => send(res, 500, JSON.stringify({ error: error.message })),
  );
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`db ceiling listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
