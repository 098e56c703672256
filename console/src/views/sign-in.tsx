// Sign-in: an API key, checked by reading the collections with it. Kept for this browser tab only.
import { useState } from 'preact/hooks';
import { api, session } from '../api.ts';

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await api('GET', '/v0/collections?limit=1', undefined, key.trim());
      session.signIn(key.trim());
      onSignedIn();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form class="sign-in" onSubmit={submit}>
      <h1>Tycho console</h1>
      <label>
        API key
        <input name="key" type="password" autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="tycho_…" />
      </label>
      <button type="submit">Sign in</button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="muted">
        Create a key with <code>tycho keys create</code>. Everything here goes through the public API with this key.
      </p>
    </form>
  );
}
