// Small pieces every view uses: loading and error states, cursor pagination, tables of records.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, type ApiList } from './api.ts';

/** Runs `load` whenever `deps` change; gives its result or its error. A reload shows the old result until the new one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: string; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  const loadedTick = useRef(tick);
  useEffect(() => {
    let live = true;
    if (loadedTick.current === tick) setState({});
    loadedTick.current = tick;
    load().then(
      (data) => live && setState({ data }),
      (error: Error) => live && setState({ error: error.message }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Loading<T>({ state, children }: { state: { data?: T; error?: string }; children: (data: T) => ComponentChildren }) {
  if (state.error) return <p class="error" role="alert">{state.error}</p>;
  if (state.data === undefined) return <p class="muted">Loading…</p>;
  return <>{children(state.data)}</>;
}

/** A list the API pages with cursors: `fetchPage(cursor)` asks for the page after or before it. */
export function usePaged<T>(fetchPage: (cursor: { after?: string; before?: string }) => Promise<ApiList<T>>, deps: unknown[]) {
  const [cursor, setCursor] = useState<{ after?: string; before?: string }>({});
  useEffect(() => setCursor({}), deps);
  const state = useLoad(() => fetchPage(cursor), [...deps, cursor.after, cursor.before]);
  const cursors = state.data?.meta.cursors ?? {};
  const pager = (
    <nav class="pager">
      <button disabled={!cursors.prev} onClick={() => setCursor({ before: cursors.prev })}>
        ← Previous
      </button>
      <button disabled={!cursors.next} onClick={() => setCursor({ after: cursors.next })}>
        Next →
      </button>
    </nav>
  );
  return { state, pager };
}

export interface Column<T> {
  title: string;
  cell: (row: T) => ComponentChildren;
}

export function Table<T>({ rows, columns, empty = 'Nothing here yet.' }: { rows: T[]; columns: Column<T>[]; empty?: string }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <table>
      <thead>
        <tr>
          {columns.map((c) => (
            <th>{c.title}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr>
            {columns.map((c) => (
              <td>{c.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export const Code = ({ value }: { value: unknown }) => <pre class="json">{JSON.stringify(value, null, 2)}</pre>;

/** A page listing one API collection endpoint (`/v0/notes`…) in pages of `limit`, as a table. */
export function ListPage<T>({ title, path, columns, limit = 50 }: { title: string; path: string; columns: Column<T>[]; limit?: number }) {
  const { state, pager } = usePaged((c) => api<ApiList<T>>('GET', `${path}${query({ limit, ...c })}`), [path]);
  return (
    <section>
      <h2>{title}</h2>
      <Loading state={state}>{(list) => <Table rows={list.data} columns={columns} />}</Loading>
      {pager}
    </section>
  );
}
