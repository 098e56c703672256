// Collections, their fields, and their items: listed page by page or searched with the filter language.
import { useState } from 'preact/hooks';
import { api, query, type ApiList } from '../api.ts';
import { ListPage, Loading, Table, useLoad, usePaged } from '../components.tsx';
import { valueText } from '../format.ts';
import { href } from '../router.ts';

interface Collection {
  id: string;
  ref: string;
  name: string;
  description?: string;
  fields?: Field[];
}
interface Field {
  id: string;
  ref: string;
  name: string;
  type: string;
  cardinality: string;
  required: boolean;
  unique: boolean;
}
export interface Item {
  id: string;
  collection: { id: string; ref: string };
  values: Record<string, unknown>;
}

export function CollectionsPage() {
  return (
    <ListPage<Collection>
      title="Collections"
      path="/v0/collections"
      columns={[
        { title: 'Name', cell: (c) => <a href={href('collections', c.ref)}>{c.name}</a> },
        { title: 'Ref', cell: (c) => <code>{c.ref}</code> },
        { title: 'Id', cell: (c) => <code>{c.id}</code> },
      ]}
    />
  );
}

const FILTER_HINT = '{"field": "name", "op": "contains", "value": "acme"}';

export function CollectionPage({ id }: { id: string }) {
  const collection = useLoad(() => api<Collection>('GET', `/v0/collections/${encodeURIComponent(id)}`), [id]);
  const [filterText, setFilterText] = useState('');
  const [filter, setFilter] = useState<unknown>(undefined);
  const [filterError, setFilterError] = useState<string>();
  const { state, pager } = usePaged(
    (c) =>
      api<ApiList<{ data: Item }>>('POST', `/v0/collections/${encodeURIComponent(id)}/items/search${query({ limit: 25, ...c })}`, filter === undefined ? {} : { filter }),
    [id, JSON.stringify(filter)],
  );
  const search = (event: Event) => {
    event.preventDefault();
    if (filterText.trim() === '') return setFilter(undefined);
    try {
      setFilter(JSON.parse(filterText));
      setFilterError(undefined);
    } catch {
      setFilterError(`The filter is not JSON; write it like ${FILTER_HINT}`);
    }
  };
  return (
    <Loading state={collection}>
      {(c) => {
        const shown = (c.fields ?? []).slice(0, 5);
        return (
          <section>
            <h2>{c.name}</h2>
            {c.description && <p>{c.description}</p>}
            <details>
              <summary>Fields ({c.fields?.length ?? 0})</summary>
              <Table
                rows={c.fields ?? []}
                columns={[
                  { title: 'Name', cell: (f) => f.name },
                  { title: 'Ref', cell: (f) => <code>{f.ref}</code> },
                  { title: 'Type', cell: (f) => <code>{f.type}</code> },
                  { title: 'Cardinality', cell: (f) => f.cardinality },
                  { title: 'Flags', cell: (f) => [f.required && 'required', f.unique && 'unique'].filter(Boolean).join(', ') },
                ]}
              />
            </details>
            <h3>Items</h3>
            <form class="search" onSubmit={search}>
              <textarea name="filter" rows={3} placeholder={FILTER_HINT} value={filterText} onInput={(e) => setFilterText(e.currentTarget.value)} />
              <button type="submit">Search</button>
              {filterError && <p class="error">{filterError}</p>}
            </form>
            <div class="items">
            <Loading state={state}>
              {(list) => (
                <Table
                  rows={list.data.map((r) => r.data)}
                  empty="No items match."
                  columns={[
                    { title: 'Item', cell: (item) => <a href={href('collections', c.ref, 'items', item.id)}>{item.id}</a> },
                    ...shown.map((f) => ({ title: f.name, cell: (item: Item) => valueText(item.values[f.ref]) })),
                  ]}
                />
              )}
            </Loading>
            </div>
            {pager}
          </section>
        );
      }}
    </Loading>
  );
}
