// Tycho extension, public (no bearer token, like /tycho/downloads): a form's page (`GET /tycho/forms/{id}`,
// when pages are enabled) and its submissions (`POST /tycho/forms/{id}/submissions`, JSON or
// application/x-www-form-urlencoded). UTM parameters come from the query string (the page's own) or the
// body. A JSON submission answers 201 with the item and the rendered redirect; a browser's form post is sent
// on to the redirect (303) when the form has one. Submissions are rate-limited per form and client address.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { isUtf8 } from 'node:buffer';
import qs from 'qs';
import { MAX_QUERY_PARAMETERS, namesPrototype, parameterBeyond } from '../query-string.ts';
import { AppError } from '../../domain/errors.ts';
import { findPublicForm, formFields, submitForm, UTM_PARAMETERS } from '../../domain/forms.ts';
import type { Field } from '../../domain/fields.ts';
import { errorResponses } from '../schemas/common.ts';
import { renderSubmission, SubmissionWire } from '../schemas/forms.ts';
import { memoryCounter } from '../rate-counters.ts';
import type { RouteDeps } from '../route-deps.ts';

/** Submissions one client address may make to one form per window. */
export const SUBMISSIONS_PER_WINDOW = 10;
const WINDOW_MS = 60_000;
const URLENCODED = 'application/x-www-form-urlencoded';
const EXTENSION = ['Tycho extensions'];
const Params = Type.Object({ id: Type.String() });
const UtmQuery = Type.Object(Object.fromEntries(UTM_PARAMETERS.map((name) => [name, Type.Optional(Type.String())])));

const FormPage = Type.String({
  examples: ['<!doctype html><html><head><meta charset="utf-8"><title>Contact us</title></head><body><h1>Contact us</h1><form method="post" action="/tycho/forms/1CLJt2v5kBf7NxTr3Wdgmy/submissions">…</form></body></html>'],
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function input(field: Field): string {
  const name = escapeHtml(field.ref);
  const required = field.required ? ' required' : '';
  if (field.type === 'field/text/multi_line') return `<textarea id="${name}" name="${name}"${required}></textarea>`;
  if (field.type === 'field/boolean') return `<input id="${name}" name="${name}" type="checkbox" value="true">`;
  const type = field.type === 'field/email' ? 'email' : field.type.startsWith('field/number/') ? 'number' : 'text';
  return `<input id="${name}" name="${name}" type="${type}"${type === 'number' ? ' step="any"' : ''}${required}>`;
}

/** A percent-encoded name or value, whose bytes must be UTF-8 (qs would keep `%FF` as it is, or decode it to U+FFFD). */
function strictDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new AppError('invalid_body', `the form field text ${JSON.stringify(text.slice(0, 100))} is not UTF-8 percent-encoded (a "%" must start %XX, and the bytes must be UTF-8)`);
  }
}

export const formSubmissionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, clock }) => {
  const counter = memoryCounter();
  app.addHook('onClose', () => counter.close());
  app.addContentTypeParser(URLENCODED, { parseAs: 'buffer' }, (_request, body, done) => {
    // Text that is not UTF-8, sent as bytes or percent-encoded, is refused as in JSON bodies: decoded, it would
    // be stored as U+FFFD in place of what was sent.
    if (!isUtf8(body as Buffer)) return done(new AppError('invalid_body', 'the form submission is not valid UTF-8; send its fields as UTF-8, percent-encoded') as never, undefined);
    // Every field sent reaches the submission's checks, which name what they refuse: none is dropped on the way
    // (past a limit, or named like a property of every object), as qs would by default.
    const text = (body as Buffer).toString('utf8');
    const beyond = parameterBeyond(text, MAX_QUERY_PARAMETERS);
    if (beyond !== undefined) return done(new AppError('invalid_body', `a form submission holds at most ${MAX_QUERY_PARAMETERS} fields; "${beyond}" is one too many`) as never, undefined);
    if (namesPrototype(text)) return done(new AppError('invalid_body', 'a form field named "__proto__" is not accepted; rename it') as never, undefined);
    try {
      done(null, qs.parse(text, { depth: 1, arrayLimit: 100, parameterLimit: MAX_QUERY_PARAMETERS, plainObjects: true, allowPrototypes: true, decoder: strictDecode }));
    } catch (error) {
      done(error as never, undefined);
    }
  });

  app.get(
    '/tycho/forms/:id',
    {
      schema: {
        summary: 'Public page of a form (Tycho extension)',
        description: 'An HTML page that submits to the form, when its pages are enabled.',
        tags: EXTENSION,
        security: [],
        params: Params,
        response: { 200: { description: 'The page', content: { 'text/html': { schema: FormPage } } }, ...errorResponses(404) },
      },
    },
    async (req, reply) => {
      const form = await findPublicForm(store, req.params.id);
      if (!form.pagesEnabled) throw new AppError('not_found');
      const rows = (await formFields(store, form)).map((f) => `<p><label for="${escapeHtml(f.ref)}">${escapeHtml(f.name)}</label><br>${input(f)}</p>`);
      const action = `/tycho/forms/${encodeURIComponent(form.id)}/submissions`;
      const page = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(form.name)}</title></head><body><h1>${escapeHtml(form.name)}</h1><form method="post" action="${action}">${rows.join('')}<p><button type="submit">Submit</button></p></form><script>document.forms[0].action += location.search</script></body></html>`;
      return reply.type('text/html; charset=utf-8').send(page);
    },
  );

  app.post(
    '/tycho/forms/:id/submissions',
    {
      schema: {
        summary: 'Submit a form (Tycho extension, public)',
        description:
          'Creates an item in the form\'s collection from field refs and plain values (JSON or URL-encoded), records activity/form_submitted, and answers the rendered redirect_url with the UTM parameters appended.',
        tags: EXTENSION,
        security: [],
        params: Params,
        querystring: UtmQuery,
        body: Type.Record(Type.String(), Type.Unknown(), { examples: [{ name: 'Ada Lovelace', email: 'ada@acme.com', utm_source: 'newsletter' }] }),
        response: { 201: SubmissionWire, ...errorResponses(400, 404, 415, 422, 429) },
      },
    },
    async (req, reply) => {
      const form = await findPublicForm(store, req.params.id);
      const now = clock().getTime();
      const window = now - (now % WINDOW_MS);
      if ((await counter.hit(`${form.id}:${req.ip}:${window}`, WINDOW_MS * 2)) > SUBMISSIONS_PER_WINDOW) throw new AppError('rate_limited');
      const utm = Object.fromEntries(Object.entries(req.query).filter((e): e is [string, string] => typeof e[1] === 'string'));
      const submission = await submitForm(store, form, req.body, utm, clock);
      const fromBrowser = req.headers['content-type']?.startsWith(URLENCODED) ?? false;
      if (fromBrowser && submission.redirectUrl !== null) return reply.redirect(submission.redirectUrl, 303);
      return reply.code(201).send(renderSubmission(submission));
    },
  );
};
