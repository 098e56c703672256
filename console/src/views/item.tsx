// One item: its values, the activities it appears in, and a note added through POST /v0/notes.
import { useState } from 'preact/hooks';
import { api, query, type ApiList } from '../api.ts';
import { Code, Loading, Table, useLoad } from '../components.tsx';
import { timeText, valueText } from '../format.ts';
import type { Item } from './collections.tsx';
import type { Activity } from './activity.tsx';

export function ItemPage({ collection, id }: { collection: string; id: string }) {
  const item = useLoad(() => api<Item>('GET', `/v0/collections/${encodeURIComponent(collection)}/items/${encodeURIComponent(id)}`), [collection, id]);
  const activity = useLoad(() => api<ApiList<Activity>>('GET', `/v0/activities${query({ 'constituent_entity_id[eq]': id, limit: 20 })}`), [id]);
  const [note, setNote] = useState('');
  const [noted, setNoted] = useState<string>();
  const addNote = async (event: Event) => {
    event.preventDefault();
    try {
      await api('POST', '/v0/notes', { body: { markdown: note }, associations: [{ type: 'item', id }] });
      setNote('');
      setNoted('Note added.');
      activity.reload();
    } catch (e) {
      setNoted((e as Error).message);
    }
  };
  return (
    <Loading state={item}>
      {(it) => (
        <section>
          <h2>
            Item <code>{it.id}</code> in {it.collection.ref}
          </h2>
          <Table
            rows={Object.entries(it.values)}
            columns={[
              { title: 'Field', cell: ([ref]) => <code>{ref}</code> },
              { title: 'Value', cell: ([, value]) => <span class="value">{valueText(value)}</span> },
            ]}
          />
          <details>
            <summary>As the API answers it</summary>
            <Code value={it} />
          </details>
          <h3>Activity</h3>
          <Loading state={activity}>
            {(list) => (
              <Table
                rows={list.data}
                empty="No activity yet."
                columns={[
                  { title: 'When', cell: (a) => timeText(a.occurred_at) },
                  { title: 'What', cell: (a) => <code>{a.type}</code> },
                ]}
              />
            )}
          </Loading>
          <form class="note" onSubmit={addNote}>
            <h3>Add a note</h3>
            <textarea name="note" rows={3} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
            <button type="submit" disabled={note.trim() === ''}>
              Add note
            </button>
            {noted && <p role="status">{noted}</p>}
          </form>
        </section>
      )}
    </Loading>
  );
}
