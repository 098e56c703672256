// Notes, page by page, with what they are attached to.
import { ListPage } from '../components.tsx';
import { timeText } from '../format.ts';
import { href } from '../router.ts';

interface Note {
  id: string;
  body: { markdown: string };
  associations: { id: string; type: string; collection?: { ref: string } }[];
  created_at: string;
}

export function NotesPage() {
  return (
    <ListPage<Note>
      title="Notes"
      path="/v0/notes"
      columns={[
        { title: 'Created', cell: (n) => timeText(n.created_at) },
        { title: 'Note', cell: (n) => <span class="note-body">{n.body.markdown}</span> },
        {
          title: 'About',
          cell: (n) => n.associations.map((a) => (a.collection ? <a href={href('collections', a.collection.ref, 'items', a.id)}>{a.id} </a> : `${a.type} ${a.id} `)),
        },
      ]}
    />
  );
}
