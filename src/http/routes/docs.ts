// Tycho extension, unauthenticated: GET / (where to go), GET /docs (an interactive reference of /openapi.json,
// Swagger UI served from the package: its content-security policy lets the page load nothing from elsewhere,
// and "Try it out" calls this server) and GET /openapi.json.
import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';

/** Only this server: the page's assets are the package's, and "Try it out" calls the API here. */
const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; font-src 'self' data:; object-src 'none'; frame-ancestors 'self'";

const LINKS = { docs: '/docs', console: '/console', openapi: '/openapi.json' };

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tycho</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>Tycho</h1>
<p>A self-hostable server for the Moonbase v0 customer-data API, answering under <code>/v0</code>.</p>
<ul>
<li><a href="${LINKS.docs}">API reference</a>: every operation, with examples and “Try it out”</li>
<li><a href="${LINKS.console}">Operator console</a>: browse collections, items, notes, files and activity with an API key</li>
<li><a href="${LINKS.openapi}">OpenAPI document</a> (JSON)</li>
</ul>
</body></html>
`;

export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, {
    routePrefix: LINKS.docs,
    staticCSP: DOCS_CSP,
    theme: { title: 'Tycho API reference' },
    uiConfig: {
      url: LINKS.openapi,
      deepLinking: true,
      docExpansion: 'list',
      tryItOutEnabled: true,
      persistAuthorization: true,
      displayRequestDuration: true,
      // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
      validatorUrl: null,
    },
  });
  // Browsers get a page of links; API clients the same links as JSON.
  app.get('/', { schema: { hide: true } }, async (request, reply) =>
    request.headers.accept?.includes('text/html') ? reply.type('text/html; charset=utf-8').send(INDEX_HTML) : { name: 'tycho', links: LINKS },
  );
}
