// The entry of the webhook delivery thread when the TypeScript sources run: a worker thread does not inherit
// the loader that bin/tycho.mjs registered, so it registers tsx's own before it loads them. The built server
// starts webhook-thread-main.js instead.
import { register } from 'tsx/esm/api';

register();
await import('./webhook-thread-main.ts');
