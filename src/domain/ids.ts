// Time-ordered identifiers: 48 bits of milliseconds and 80 random bits, written as 22 base58 characters
// (the shape of the hosted service's ids). Fixed width and an ASCII-ordered alphabet make string order equal
// creation order, so ids double as the keyset tiebreaker.
import { randomBytes, randomFillSync } from 'node:crypto';
import { currentTimeContext, systemClock } from './clock.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const WIDTH = 22;
const ID_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{22}$/;

/**
 * The last id made, per controlled organization clock ('' for the system clock): a frozen or rewound clock
 * keeps its own sequence, so its ids carry its time and still grow in creation order.
 */
const sequences = new Map<string, { ms: number; random: number[] }>();
const MAX_SEQUENCES = 10_000;

// Random bytes are drawn 2,560 at a time: one call into the CSPRNG per 256 ids instead of one per id.
const RANDOM_POOL = Buffer.alloc(10 * 256);
let poolOffset = RANDOM_POOL.length;

/** 80 random bits as five 16-bit limbs, most significant first. */
function freshRandom(): number[] {
  if (poolOffset === RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolOffset = 0;
  }
  const limbs = [0, 0, 0, 0, 0];
  for (let i = 0; i < 5; i++) limbs[i] = RANDOM_POOL.readUInt16BE(poolOffset + 2 * i);
  poolOffset += 10;
  return limbs;
}

/** `limbs` + 1, or undefined when that overflows 80 bits. */
function increment(limbs: readonly number[]): number[] | undefined {
  const next = [...limbs];
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 0xffff) {
      next[i]!++;
      return next;
    }
    next[i] = 0;
  }
  return undefined;
}

// Scratch space for encodeId: the value as eight 16-bit limbs, and its digits.
const LIMBS = new Int32Array(8);
const DIGITS = Buffer.alloc(WIDTH);
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');

/**
 * `ms` << 80 | `random` in base58, by long division of 16-bit limbs by 58 in 32-bit integers: several times
 * cheaper than BigInt arithmetic or doubles, and every request makes several ids.
 */
function encodeId(ms: number, random: readonly number[]): string {
  const high = Math.floor(ms / 2 ** 32);
  const low = ms - high * 2 ** 32;
  LIMBS[0] = high;
  LIMBS[1] = low >>> 16;
  LIMBS[2] = low & 0xffff;
  for (let i = 0; i < 5; i++) LIMBS[3 + i] = random[i]!;
  for (let d = WIDTH - 1; d >= 0; d--) {
    let remainder = 0;
    for (let i = 0; i < 8; i++) {
      const current = (remainder << 16) | LIMBS[i]!;
      const quotient = (current / 58) | 0;
      LIMBS[i] = quotient;
      remainder = current - quotient * 58;
    }
    DIGITS[d] = ALPHABET_CODES[remainder]!;
  }
  return DIGITS.toString('latin1');
}

export function encodeBase58(value: bigint, width: number): string {
  let out = '';
  let n = value;
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  return out.padStart(width, ALPHABET[0]);
}

/**
 * A new id, strictly greater than every id this process made before on the same clock (monotonic within a
 * millisecond); its time part comes from the organization's clock when the work is for one.
 */
export function newId(now: number = systemClock().getTime()): string {
  const context = currentTimeContext();
  const sequenceKey = context?.clock && context.orgId ? context.orgId : '';
  let last = sequences.get(sequenceKey);
  if (!last) {
    if (sequences.size >= MAX_SEQUENCES) for (const key of sequences.keys()) if (key !== '') sequences.delete(key);
    sequences.set(sequenceKey, (last = { ms: 0, random: [] }));
  }
  let ms = now;
  let random: number[];
  if (ms <= last.ms) {
    ms = last.ms;
    const next = increment(last.random);
    if (next) random = next;
    else {
      ms += 1;
      random = freshRandom();
    }
  } else {
    random = freshRandom();
  }
  last.ms = ms;
  last.random = random;
  return encodeId(ms, random);
}

/** The smallest id of millisecond `ms`: every id made at `ms` or later sorts at or after it. */
export function firstIdAt(ms: number): string {
  return encodeId(ms, [0, 0, 0, 0, 0]);
}

export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/** Digit values by character code, for arithmetic on ids as text. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/**
 * A fresh random shift for `shiftId`, as WIDTH base58 digits: adding one shift to every id of a set keeps
 * their order and, within a millisecond or so, their time part, while making them distinct from the originals.
 */
export function idShift(): number[] {
  const shift = BigInt('0x' + randomBytes(8).toString('hex')) + 1n;
  return [...encodeBase58(shift, WIDTH)].map((c) => DIGIT[c.charCodeAt(0)]!);
}

/** `id` + `shift`, digit by digit (ids sit far below 58^22, so the sum never needs a 23rd digit). */
export function shiftId(id: string, shift: readonly number[]): string {
  const out = new Array<string>(WIDTH);
  let carry = 0;
  for (let i = WIDTH - 1; i >= 0; i--) {
    const sum = DIGIT[id.charCodeAt(i)]! + shift[i]! + carry;
    carry = sum >= 58 ? 1 : 0;
    out[i] = ALPHABET[sum - carry * 58]!;
  }
  return out.join('');
}
