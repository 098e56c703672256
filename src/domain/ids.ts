// Time-ordered identifiers: 48 bits of milliseconds and 80 random bits, written as 22 base58 characters
// (the shape of the hosted service's ids). Fixed width and an ASCII-ordered alphabet make string order equal
// creation order, so ids double as the keyset tiebreaker.
import { randomBytes } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const WIDTH = 22;
const RANDOM_BITS = 80n;
const RANDOM_MASK = (1n << RANDOM_BITS) - 1n;
const ID_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{22}$/;

let lastMs = 0;
let lastRandom = 0n;

function freshRandom(): bigint {
  return BigInt('0x' + randomBytes(10).toString('hex'));
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

/** A new id, strictly greater than every id this process made before (monotonic within a millisecond). */
export function newId(now: number = Date.now()): string {
  let ms = now;
  let random: bigint;
  if (ms <= lastMs) {
    ms = lastMs;
    random = lastRandom + 1n;
    if (random > RANDOM_MASK) {
      ms += 1;
      random = freshRandom();
    }
  } else {
    random = freshRandom();
  }
  lastMs = ms;
  lastRandom = random;
  return encodeBase58((BigInt(ms) << RANDOM_BITS) | random, WIDTH);
}

export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
