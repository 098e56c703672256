// A field together with what its response shows of other objects: the funnel of a stage field, the
// collections a relation allows, the reverse and source fields of two-way relations. Loaded in batches.
import type { Field } from './fields.ts';
import type { Funnel } from './funnels.ts';
import type { Store } from './ports/store.ts';

export interface CollectionRef {
  id: string;
  ref: string;
}

export interface FieldRef {
  id: string;
  ref: string;
  collection: CollectionRef;
}

export interface FieldView {
  field: Field;
  funnel?: Funnel;
  allowedCollections?: CollectionRef[];
  reverseFields?: FieldRef[];
  sourceField?: FieldRef;
}

/** `funnels`: the fields' funnels where the caller has them already (a collection's schema holds them). */
export async function describeFields(store: Store, orgId: string, fields: Field[], funnels?: Funnel[]): Promise<FieldView[]> {
  const funnelIds = new Set<string>();
  const fieldIds = new Set<string>();
  for (const { config } of fields) {
    if (config.funnelId) funnelIds.add(config.funnelId);
    for (const id of config.reverseFieldIds ?? []) fieldIds.add(id);
    if (config.sourceFieldId) fieldIds.add(config.sourceFieldId);
  }
  const [found, related] = await Promise.all([
    funnels ?? store.funnels.findMany(orgId, [...funnelIds]),
    store.fields.findMany(orgId, [...fieldIds]),
  ]);
  const collectionIds = new Set<string>(related.map((f) => f.collectionId));
  for (const { config } of fields) for (const id of config.allowedCollectionIds ?? []) collectionIds.add(id);
  const collections = await store.collections.findMany(orgId, [...collectionIds]);

  const collectionRef = new Map(collections.map((c) => [c.id, { id: c.id, ref: c.ref }]));
  const funnelById = new Map(found.map((f) => [f.id, f]));
  const fieldRef = new Map(
    related.flatMap((f) => {
      const collection = collectionRef.get(f.collectionId);
      return collection ? [[f.id, { id: f.id, ref: f.ref, collection }] as const] : [];
    }),
  );
  const pick = <T>(ids: string[] | undefined, from: Map<string, T>): T[] =>
    (ids ?? []).flatMap((id) => (from.has(id) ? [from.get(id)!] : []));

  return fields.map((field) => {
    const view: FieldView = { field };
    const { config } = field;
    if (config.funnelId) view.funnel = funnelById.get(config.funnelId);
    if (field.type === 'field/relation') {
      view.allowedCollections = pick(config.allowedCollectionIds, collectionRef);
      if (config.reverseFieldIds) view.reverseFields = pick(config.reverseFieldIds, fieldRef);
      if (config.sourceFieldId) view.sourceField = fieldRef.get(config.sourceFieldId);
    }
    return view;
  });
}
