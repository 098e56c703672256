// An organization's newest `keep` answered requests, waiting to be written to its journal. Each is encoded into
// a slot — a Buffer outside the JS heap that the next request in its place writes over — so a busy
// organization's requests are not objects that outlive the young generation: as objects, a second's worth of
// answers was promoted, and old space grew by all of them before each full collection (+90 MB of RSS under a
// list-page load). A record is the numbers at fixed offsets, the length of each string (in UTF-16 units), then
// the strings one after the other in UTF-8: written, and read back, in one call each.
import { headerText, type HeldBody, type JournalRequest } from '../domain/journal.ts';

/** Slots are allocated in steps of this many bytes, so a slot fits most records that follow in its place. */
const SLOT_STEP = 4096;
/** status (u16), body kinds (2 × u8), latency (f64), number of strings (u16), record length (u32). */
const FIXED = 18;

/** How a held body is encoded: absent, as sent, or already in the journal's form (text, or none). */
const enum BodyKind {
  Absent = 0,
  Raw = 1,
  Kept = 2,
  KeptNone = 3,
}

const bodyKind = (body: HeldBody): BodyKind =>
  body === undefined ? BodyKind.Absent : typeof body === 'string' ? BodyKind.Raw : body.kept === null ? BodyKind.KeptNone : BodyKind.Kept;

const bodyText = (body: HeldBody): string => (body === undefined ? '' : typeof body === 'string' ? body : (body.kept ?? ''));

function heldBody(kind: BodyKind, text: string): HeldBody {
  if (kind === BodyKind.Absent) return undefined;
  if (kind === BodyKind.Raw) return text;
  return { kept: kind === BodyKind.Kept ? text : null };
}

/** The request's strings in record order: headers as name, value pairs after the fixed ones. */
function strings(request: JournalRequest): string[] {
  const out = [request.id, request.occurredAt, request.requestId, request.method, request.url, bodyText(request.requestBody), bodyText(request.responseBody)];
  for (const name in request.headers) {
    const value = request.headers[name];
    if (value !== undefined) out.push(name, headerText(value));
  }
  return out;
}

export class JournalRing {
  private readonly slots: Buffer[] = [];
  /** Where the next request goes, and how many wait: the oldest waiting is `waiting` slots behind `next`. */
  private next = 0;
  private waiting = 0;
  private writtenOver = 0;
  /** Flush rounds this ring has been passed over in (see journal-buffer.ts). */
  roundsWaited = 0;

  constructor(
    readonly orgId: string,
    private readonly keep: number,
  ) {}

  get count(): number {
    return this.waiting;
  }

  /** Requests written over before they were drained: more than `keep` arrived since the last drain. */
  get dropped(): number {
    return this.writtenOver;
  }

  /** Bytes held in slots, waiting or free. */
  get bytes(): number {
    return this.slots.reduce((sum, slot) => sum + slot.length, 0);
  }

  /** Holds `request`, in the place of the oldest waiting once `keep` wait. Returns whether the count grew. */
  add(request: JournalRequest): boolean {
    const texts = strings(request);
    const joined = texts.join('');
    const start = FIXED + 4 * texts.length;
    const size = start + Buffer.byteLength(joined);
    let slot = this.slots[this.next];
    if (slot === undefined || slot.length < size) {
      slot = Buffer.allocUnsafeSlow(Math.ceil(size / SLOT_STEP) * SLOT_STEP);
      this.slots[this.next] = slot;
    }
    slot.writeUInt16LE(request.status, 0);
    slot.writeUInt8(bodyKind(request.requestBody), 2);
    slot.writeUInt8(bodyKind(request.responseBody), 3);
    slot.writeDoubleLE(request.latencyMs, 4);
    slot.writeUInt16LE(texts.length, 12);
    slot.writeUInt32LE(size, 14);
    for (let i = 0; i < texts.length; i++) slot.writeUInt32LE(texts[i]!.length, FIXED + 4 * i);
    slot.write(joined, start);
    this.next = (this.next + 1) % this.keep;
    if (this.waiting === this.keep) {
      this.writtenOver++;
      return false;
    }
    this.waiting++;
    return true;
  }

  /** The waiting requests, oldest first; the ring is empty after (its slots stay, for the next requests). */
  drain(): JournalRequest[] {
    const out: JournalRequest[] = [];
    for (let i = this.waiting; i > 0; i--) out.push(this.decode(this.slots[(this.next - i + this.keep) % this.keep]!));
    this.waiting = 0;
    this.writtenOver = 0;
    this.roundsWaited = 0;
    return out;
  }

  private decode(slot: Buffer): JournalRequest {
    const count = slot.readUInt16LE(12);
    const start = FIXED + 4 * count;
    const joined = slot.toString('utf8', start, slot.readUInt32LE(14));
    const texts: string[] = [];
    for (let i = 0, at = 0; i < count; i++) {
      const length = slot.readUInt32LE(FIXED + 4 * i);
      texts.push(joined.slice(at, at + length));
      at += length;
    }
    const [id, occurredAt, requestId, method, url, requestBody, responseBody] = texts as [string, string, string, string, string, string, string];
    // As pairs: a header named __proto__ is then an own property like any other.
    const headers: [string, string][] = [];
    for (let i = 7; i < count; i += 2) headers.push([texts[i]!, texts[i + 1]!]);
    return {
      id,
      occurredAt,
      orgId: this.orgId,
      requestId,
      method,
      url,
      status: slot.readUInt16LE(0),
      latencyMs: slot.readDoubleLE(4),
      headers: Object.fromEntries(headers),
      requestBody: heldBody(slot.readUInt8(2), requestBody),
      responseBody: heldBody(slot.readUInt8(3), responseBody),
    };
  }
}
