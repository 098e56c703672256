// Text lengths as people and the API's schemas count them: a character outside the Basic Multilingual Plane
// (most emoji) is one character, as JSON Schema's maxLength counts it, not the two UTF-16 units of its
// JavaScript length.

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
