// What calls and meetings keep alike, as links: each participant's matched person and that person's (or the
// email domain's) organization, and the record's tags. Read for a whole page in a fixed number of queries.
import type { ItemAssociation } from './associations.ts';
import type { LinkTarget, Store } from './ports/store.ts';
import { tagsById, type Tag } from './tagsets.ts';
import { indexKey } from './items.ts';
import type { Field } from './fields.ts';

/** Link roles: from a participant to its matched person and organization; from a call or meeting to a tag. */
export const PERSON = 'person';
export const ORGANIZATION = 'organization';
export const TAG = 'tag';

export interface Matches {
  person?: ItemAssociation;
  organization?: ItemAssociation;
}

/**
 * Who holds each of these texts (phones, emails, domains) in `field` (undefined: no such field), looked up in one
 * statement: for a text, the first holder in id order.
 */
export async function firstHolders(store: Store, orgId: string, field: Field | undefined, texts: string[]): Promise<(text: string) => string | undefined> {
  if (!field) return () => undefined;
  const keyOf = (text: string) => indexKey(field, text.toLowerCase()).text;
  const holders = await store.items.idsByTextKey(orgId, field.id, texts.map(keyOf).filter((key) => key !== null));
  return (text) => holders.get(keyOf(text) ?? '')?.[0];
}

/** The matches of the participants (links from `participantType`), as a lookup by participant id. */
export async function participantMatches(store: Store, orgId: string, participantType: string, participantIds: string[]): Promise<(id: string) => Matches> {
  const people = await store.links.targetsOf(orgId, participantType, participantIds, PERSON);
  const orgs = await store.links.targetsOf(orgId, participantType, participantIds, ORGANIZATION);
  const itemIds = [...new Set([...people.values(), ...orgs.values()].flat().flatMap((t) => (t.id ? [t.id] : [])))];
  const items = new Map((await store.items.findMany(orgId, itemIds)).map((i) => [i.id, i]));
  const collectionIds = [...new Set([...items.values()].map((i) => i.collectionId))];
  const collections = new Map((await store.collections.findMany(orgId, collectionIds)).map((c) => [c.id, c]));
  // A matched item deleted since is simply no longer a match.
  const pointer = (targets: LinkTarget[] | undefined): ItemAssociation | undefined => {
    const item = targets?.[0]?.id ? items.get(targets[0].id) : undefined;
    const collection = item && collections.get(item.collectionId);
    return item && collection ? { id: item.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } } : undefined;
  };
  return (id) => {
    const person = pointer(people.get(id));
    const organization = pointer(orgs.get(id));
    return { ...(person ? { person } : {}), ...(organization ? { organization } : {}) };
  };
}

/** The tags linked from each record of `fromType`, in link order; a tag deleted since is left out. */
export async function linkedTags(store: Store, orgId: string, fromType: string, ids: string[]): Promise<Map<string, Tag[]>> {
  const links = await store.links.targetsOf(orgId, fromType, ids, TAG);
  // Every tagset, not only those offered there now: a tag stays once its tagset stops being offered.
  const tags = links.size === 0 ? new Map<string, Tag>() : await tagsById(store, orgId);
  return new Map(ids.map((id) => [id, (links.get(id) ?? []).flatMap((t) => (t.id && tags.has(t.id) ? [tags.get(t.id)!] : []))]));
}

/** The link targets of tags. */
export const tagTarget = (tag: Tag): LinkTarget => ({ type: 'tag', id: tag.id });
