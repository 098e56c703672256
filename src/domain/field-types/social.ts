// Social profiles: send a URL or a username, get both back. X usernames carry no "@"; LinkedIn usernames keep
// their path prefix ("in/jane-doe", "company/aperturescience").
import { describeJson, ValueProblem, type ValueType } from './value-type.ts';

interface Profile {
  url: string;
  username: string;
}

interface Network {
  label: string;
  hosts: RegExp;
  /** The username a profile URL's path names, or null. */
  usernameFromPath(segments: string[]): string | null;
  /** A bare username normalised, or null when it is not one. */
  username(text: string): string | null;
  urlFor(username: string): string;
  /** Whether a profile URL is answered in its one canonical form (X: "url starts https://x.com/"). */
  canonical: boolean;
  example: string;
}

const X: Network = {
  label: 'X',
  hosts: /^(www\.|mobile\.)?(x|twitter)\.com$/,
  usernameFromPath: (segments) => (segments[0] ? X.username(segments[0]) : null),
  username: (text) => {
    const name = text.replace(/^@/, '');
    return /^[A-Za-z0-9_]{1,15}$/.test(name) ? name : null;
  },
  urlFor: (username) => `https://x.com/${username}`,
  canonical: true,
  example: '{"url": "https://x.com/jack"} or {"username": "jack"} (1–15 letters, digits or _)',
};

const LINKEDIN_KINDS = ['in', 'company', 'school', 'showcase'];

const LINKEDIN: Network = {
  label: 'LinkedIn',
  hosts: /^([a-z]{2,3}\.|www\.)?linkedin\.com$/,
  usernameFromPath: (segments) =>
    segments.length >= 2 && LINKEDIN_KINDS.includes(segments[0]!) ? LINKEDIN.username(`${segments[0]}/${segments[1]}`) : null,
  username: (text) => {
    const name = text.replace(/^\/+|\/+$/g, '');
    const qualified = name.includes('/') ? name : `in/${name}`;
    const [kind, handle, ...rest] = qualified.split('/');
    if (rest.length > 0 || !LINKEDIN_KINDS.includes(kind!) || !/^[\p{L}\p{N}_.%-]{1,100}$/u.test(handle ?? '')) return null;
    return `${kind}/${handle}`;
  },
  urlFor: (username) => `https://linkedin.com/${username}`,
  canonical: false,
  example: '{"url": "https://linkedin.com/in/jane-doe"} or {"username": "in/jane-doe"}',
};

function profileType(network: Network): ValueType {
  const fromUrl = (text: string): Profile | null => {
    // A URL without a scheme is answered with one: the value is a link.
    const url = /^[a-z]+:\/\//i.test(text) ? text : `https://${text}`;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (!network.hosts.test(parsed.hostname.toLowerCase())) return null;
    let segments: string[];
    try {
      segments = parsed.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      // A stray `%` that is no escape (`/in/100%`): no profile path.
      return null;
    }
    const username = network.usernameFromPath(segments);
    return username ? { url: network.canonical ? network.urlFor(username) : url, username } : null;
  };

  return {
    parse(data) {
      const input = typeof data === 'string' ? (data.includes('.') ? { url: data } : { username: data }) : data;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new ValueProblem(`must be a ${network.label} profile: ${network.example}; got ${describeJson(data)}`);
      }
      const { url, username } = input as Record<string, unknown>;
      if (typeof url === 'string' && url.trim() !== '') {
        const profile = fromUrl(url.trim());
        if (!profile) throw new ValueProblem(`url must be a ${network.label} profile URL: ${network.example}; got ${describeJson(url)}`);
        return profile;
      }
      if (typeof username === 'string' && username.trim() !== '') {
        const name = network.username(username.trim());
        if (!name) throw new ValueProblem(`username is not a ${network.label} username: ${network.example}; got ${describeJson(username)}`);
        return { url: network.urlFor(name), username: name };
      }
      throw new ValueProblem(`needs a url or a username: ${network.example}`);
    },
    render: (stored) => stored,
  };
}

export const socialX = profileType(X);
export const socialLinkedIn = profileType(LINKEDIN);
