// Sections for APIs a server may or may not have (webhooks, the request journal, sandboxes): each is found in
// the served OpenAPI document by its paths and shown only when the document has them and the list answers.
// A new optional API is one more entry in SECTIONS.
import { useState } from 'preact/hooks';
import { api, openapiPaths, query, type ApiList } from '../api.ts';
import { Code, Loading, Table, useLoad, usePaged } from '../components.tsx';

type Paths = Record<string, Record<string, unknown>>;

interface SubList {
  title: string;
  /** The GET path of the records belonging to one record, with `{…}` for its id. */
  find: (paths: Paths) => string | undefined;
  /** A POST that acts on one of those records (e.g. re-send a delivery), with `{…}` for its id. */
  action?: { label: string; find: (paths: Paths) => string | undefined };
}

export interface OptionalSection {
  id: string;
  title: string;
  /** The GET path listing the section's records. */
  find: (paths: Paths) => string | undefined;
  sub?: SubList;
}

const pathWhere = (paths: Paths, method: string, test: (path: string) => boolean) => Object.keys(paths).find((p) => test(p) && paths[p]?.[method]);

export const SECTIONS: OptionalSection[] = [
  {
    id: 'webhooks',
    title: 'Webhooks',
    find: (paths) => pathWhere(paths, 'get', (p) => p === '/v0/webhook_endpoints'),
    sub: {
      title: 'Deliveries',
      find: (paths) => pathWhere(paths, 'get', (p) => /webhook/.test(p) && /deliver|attempt/.test(p) && /\{[^}]+\}/.test(p)),
      action: { label: 'Re-send', find: (paths) => pathWhere(paths, 'post', (p) => /deliver|webhook/.test(p) && /resend|redeliver|retry/.test(p)) },
    },
  },
  { id: 'journal', title: 'Request journal', find: (paths) => pathWhere(paths, 'get', (p) => /journal/.test(p) && !/\{/.test(p)) },
  {
    id: 'sandboxes',
    title: 'Sandboxes',
    find: (paths) => pathWhere(paths, 'get', (p) => /sandboxes$/.test(p)),
    sub: { title: 'Snapshots', find: (paths) => pathWhere(paths, 'get', (p) => /sandboxes\/\{[^}]+\}\/snapshots$/.test(p)) },
  },
];

const withId = (path: string, id: string) => path.replace(/\{[^}]+\}/, encodeURIComponent(id));

/** The sections whose list path the document has and whose list answers with this key. */
export function useAvailableSections(): OptionalSection[] {
  const state = useLoad(async () => {
    const paths = await openapiPaths();
    const answering = await Promise.all(
      SECTIONS.map(async (section) => {
        const path = section.find(paths);
        if (!path) return false;
        return api('GET', `${path}?limit=1`).then(
          () => true,
          () => false,
        );
      }),
    );
    return SECTIONS.filter((_, i) => answering[i]);
  }, []);
  return state.data ?? [];
}

type Row = { id: string } & Record<string, unknown>;

/** Up to five scalar properties of the first record, as columns. */
function columnsOf(rows: Row[]) {
  const keys = Object.keys(rows[0] ?? { id: '' })
    .filter((k) => ['string', 'number', 'boolean'].includes(typeof rows[0]?.[k]))
    .slice(0, 5);
  return keys.map((k) => ({ title: k, cell: (r: Row) => String(r[k] ?? '') }));
}

function SubRecords({ sub, paths, id }: { sub: SubList; paths: Paths; id: string }) {
  const path = sub.find(paths);
  const action = sub.action?.find(paths);
  const [done, setDone] = useState<string>();
  const state = useLoad(() => (path ? api<ApiList<Row>>('GET', withId(path, id)) : Promise.resolve(undefined)), [path, id]);
  if (!path) return null;
  return (
    <div class="sub">
      <h4>{sub.title}</h4>
      <Loading state={state}>
        {(list) => (
          <Table
            rows={list?.data ?? []}
            columns={[
              ...columnsOf(list?.data ?? []),
              ...(action && sub.action
                ? [
                    {
                      title: '',
                      cell: (r: Row) => (
                        <button onClick={() => api('POST', withId(action, r.id)).then(() => (setDone(`${sub.action!.label}: ${r.id}`), state.reload()), (e: Error) => setDone(e.message))}>
                          {sub.action!.label}
                        </button>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Loading>
      {done && <p role="status">{done}</p>}
    </div>
  );
}

export function OptionalSectionPage({ section }: { section: OptionalSection }) {
  const paths = useLoad(() => openapiPaths(), []);
  const [open, setOpen] = useState<string>();
  const { state, pager } = usePaged(
    async (c) => {
      const path = section.find(await openapiPaths());
      return api<ApiList<Row>>('GET', `${path}${query({ limit: 50, ...c })}`);
    },
    [section.id],
  );
  return (
    <section>
      <h2>{section.title}</h2>
      <Loading state={state}>
        {(list) => (
          <>
            <Table rows={list.data} columns={[{ title: '', cell: (r) => <button onClick={() => setOpen(open === r.id ? undefined : r.id)}>{open === r.id ? '▾' : '▸'}</button> }, ...columnsOf(list.data)]} />
            {open && (
              <div class="detail">
                <Code value={list.data.find((r) => r.id === open)} />
                {section.sub && paths.data && <SubRecords sub={section.sub} paths={paths.data} id={open} />}
              </div>
            )}
          </>
        )}
      </Loading>
      {pager}
    </section>
  );
}
