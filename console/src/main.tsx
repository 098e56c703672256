// The operator console: sign in with an API key, then browse what the key's organization holds. Read-mostly;
// the few writes (a note, a webhook re-send) go through the public API like any client's.
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { session } from './api.ts';
import { href, useRoute } from './router.ts';
import { SignIn } from './views/sign-in.tsx';
import { CollectionPage, CollectionsPage } from './views/collections.tsx';
import { ItemPage } from './views/item.tsx';
import { NotesPage } from './views/notes.tsx';
import { FilesPage } from './views/files.tsx';
import { ActivityPage } from './views/activity.tsx';
import { OptionalSectionPage, useAvailableSections, type OptionalSection } from './views/optional.tsx';
import './style.css';

function Page({ route, sections }: { route: string[]; sections: OptionalSection[] }) {
  const [top, a, b, c] = route;
  switch (top) {
    case 'collections':
      if (a && b === 'items' && c) return <ItemPage collection={a} id={c} />;
      return a ? <CollectionPage id={a} /> : <CollectionsPage />;
    case 'notes':
      return <NotesPage />;
    case 'files':
      return <FilesPage />;
    case 'activity':
      return <ActivityPage />;
    case 'x': {
      const section = sections.find((s) => s.id === a);
      return section ? <OptionalSectionPage section={section} /> : <p class="muted">This server does not offer that.</p>;
    }
    default:
      return <CollectionsPage />;
  }
}

function Console({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const sections = useAvailableSections();
  const links: [string, string][] = [
    [href('collections'), 'Collections'],
    [href('notes'), 'Notes'],
    [href('files'), 'Files'],
    [href('activity'), 'Activity'],
    ...sections.map((s): [string, string] => [href('x', s.id), s.title]),
  ];
  return (
    <>
      <header>
        <strong>Tycho</strong>
        <nav>
          {links.map(([to, label]) => (
            <a href={to} class={location.hash.startsWith(to) ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <a href="/docs" target="_blank" rel="noreferrer">
          API reference
        </a>
        <button
          onClick={() => {
            session.signOut();
            onSignOut();
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <Page route={route} sections={sections} />
      </main>
    </>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(session.key() !== null);
  return signedIn ? <Console onSignOut={() => setSignedIn(false)} /> : <SignIn onSignedIn={() => setSignedIn(true)} />;
}

render(<App />, document.getElementById('app')!);
