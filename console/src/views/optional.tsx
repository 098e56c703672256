// Sections for APIs a server may or may not have (webhooks, the request journal, sandboxes): each is found in
// the served OpenAPI document by its paths and shown only when the document has them and the list answers.
// A new optional API is one more entry in SECTIONS.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, openapiPaths, query, type ApiList } from '../api.ts';
import { Code, Loading, Table, useLoad, usePaged, type Column } from '../components.tsx';
import { timeText } from '../format.ts';

type Paths = Record<string, Record<string, unknown>>;
type Row = { id: string } & Record<string, any>;

interface SubList {
  title: string;
  /** The GET path of the records belonging to one record, with `{…}` for its id. */
  find: (paths: Paths) => string | undefined;
  /** How the records read; without it, their first scalar properties. */
  columns?: Column<Row>[];
  /** A POST on the parent record made from one of these records (re-send an attempt's event), with `{…}` for the parent's id. */
  action?: { label: string; find: (paths: Paths) => string | undefined; body: (row: Row) => unknown; done: (answer: any) => string };
}

export interface OptionalSection {
  id: string;
  title: string;
  /** The GET path listing the section's records. */
  find: (paths: Paths) => string | undefined;
  /** How the records read; without it, their first scalar properties, and an opened record shows as JSON. */
  columns?: Column<Row>[];
  sub?: SubList;
}

const pathWhere = (paths: Paths, method: string, test: (path: string) => boolean) => Object.keys(paths).find((p) => test(p) && paths[p]?.[method]);

export const SECTIONS: OptionalSection[] = [
  {
    id: 'webhooks',
    title: 'Webhooks',
    find: (paths) => pathWhere(paths, 'get', (p) => p === '/v0/webhook_endpoints'),
    columns: [
      { title: 'URL', cell: (e) => <code>{e.url}</code> },
      { title: 'Status', cell: (e) => e.status },
      { title: 'Events', cell: (e) => (e.subscriptions as { event_type: string }[]).map((s) => s.event_type).join(', ') },
      { title: 'Created', cell: (e) => timeText(e.created_at) },
    ],
    sub: {
      title: 'Delivery attempts',
      find: (paths) => pathWhere(paths, 'get', (p) => /webhook/.test(p) && /attempts$/.test(p) && /\{[^}]+\}/.test(p)),
      columns: [
        { title: 'Time', cell: (a) => timeText(a.attempted_at) },
        { title: 'Event', cell: (a) => <code>{a.event_type}</code> },
        { title: 'Status code', cell: (a) => <span class={a.status_code !== null && a.status_code < 300 ? 'ok' : 'error'}>{a.status_code ?? 'no answer'}</span> },
        { title: 'Latency', cell: (a) => `${a.latency_ms} ms` },
        { title: 'Error', cell: (a) => a.error ?? '' },
        { title: 'Response', cell: (a) => (a.response_excerpt ? <code class="excerpt">{a.response_excerpt}</code> : '') },
      ],
      action: {
        label: 'Re-send',
        find: (paths) => pathWhere(paths, 'post', (p) => /webhook/.test(p) && /deliveries$/.test(p)),
        body: (attempt) => ({ event_id: attempt.event_id }),
        done: (delivery: { event_id: string }) => `Re-sent ${delivery.event_id}: queued, its attempt shows here once a worker sends it.`,
      },
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

/** Up to five scalar properties of the first record, as columns. */
function columnsOf(rows: Row[]): Column<Row>[] {
  const keys = Object.keys(rows[0] ?? { id: '' })
    .filter((k) => ['string', 'number', 'boolean'].includes(typeof rows[0]?.[k]))
    .slice(0, 5);
  return keys.map((k) => ({ title: k, cell: (r: Row) => String(r[k] ?? '') }));
}

/** How long the records are read again, each second, after an action, waiting for the record it causes. */
const FOLLOW_MS = 60_000;

function SubRecords({ sub, paths, id }: { sub: SubList; paths: Paths; id: string }) {
  const path = sub.find(paths);
  const actionPath = sub.action?.find(paths);
  const [status, setStatus] = useState<string>();
  const state = useLoad(() => (path ? api<ApiList<Row>>('GET', withId(path, id)) : Promise.resolve(undefined)), [path, id]);
  // A re-sent event is delivered by a worker moments later: follow the list until a new record heads it.
  const following = useRef<{ head: string | undefined; until: number } | undefined>(undefined);
  useEffect(() => {
    const follow = following.current;
    if (!follow || !state.data) return;
    if (state.data.data[0]?.id !== follow.head || Date.now() > follow.until) {
      following.current = undefined;
      return;
    }
    const timer = setTimeout(state.reload, 1000);
    return () => clearTimeout(timer);
  }, [state.data]);
  if (!path) return null;
  const act = (action: NonNullable<SubList['action']>, target: string, row: Row, rows: Row[]) =>
    api('POST', withId(target, id), action.body(row)).then(
      (answer) => {
        setStatus(action.done(answer));
        following.current = { head: rows[0]?.id, until: Date.now() + FOLLOW_MS };
        state.reload();
      },
      (e: Error) => setStatus(e.message),
    );
  return (
    <div class="sub">
      <h4>{sub.title}</h4>
      <Loading state={state}>
        {(list) => {
          const rows = list?.data ?? [];
          const action = sub.action;
          return (
            <Table
              rows={rows}
              columns={[
                ...(sub.columns ?? columnsOf(rows)),
                ...(action && actionPath ? [{ title: '', cell: (r: Row) => <button onClick={() => act(action, actionPath, r, rows)}>{action.label}</button> }] : []),
              ]}
            />
          );
        }}
      </Loading>
      {status && <p role="status">{status}</p>}
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
  const toggle: Column<Row> = {
    title: '',
    cell: (r) => (
      <button aria-label={open === r.id ? 'Close' : 'Open'} aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? undefined : r.id)}>
        {open === r.id ? '▾' : '▸'}
      </button>
    ),
  };
  return (
    <section>
      <h2>{section.title}</h2>
      <Loading state={state}>
        {(list) => (
          <>
            <Table rows={list.data} columns={[toggle, ...(section.columns ?? columnsOf(list.data))]} />
            {open && (
              <div class="detail">
                {!section.columns && <Code value={list.data.find((r) => r.id === open)} />}
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
