// Calls (reference §5.14): logged by POST /calls or upserted by provider call id. Participants are matched to
// People items by phone (the `phone` field's index key) and to the person's organization (the first relation
// field of People into Organizations); those matches and the call's tags are links, not columns. Creation
// records `activity/call_occurred` at the call's start, with the matched people as actors.
import { checkRecording, cueText, type Cue as GenericCue, type Recording as GenericRecording } from './recordings.ts';
import { AppError, invalidAt, orNotFound, propertyAt } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { constituent, recordActivity, type Constituent } from './activity.ts';
import type { Principal } from './api-keys.ts';
import type { ItemAssociation } from './associations.ts';
import { loadSchema, type CollectionSchema } from './collection-schema.ts';
import { telephone } from './field-types/telephone.ts';
import { parseDateTime } from './field-types/dates.ts';
import { ValueProblem } from './field-types/value-type.ts';
import { checkTagPointers, type Tag } from './tagsets.ts';
import { firstHolders, linkedTags, ORGANIZATION, participantMatches, PERSON, TAG, tagTarget } from './participants.ts';
import { newestNoteOn, type Note } from './notes.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { recordLock } from './locks.ts';
import { longerThan } from './characters.ts';

export const CALL_DIRECTIONS = ['incoming', 'outgoing'] as const;
export const CALL_PROVIDERS = ['openphone', 'user', 'zoom_phone'] as const;
export const PARTICIPANT_ROLES = ['caller', 'callee', 'other'] as const;
/** The only recording format the API takes. */
export const RECORDING_CONTENT_TYPE = 'audio/mpeg';

export type CallDirection = (typeof CALL_DIRECTIONS)[number];
export type CallProvider = (typeof CALL_PROVIDERS)[number];
export type ParticipantRole = (typeof PARTICIPANT_ROLES)[number];

/** A participant as the call row keeps it; the items it is matched to are links of the participant. */
export interface StoredParticipant {
  id: string;
  phone: string;
  role: ParticipantRole;
}

export interface CallParticipant extends StoredParticipant {
  person?: ItemAssociation;
  organization?: ItemAssociation;
}

export type Recording = GenericRecording;

/** A transcript cue of a call: its speaker is the speaker's E.164 phone. */
export type Cue = GenericCue<string>;

/** A call as its row holds it. */
export interface CallRecord {
  id: string;
  orgId: string;
  direction: CallDirection;
  provider: CallProvider;
  providerId: string;
  providerStatus: string;
  /** Stored verbatim. */
  providerMetadata: object | null;
  startAt: string;
  answeredAt: string | null;
  endAt: string | null;
  participants: StoredParticipant[];
  recordings: Recording[];
  transcript: { cues: Cue[] } | null;
  createdAt: string;
  updatedAt: string;
}

export interface Call extends Omit<CallRecord, 'participants'> {
  participants: CallParticipant[];
  tags: Tag[];
}

/** What `include[]` adds to a call. */
export interface CallExtras {
  note?: Note | null;
  summary?: Note | null;
}

export interface CallInput {
  direction: CallDirection;
  participants: { phone: string; role: ParticipantRole }[];
  provider: CallProvider;
  provider_id: string;
  provider_status: string;
  start_at: string;
  answered_at?: string | null;
  end_at?: string | null;
  provider_metadata?: object | null;
  recordings?: { content_type: string; provider_id: string; url: string }[];
  transcript?: { cues: { from: number; to: number; text: string; speaker: string }[] } | null;
  tags?: { type: string; id: string }[];
}

/** The entity type of a call's participants in links (their roles are in participants.ts). */
const PARTICIPANT = 'call_participant';

/** Provider call ids are identifiers: kept verbatim, at most this long (they are an index key). */
const PROVIDER_ID_MAX = 255;

/** A value checked as a field value of that type would be; a problem is a 422 at `pointer`. */
function checked(type: typeof telephone, pointer: string, what: string, value: string): string {
  try {
    // Neither telephone numbers nor URLs depend on a field's settings.
    return type.parse(value, undefined as never) as string;
  } catch (error) {
    if (error instanceof ValueProblem) throw invalidAt(pointer, `${what} ${error.detail}`);
    throw error;
  }
}

const phoneAt = (pointer: string, value: string): string => checked(telephone, pointer, 'phone', value);

function timeAt(pointer: string, value: string): string {
  const time = parseDateTime(value);
  if (time === null) throw invalidAt(pointer, `${propertyAt(pointer)} must be an ISO 8601 date and time with a zone (e.g. "2025-02-17T15:01:00Z"); got ${JSON.stringify(value)}`);
  return time;
}

const optionalTime = (pointer: string, value: string | null | undefined): string | null | undefined =>
  value === undefined || value === null ? value : timeAt(pointer, value);

function checkText(pointer: string, value: string, max: number): string {
  if (value.trim() === '') throw invalidAt(pointer, `${propertyAt(pointer)} must not be blank`);
  if (longerThan(value, max)) throw invalidAt(pointer, `${propertyAt(pointer)} must be at most ${max} characters`);
  return value;
}

/** The call's own properties from the body; participants keep the ids of earlier ones with the same phone and role. */
function buildRecord(input: CallInput, current: CallRecord | undefined, orgId: string, now: string): CallRecord {
  if (input.participants.length === 0) throw invalidAt('/participants', 'a call needs at least one participant ({"phone": "+14155552671", "role": "caller"})');
  const previous = [...(current?.participants ?? [])];
  const participants = input.participants.map((p, i): StoredParticipant => {
    const phone = phoneAt(`/participants/${i}/phone`, p.phone);
    const reused = previous.findIndex((q) => q.phone === phone && q.role === p.role);
    const id = reused >= 0 ? previous.splice(reused, 1)[0]!.id : newId();
    return { id, phone, role: p.role };
  });
  const recordings = input.recordings?.map((r, i) => checkRecording(r, `/recordings/${i}`, RECORDING_CONTENT_TYPE));
  const transcript =
    input.transcript === undefined || input.transcript === null
      ? input.transcript
      : {
          cues: input.transcript.cues.map((c, i): Cue => {
            if (c.to < c.from) throw invalidAt(`/transcript/cues/${i}/to`, '"to" must not be before "from" (both in seconds from the start of the call)');
            return { from: c.from, to: c.to, text: c.text, speaker: phoneAt(`/transcript/cues/${i}/speaker`, c.speaker) };
          }),
        };
  const startAt = timeAt('/start_at', input.start_at);
  const answeredAt = optionalTime('/answered_at', input.answered_at);
  const endAt = optionalTime('/end_at', input.end_at);
  checkTimeOrder(startAt, answeredAt === undefined ? (current?.answeredAt ?? null) : answeredAt, endAt === undefined ? (current?.endAt ?? null) : endAt);
  return {
    id: current?.id ?? newId(),
    orgId,
    direction: input.direction,
    provider: input.provider,
    providerId: checkText('/provider_id', input.provider_id, PROVIDER_ID_MAX),
    providerStatus: checkText('/provider_status', input.provider_status, PROVIDER_ID_MAX),
    providerMetadata: input.provider_metadata === undefined ? (current?.providerMetadata ?? null) : input.provider_metadata,
    startAt,
    answeredAt: answeredAt === undefined ? (current?.answeredAt ?? null) : answeredAt,
    endAt: endAt === undefined ? (current?.endAt ?? null) : endAt,
    participants,
    recordings: recordings ?? current?.recordings ?? [],
    transcript: transcript === undefined ? (current?.transcript ?? null) : transcript,
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
  };
}

/** A call is answered after it starts and ends after both; times compare as instants (zones may differ). */
function checkTimeOrder(startAt: string, answeredAt: string | null, endAt: string | null): void {
  const start = Date.parse(startAt);
  if (answeredAt !== null && Date.parse(answeredAt) < start) throw invalidAt('/answered_at', `answered_at must not be before start_at (${startAt}); got ${answeredAt}`);
  if (endAt === null) return;
  if (Date.parse(endAt) < start) throw invalidAt('/end_at', `end_at must not be before start_at (${startAt}); got ${endAt}`);
  if (answeredAt !== null && Date.parse(endAt) < Date.parse(answeredAt)) throw invalidAt('/end_at', `end_at must not be before answered_at (${answeredAt}); got ${endAt}`);
}

/** Every text of a transcript together stays within the body limit anyway; each cue's text is checked here. */
function checkCueTexts(input: CallInput): void {
  input.transcript?.cues.forEach((c, i) => cueText(c.text, `/transcript/cues/${i}/text`));
}

const pointerOf = (schema: CollectionSchema, id: string): ItemAssociation => ({
  id,
  type: 'item',
  collection: { id: schema.collection.id, type: 'collection', ref: schema.collection.ref },
});

/**
 * The People item holding each phone (the oldest, when several do) and that person's organization: the first
 * value of People's first relation field into Organizations. The matched items are locked shared until the
 * write commits, so they cannot be deleted (dropping their links) in between.
 */
async function matchParticipants(store: Store, orgId: string, participants: StoredParticipant[]): Promise<CallParticipant[]> {
  const people = await loadSchema(store, orgId, 'people');
  const organizations = await loadSchema(store, orgId, 'organizations');
  const phoneField = people.byRef.get('phone');
  const orgField = people.fields.find((f) => f.type === 'field/relation' && (f.config.allowedCollectionIds ?? []).includes(organizations.collection.id));
  const holderOf = await firstHolders(store, orgId, phoneField, participants.map((p) => p.phone));
  const personOf = new Map<string, string>();
  for (const { phone } of participants) {
    const id = holderOf(phone);
    if (id !== undefined) personOf.set(phone, id);
  }
  const personIds = [...new Set(personOf.values())];
  const persons = new Map((await store.items.findMany(orgId, personIds, 'shared')).map((i) => [i.id, i]));
  const orgIdOf = new Map<string, string>();
  if (orgField) {
    for (const person of persons.values()) {
      const first = person.values[orgField.id]?.[0] as { id: string } | undefined;
      if (first) orgIdOf.set(person.id, first.id);
    }
  }
  const orgIds = [...new Set(orgIdOf.values())];
  const orgItems = new Set((await store.items.findMany(orgId, orgIds, 'shared')).filter((i) => i.collectionId === organizations.collection.id).map((i) => i.id));
  return participants.map((p) => {
    const personId = personOf.get(p.phone);
    const person = personId === undefined ? undefined : persons.get(personId);
    if (!person) return { ...p };
    const organizationId = orgIdOf.get(person.id);
    return {
      ...p,
      person: pointerOf(people, person.id),
      ...(organizationId !== undefined && orgItems.has(organizationId) ? { organization: pointerOf(organizations, organizationId) } : {}),
    };
  });
}

async function saveLinks(store: Store, orgId: string, call: Call, previous: StoredParticipant[], tags: boolean): Promise<void> {
  const kept = new Set(call.participants.map((p) => p.id));
  const earlier = new Set(previous.map((p) => p.id));
  for (const gone of previous.filter((p) => !kept.has(p.id))) await store.links.deleteEntity(orgId, PARTICIPANT, gone.id);
  const matchesOf = (p: CallParticipant) => [
    { role: PERSON, targets: p.person ? [{ type: 'item', id: p.person.id }] : [] },
    { role: ORGANIZATION, targets: p.organization ? [{ type: 'item', id: p.organization.id }] : [] },
  ];
  // A new participant has no links to replace: its matches are only inserted, which on PostgreSQL is not waited
  // for (a delete is), so a new call's links cost no round trip.
  const fresh = call.participants.filter((p) => !earlier.has(p.id));
  await store.links.insertMany(
    orgId,
    fresh.flatMap((p) => matchesOf(p).flatMap(({ role, targets }) => targets.map((t, position) => ({ fromType: PARTICIPANT, fromId: p.id, role, position, toType: t.type, toId: t.id })))),
  );
  for (const p of call.participants.filter((q) => earlier.has(q.id))) {
    for (const { role, targets } of matchesOf(p)) await store.links.replace(orgId, PARTICIPANT, p.id, role, targets);
  }
  if (tags) await store.links.replace(orgId, 'call', call.id, TAG, call.tags.map(tagTarget));
}

/** `activity/call_occurred`'s constituents: the matched people (each once) as actors, the call as object. */
function occurredConstituents(call: Call): Constituent[] {
  const actors = new Map<string, ItemAssociation>();
  for (const p of call.participants) if (p.person) actors.set(p.person.id, p.person);
  return [...[...actors.values()].map((person) => constituent('actor', { ...person })), constituent('object', { id: call.id, type: 'call' })];
}

/** The lock that serialises writers of one provider call id (the unique index backs it up). */
const providerLock = (orgId: string, input: CallInput) => recordLock('call_provider', `${orgId}:${input.provider}:${input.provider_id}`);

/**
 * A call write reads the People and Organizations schemas (to match participants), so it holds the schema lock
 * shared, as item writes do; the organization's schema tag is then read once, travelling with the lookup of the
 * call instead of taking a round trip per schema.
 */
async function lockForWrite(tx: Store, orgId: string, input: CallInput): Promise<void> {
  await tx.lockSchema(orgId, 'shared');
  await tx.lock([providerLock(orgId, input)]);
}

const findByProvider = (store: Store, orgId: string, provider: string, providerId: string): Promise<CallRecord | undefined> =>
  store.calls.findBy(orgId, { provider, providerId });

/** Writes a new call (`current` undefined) or replaces `current` with the input. */
async function write(tx: Store, principal: Principal, input: CallInput, current: CallRecord | undefined, clock?: Clock): Promise<Call> {
  const orgId = principal.orgId;
  checkCueTexts(input);
  const record = buildRecord(input, current, orgId, timestamp(clock));
  const participants = await matchParticipants(tx, orgId, record.participants);
  const tags =
    input.tags === undefined ? (current ? ((await linkedTags(tx, orgId, 'call', [current.id])).get(current.id) ?? []) : []) : await checkTagPointers(tx, orgId, 'calls', input.tags);
  const call: Call = { ...record, participants, tags };
  if (current) await tx.calls.update(record);
  else await tx.calls.insert(record);
  await saveLinks(tx, orgId, call, current?.participants ?? [], input.tags !== undefined);
  const constituents = occurredConstituents(call);
  if (!current) await recordActivity(tx, orgId, 'activity/call_occurred', call.startAt, constituents);
  // The activity is the call as it happened (reference §5.14: at its start, its people as actors): an upsert
  // that corrects the start or who took part corrects the activity, in the feed too.
  else await tx.activities.restate(orgId, 'activity/call_occurred', { type: 'call', id: call.id }, call.startAt, constituents);
  return call;
}

export async function createCall(store: Store, principal: Principal, input: CallInput, clock?: Clock): Promise<Call> {
  return store.transaction(async (tx) => {
    await lockForWrite(tx, principal.orgId, input);
    if (await findByProvider(tx, principal.orgId, input.provider, input.provider_id)) {
      throw new AppError('conflict', `a call with provider "${input.provider}" and provider_id "${input.provider_id}" exists already; POST /calls/upsert updates it`);
    }
    return write(tx, principal, input, undefined, clock);
  });
}

/** Finds the call by provider and provider_id and replaces it, or creates it; `created` tells which. */
export async function upsertCall(store: Store, principal: Principal, input: CallInput, clock?: Clock): Promise<{ call: Call; created: boolean }> {
  const attempt = () =>
    store.transaction(async (tx) => {
      await lockForWrite(tx, principal.orgId, input);
      const current = await findByProvider(tx, principal.orgId, input.provider, input.provider_id);
      return { call: await write(tx, principal, input, current, clock), created: current === undefined };
    });
  try {
    return await attempt();
  } catch (error) {
    // A racing creator got the unique index first: the call exists now, and the second run updates it.
    if (error instanceof AppError && error.code === 'conflict') return attempt();
    throw error;
  }
}

export async function getCall(store: Store, orgId: string, id: string): Promise<Call> {
  const [call] = await withLinks(store, orgId, [await orNotFound(store.calls.find(orgId, id))]);
  return call!;
}

export async function listCalls(store: Store, orgId: string, page: PageRequest): Promise<Page<Call>> {
  const found = await store.calls.list(orgId, page);
  return { ...found, rows: await withLinks(store, orgId, found.rows) };
}

/**
 * What `include[]` asks for beyond the call: `note`, the newest note associated with the call (null without
 * one); `summary`, always null (Tycho generates no summaries).
 */
export async function callExtras(store: Store, orgId: string, call: Call, include: ReadonlySet<string>): Promise<CallExtras> {
  const extras: CallExtras = {};
  if (include.has('note')) {
    extras.note = await newestNoteOn(store, orgId, { type: 'call', id: call.id });
  }
  if (include.has('summary')) extras.summary = null;
  return extras;
}

/** The calls with their matched participants and tags: a fixed number of queries for a whole page. */
async function withLinks(store: Store, orgId: string, records: CallRecord[]): Promise<Call[]> {
  const matches = await participantMatches(store, orgId, PARTICIPANT, records.flatMap((r) => r.participants.map((p) => p.id)));
  const tags = await linkedTags(store, orgId, 'call', records.map((r) => r.id));
  return records.map((r) => ({ ...r, participants: r.participants.map((p) => ({ ...p, ...matches(p.id) })), tags: tags.get(r.id) ?? [] }));
}

/** Whether the call exists in the organization (note associations point at calls). */
export async function callExists(store: Store, orgId: string, id: string): Promise<boolean> {
  return (await store.calls.find(orgId, id)) !== undefined;
}
