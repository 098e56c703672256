// Text lengths as people and the API's schemas count them: a character outside the Basic Multilingual Plane
// (most emoji) is one character, as JSON Schema's maxLength counts it, not the two UTF-16 units of its
// JavaScript length.
import { invalidAt } from './errors.ts';

/** The number of characters (code points) in `text`. */
export function characterCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by its low one is one character (unpaired ones are refused earlier).
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      count--;
      i++;
    }
  }
  return count;
}

/** Whether `text` has more than `max` characters; counts only when its UTF-16 length says it might. */
export const longerThan = (text: string, max: number): boolean => text.length > max && characterCount(text) > max;

/**
 * `text` from outside a request (a receiver's answer, a rendered template, a mail server's reply) made
 * storable on both engines: U+0000, which PostgreSQL's text refuses, and unpaired surrogates become U+FFFD.
 * A request's own text is refused instead (http/plugins/text-guard.ts).
 */
export const storableText = (text: string): string => text.replace(/\u0000|\p{Cs}/gu, '\uFFFD');

/** Names people give things (collections, fields, choice options, tags, funnels and their steps…). */
export const NAME_MAX = 255;

/** A name from a request, trimmed: not blank and at most NAME_MAX characters; a 422 at `pointer` otherwise. */
export function checkedName(name: string, pointer: string, what = 'name'): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalidAt(pointer, `${what} must not be blank`);
  if (longerThan(trimmed, NAME_MAX)) throw invalidAt(pointer, `${what} must be at most ${NAME_MAX} characters; got ${characterCount(trimmed)}`);
  return trimmed;
}
