// buildApp: the Fastify application, assembled from its dependencies. It never listens and never reads the
// environment; main.ts and the tests decide those.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import { contextualClock, type Clock } from './domain/clock.ts';
import { createCursorCodec } from './domain/cursor.ts';
import type { Store } from './domain/ports/store.ts';
import type { LogLevel } from './config.ts';
import { registerErrorHandling, sendError, toAppError } from './http/plugins/error-handler.ts';
import { AppError } from './domain/errors.ts';
import { answerClientError, answerUnservedRequests } from './http/plugins/client-errors.ts';
import { registerRequestContext, requestIdOf, sendContinue } from './http/plugins/request-context.ts';
import { registerAuth } from './http/plugins/auth.ts';
import { registerTextGuard } from './http/plugins/text-guard.ts';
import { registerObservability } from './http/plugins/observability.ts';
import { registerCors } from './http/plugins/cors.ts';
import type { JwtVerifier } from './domain/jwt.ts';
import { registerRateLimit, type RateLimits } from './http/plugins/rate-limit.ts';
import { schemaCompilers, serializerFactory } from './http/schema-compilers.ts';
import { openapiOptions, registerSharedSchemas } from './http/openapi.ts';
import { createListing } from './http/pagination.ts';
import type { RouteDeps } from './http/route-deps.ts';
import { healthRoutes } from './http/routes/health.ts';
import { registerDocs } from './http/routes/docs.ts';
import { registerConsole } from './http/routes/console.ts';
import { collectionRoutes } from './http/routes/collections.ts';
import { fieldRoutes } from './http/routes/fields.ts';
import { funnelRoutes } from './http/routes/funnels.ts';
import { itemRoutes } from './http/routes/items.ts';
import { activityRoutes } from './http/routes/activities.ts';
import { tagsetRoutes } from './http/routes/tagsets.ts';
import { noteRoutes } from './http/routes/notes.ts';
import { inboxRoutes } from './http/routes/inboxes.ts';
import { fileRoutes } from './http/routes/files.ts';
import { conversationRoutes } from './http/routes/inbox-conversations.ts';
import { messageRoutes } from './http/routes/inbox-messages.ts';
import { meetingRoutes } from './http/routes/meetings.ts';
import { callRoutes } from './http/routes/calls.ts';
import { downloadRoutes } from './http/routes/downloads.ts';
import { viewRoutes } from './http/routes/views.ts';
import { globalSearchRoutes } from './http/routes/global-search.ts';
import { programRoutes } from './http/routes/programs.ts';
import { programTemplateRoutes } from './http/routes/program-templates.ts';
import { programMessageRoutes } from './http/routes/program-messages.ts';
import { unsubscribeRoutes } from './http/routes/unsubscribes.ts';
import { agentSettingsRoutes } from './http/routes/agent-settings.ts';
import { formRoutes } from './http/routes/forms.ts';
import { formSubmissionRoutes } from './http/routes/form-submissions.ts';
import { webhookEndpointRoutes } from './http/routes/webhook-endpoints.ts';
import { webhookEventRoutes } from './http/routes/webhook-events.ts';
import { PUBLIC_ONLY, type WebhookUrlPolicy } from './domain/webhook-urls.ts';
import multipart from '@fastify/multipart';
import { MULTIPART_LIMITS, multipartBodyLimit } from './http/uploads.ts';
import { createDownloadSigner } from './domain/downloads.ts';
import type { BlobStore } from './domain/ports/blob-store.ts';
import { registerOrgClock, registerTimeContext } from './http/plugins/time-context.ts';
import { registerIdempotency } from './http/plugins/idempotency.ts';
import { registerJournal } from './http/plugins/journal.ts';
import { journalBuffer } from './http/journal-buffer.ts';
import { DEFAULT_JOURNAL_SIZE } from './domain/journal.ts';
import { sandboxRoutes } from './http/routes/tycho-sandboxes.ts';
import { snapshotRoutes } from './http/routes/tycho-snapshots.ts';
import { clockRoutes } from './http/routes/tycho-clock.ts';
import { dueWork, type DueWork } from './domain/due-work.ts';
import { journalRoutes } from './http/routes/tycho-journal.ts';
import { parseQuery } from './http/query-string.ts';

export interface AppOptions {
  store: Store;
  /** Key of the cursor MAC; shared by every process on the same database. */
  cursorSecret: string;
  bodyLimit?: number;
  /** Milliseconds a request may take to arrive whole before it is answered 408 (default 300,000). */
  requestTimeout?: number;
  logLevel?: LogLevel;
  clock?: Clock;
  /** Per-organization budgets; no limiting without them. */
  rateLimits?: RateLimits;
  /** Accepts bearer JWTs besides API keys. */
  jwt?: JwtVerifier;
  /** Where JSON log lines go (standard output by default). */
  logStream?: { write(line: string): void };
  /** Where uploaded file contents are kept. */
  blobs: BlobStore;
  /** Key of download URL signatures; shared by every process. */
  downloadSecret: string;
  /** Largest accepted upload in bytes. */
  uploadLimit?: number;
  /** Requests kept in each organization's journal (default 1,000); 0 switches the journal off. */
  journalSize?: number;
  /** Origins allowed to call the API from browsers (`*` for any); CORS is off without them. */
  corsOrigins?: readonly string[];
  /** Which webhook endpoint URLs are accepted (public HTTPS and loopback by default). */
  webhookUrls?: WebhookUrlPolicy;
  /**
   * The work advancing an organization's clock runs before it answers (domain/due-work.ts); by default
   * meetings held and program messages to the local outbox, no webhooks (runtime.ts `appOptions` adds them).
   */
  dueWork?: DueWork;
}

export const DEFAULT_UPLOAD_LIMIT = 25 * 1024 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const requestTimeout = options.requestTimeout ?? 300_000;
  const app = Fastify({
    logger: { level: options.logLevel ?? 'info', ...(options.logStream ? { stream: options.logStream } : {}) },
    // observability.ts writes one richer line per request instead.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdOf,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // A body that never finishes arriving would hold its connection forever (Fastify's default is no limit).
    requestTimeout,
    // Given to node:http when the server is made: set afterwards (as Fastify does) it misses requests whose
    // headers have arrived. Node looks for overdue requests every connectionsCheckingInterval (30 s by
    // default): a short timeout is kept to within a quarter; headers may not have longer than the whole request.
    // A missing Host is answered by request-context.ts in the errors envelope rather than by Node's bare 400.
    http: { requestTimeout, headersTimeout: Math.min(60_000, requestTimeout), connectionsCheckingInterval: Math.min(30_000, Math.max(100, requestTimeout / 4)), requireHostHeader: false },
    routerOptions: {
      querystringParser: parseQuery,
      // Longer than any request line the header limit lets through: an over-long id is just an unknown id (404).
      maxParamLength: 64 * 1024,
    },
    frameworkErrors: (error, request, reply) => {
      sendError(reply, toAppError(error, request));
    },
    clientErrorHandler: answerClientError,
    schemaController: { compilersFactory: { buildSerializer: serializerFactory } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Node reads at most 2,000 header lines and drops the rest silently (an Authorization or Idempotency-Key past
  // them was lost); the 16 KiB header limit already bounds them, and a larger block is a 431.
  app.server.maxHeadersCount = 0;

  answerUnservedRequests(app.server);
  app.setValidatorCompiler(schemaCompilers());
  registerErrorHandling(app);
  registerRequestContext(app);
  registerTimeContext(app);
  registerTextGuard(app);
  registerObservability(app, options.store);
  await registerCors(app, options.corsOrigins ?? []);
  // The OpenAPI document is generated from the same schemas that validate and serialise.
  registerSharedSchemas(app);
  await app.register(swagger, openapiOptions);
  await app.register(healthRoutes, { store: options.store, blobs: options.blobs });
  await registerDocs(app);
  await registerConsole(app);

  // Organizations' controlled clocks are offsets of the base clock; everyone else reads the caller's clock.
  const baseClock: Clock = options.clock ?? (() => new Date());
  const deps: RouteDeps = {
    store: options.store,
    listing: createListing(createCursorCodec(options.cursorSecret)),
    clock: contextualClock(baseClock),
    blobs: options.blobs,
    downloads: createDownloadSigner(options.downloadSecret),
    webhookUrls: options.webhookUrls ?? PUBLIC_ONLY,
  };
  await app.register(downloadRoutes, deps);
  await app.register(formSubmissionRoutes, deps);
  const journalSize = options.journalSize ?? DEFAULT_JOURNAL_SIZE;
  const journal = journalSize > 0 ? journalBuffer(options.store, journalSize, (error) => app.log.error({ err: error }, 'writing the request journal failed')) : undefined;
  if (journal) app.addHook('onClose', () => journal.flush());
  await app.register(
    async (v0) => {
      registerAuth(v0, options.store, options.jwt);
      registerOrgClock(v0, options.store, baseClock);
      const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
      await v0.register(multipart, { limits: { fileSize: uploadLimit, ...MULTIPART_LIMITS } });
      // Operations that read JSON declare a body schema; a multipart body sent to one is refused as any other
      // non-JSON body is (uploads read their parts themselves and declare none). One announced larger than
      // any upload can be is refused unread, and the connection closed rather than drained.
      v0.addHook('preValidation', async (request, reply) => {
        if (!request.isMultipart()) return;
        if (request.routeOptions.schema?.body !== undefined) {
          throw new AppError('unsupported_media_type', `unsupported Content-Type "${request.headers['content-type'] ?? ''}" for this operation; send application/json`);
        }
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > multipartBodyLimit(uploadLimit)) {
          reply.header('connection', 'close');
          throw new AppError('payload_too_large', `the multipart body is ${length} bytes; an upload holds at most ${multipartBodyLimit(uploadLimit)} (a file of up to ${uploadLimit} bytes and its form fields): send a smaller file`);
        }
        sendContinue(request, reply);
      });
      if (options.rateLimits) registerRateLimit(v0, options.rateLimits);
      registerIdempotency(v0, options.store, deps.clock);
      registerJournal(v0, journal);
      await v0.register(collectionRoutes, deps);
      await v0.register(fieldRoutes, deps);
      await v0.register(funnelRoutes, deps);
      await v0.register(itemRoutes, deps);
      await v0.register(activityRoutes, deps);
      await v0.register(tagsetRoutes, deps);
      await v0.register(noteRoutes, deps);
      await v0.register(inboxRoutes, deps);
      await v0.register(fileRoutes, deps);
      await v0.register(conversationRoutes, deps);
      await v0.register(messageRoutes, deps);
      await v0.register(meetingRoutes, deps);
      await v0.register(callRoutes, deps);
      await v0.register(viewRoutes, deps);
      await v0.register(globalSearchRoutes, deps);
      await v0.register(programRoutes, deps);
      await v0.register(programTemplateRoutes, deps);
      await v0.register(programMessageRoutes, deps);
      await v0.register(unsubscribeRoutes, deps);
      await v0.register(agentSettingsRoutes, deps);
      await v0.register(formRoutes, deps);
      await v0.register(sandboxRoutes, deps);
      await v0.register(snapshotRoutes, deps);
      await v0.register(clockRoutes, { ...deps, baseClock, dueWork: options.dueWork ?? dueWork({}) });
      await v0.register(journalRoutes, { ...deps, journal });
      await v0.register(webhookEndpointRoutes, deps);
      await v0.register(webhookEventRoutes, deps);
    },
    { prefix: '/v0' },
  );
  return app;
}
