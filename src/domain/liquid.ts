// Liquid templates (program template subjects and bodies, form redirect URLs), with liquidjs. A template is
// parsed when it is saved, so a broken one is refused with the parser's message; rendering is bounded in
// time and memory, so no template or variable holds a request or the sender for long.
import { Liquid, type Template } from 'liquidjs';
import { invalidAt } from './errors.ts';
import { storableText } from './characters.ts';

/** Templates are self-contained: `include`, `render` and `layout` find no files, so none can be read. */
const NO_FILES = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async (file: string): Promise<string> => {
    throw new Error(`templates cannot include files ("${file}")`);
  },
  readFileSync: (file: string): string => {
    throw new Error(`templates cannot include files ("${file}")`);
  },
  resolve: (_root: string, file: string) => file,
  contains: async () => false,
  sep: '/',
};

const engine = new Liquid({
  fs: NO_FILES,
  relativeReference: false,
  // An unknown filter is a mistake in the template, found when it is saved rather than ignored when sent.
  strictFilters: true,
  ownPropertyOnly: true,
  parseLimit: 100_000,
  renderLimit: 1_000,
  memoryLimit: 10_000_000,
  cache: 100,
});

// Jekyll's name for it; percent-encodes everything but unreserved characters, so the value is safe in a query.
engine.registerFilter('uri_encode', (value: unknown) => encodeURIComponent(value === undefined || value === null ? '' : String(value)));

/** The parsed template; a 422 at `pointer` naming the Liquid error when it does not parse. */
export function parseTemplate(text: string, pointer: string, what: string): Template[] {
  try {
    return engine.parse(text);
  } catch (error) {
    throw invalidAt(pointer, `${what} is not a valid Liquid template: ${(error as Error).message}; fix it or escape literal braces with {% raw %}…{% endraw %}`);
  }
}

/** Thrown when a template that parsed fails while rendering (a limit, a filter's error). */
export class RenderError extends Error {}

export async function renderTemplate(text: string, variables: Record<string, unknown>): Promise<string> {
  try {
    // Filters such as url_decode can make U+0000 out of text that held none.
    return storableText(await engine.render(engine.parse(text), variables));
  } catch (error) {
    throw new RenderError((error as Error).message);
  }
}
