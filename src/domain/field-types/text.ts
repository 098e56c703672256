// Text-like values: single- and multi-line text, identifiers, email addresses, URLs, domains, geo text.
import { domainToASCII } from 'node:url';
import { asIs, boundedString, describeJson, ValueProblem, type ValueType } from './value-type.ts';
import { characterCount, longerThan } from '../characters.ts';

export const singleLine: ValueType = {
  parse(data) {
    const text = boundedString(data, 1024, 'a');
    if (/[\r\n]/.test(text)) throw new ValueProblem('must be a single line; use a multi-line text field for line breaks');
    return text;
  },
  render: asIs,
};

export const multiLine: ValueType = {
  parse(data) {
    if (typeof data !== 'string') throw new ValueProblem(`must be a string, got ${describeJson(data)}`);
    if (data.trim() === '') throw new ValueProblem('must not be empty; send null to clear the field');
    if (longerThan(data, 65536)) throw new ValueProblem(`must be at most 65536 characters long, got ${characterCount(data)}`);
    return data;
  },
  render: asIs,
};

export const identifier: ValueType = {
  parse(data) {
    if (typeof data !== 'string' || data.length === 0) {
      throw new ValueProblem(`must be a non-empty string (stored verbatim), got ${describeJson(data)}`);
    }
    if (longerThan(data, 255)) throw new ValueProblem(`must be at most 255 characters long, got ${characterCount(data)}`);
    return data;
  },
  render: asIs,
};

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const email: ValueType = {
  parse(data) {
    const text = boundedString(data, 254, 'an email address as a');
    const at = text.lastIndexOf('@');
    if (!EMAIL.test(text) || !isHostname(text.slice(at + 1)) || at > 64) {
      throw new ValueProblem(`must be an email address such as "jane@example.com", got ${describeJson(data)}`);
    }
    return text.slice(0, at) + '@' + text.slice(at + 1).normalize('NFKC').toLowerCase();
  },
  render: asIs,
};

export const url: ValueType = {
  parse(data) {
    const text = boundedString(data, 8192, 'a URL as a');
    let parsed: URL | undefined;
    try {
      parsed = new URL(text);
    } catch {
      parsed = undefined;
    }
    const hierarchical = parsed && /^(https?|ftp|wss?):$/.test(parsed.protocol);
    if (!parsed || !/^[a-z][a-z0-9+.-]*:/i.test(text) || (hierarchical && parsed.hostname === '')) {
      throw new ValueProblem(`must be a URL with a scheme, such as "https://example.com/page", got ${describeJson(data)}`);
    }
    return text;
  },
  render: asIs,
};

export const domain: ValueType = {
  parse(data) {
    // NFKC as IDNA maps names: a full-width "ＥＸＡＭＰＬＥ.com" is example.com, stored and matched as such.
    const text = boundedString(data, 253, 'a domain name as a').normalize('NFKC').toLowerCase().replace(/\.$/, '');
    if (!isHostname(text)) {
      throw new ValueProblem(`must be a bare domain such as "example.com" (no scheme, path or port), got ${describeJson(data)}`);
    }
    return text;
  },
  render: asIs,
};

export const geo: ValueType = {
  parse: (data) => boundedString(data, 1024, 'a location as a'),
  render: asIs,
};

/** A host name with at least two labels; internationalised names are accepted. */
function isHostname(host: string): boolean {
  if (/[\s/:?#@\\]/.test(host) || !host.includes('.')) return false;
  const ascii = domainToASCII(host);
  return ascii !== '' && ascii.split('.').every((label) => /^(?!-)[a-z0-9-]{1,63}(?<!-)$/.test(label));
}
