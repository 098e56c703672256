// The entry of the webhook delivery thread (webhook-thread.ts). A worker thread does not inherit the loader that
// bin/tycho.mjs registered, so it registers tsx's own before it loads the TypeScript sources.
import { register } from 'tsx/esm/api';

register();
const { runDeliveryThread } = await import('./webhook-thread.ts');
await runDeliveryThread();
