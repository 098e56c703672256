// Free and disposable email providers, from two maintained npm lists: `email-providers` (free webmail
// providers) and `disposable-email-domains` (throw-away addresses). Forms that require a business email
// refuse addresses at these domains (and their subdomains).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const PROVIDERS = new Set<string>([...(require('email-providers/all.json') as string[]), ...(require('disposable-email-domains') as string[])]);

/** Whether the address's domain, or a domain it is under, is a free or disposable provider. */
export function isFreeOrDisposable(email: string): boolean {
  const labels = email.slice(email.lastIndexOf('@') + 1).toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) if (PROVIDERS.has(labels.slice(i).join('.'))) return true;
  return false;
}
