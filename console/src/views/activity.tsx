// The activity feed, newest first.
import { ListPage } from '../components.tsx';
import { timeText } from '../format.ts';

export interface Activity {
  id: string;
  type: string;
  occurred_at: string;
  constituents: { relation: string; entity: { id?: string; type?: string } }[];
}

export function ActivityPage() {
  return (
    <ListPage<Activity>
      title="Activity"
      path="/v0/activities"
      columns={[
        { title: 'When', cell: (a) => timeText(a.occurred_at) },
        { title: 'What', cell: (a) => <code>{a.type}</code> },
        { title: 'Involving', cell: (a) => a.constituents.map((c) => `${c.relation}: ${c.entity.type ?? ''} ${c.entity.id ?? ''}`).join('; ') },
      ]}
    />
  );
}
