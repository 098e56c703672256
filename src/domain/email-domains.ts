// Free and disposable email providers, from two maintained npm lists: `email-providers` (free webmail
// providers) and `disposable-email-domains` (throw-away addresses). Forms that require a business email
// refuse addresses at these domains (and their subdomains).
//
// The lists hold about 127,000 domains. They are read when first needed, not at start (most servers never
// have a form that asks for a business address), and kept as one sorted ASCII string searched by halves:
// about 2.5 MB, where a Set of the same domains took 7.7 MB of heap. Domains are compared in their ASCII
// (punycode) form, so an internationalised domain matches however the address writes it.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { domainToASCII } from 'node:url';

const require = createRequire(import.meta.url);

interface DomainList {
  /** Every domain followed by a newline, in ascending order. */
  text: string;
  /** Where each domain starts in `text`, and one past the last. */
  starts: Uint32Array;
}

let loaded: DomainList | undefined;

function domainList(): DomainList {
  if (loaded) return loaded;
  // Read as files rather than `require`d, which would keep the parsed arrays in the module cache.
  const read = (id: string) => JSON.parse(readFileSync(require.resolve(id), 'utf8')) as string[];
  const ascii = [...read('email-providers/all.json'), ...read('disposable-email-domains')].map((d) => domainToASCII(d)).filter((d) => d !== '');
  const sorted = [...new Set(ascii)].sort();
  const starts = new Uint32Array(sorted.length + 1);
  let at = 0;
  sorted.forEach((domain, i) => {
    starts[i] = at;
    at += domain.length + 1;
  });
  starts[sorted.length] = at;
  return (loaded = { text: `${sorted.join('\n')}\n`, starts });
}

function listed(domain: string): boolean {
  const { text, starts } = domainList();
  let low = 0;
  let high = starts.length - 2;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const entry = text.slice(starts[middle], starts[middle + 1]! - 1);
    if (entry === domain) return true;
    if (entry < domain) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** Whether the address's domain, or a domain it is under, is a free or disposable provider. */
export function isFreeOrDisposable(email: string): boolean {
  const domain = domainToASCII(email.slice(email.lastIndexOf('@') + 1));
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (listed(labels.slice(i).join('.'))) return true;
  return false;
}
