// The entry of the webhook delivery thread: what `new Worker` runs, built into dist/ beside the server's own
// entry; from the TypeScript sources, webhook-thread.mjs registers the loader and imports this.
import { runDeliveryThread } from './webhook-thread.ts';

await runDeliveryThread();
