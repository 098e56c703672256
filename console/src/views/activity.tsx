// The activity feed, newest first.
import { api, query, type ApiList } from '../api.ts';
import { Loading, Table, usePaged } from '../components.tsx';
import { timeText } from '../format.ts';

export interface Activity {
  id: string;
  type: string;
  occurred_at: string;
  constituents: { relation: string; entity: { id?: string; type?: string } }[];
}

export function ActivityPage() {
  const { state, pager } = usePaged((c) => api<ApiList<Activity>>('GET', `/v0/activities${query({ limit: 50, ...c })}`), []);
  return (
    <section>
      <h2>Activity</h2>
      <Loading state={state}>
        {(list) => (
          <Table
            rows={list.data}
            columns={[
              { title: 'When', cell: (a) => timeText(a.occurred_at) },
              { title: 'What', cell: (a) => <code>{a.type}</code> },
              { title: 'Involving', cell: (a) => a.constituents.map((c) => `${c.relation}: ${c.entity.type ?? ''} ${c.entity.id ?? ''}`).join('; ') },
            ]}
          />
        )}
      </Loading>
      {pager}
    </section>
  );
}
