// CSV cells ↔ item values. One column per field, headed by its ref. A `one` field's cell is plain text (a
// choice or stage by name, a relation by item id, a social profile by URL, money as JSON); a `many` field's
// cell is a JSON array of such data. Reading turns text back into the `{type, data}` value params the API
// takes, so the domain checks every row exactly as it checks a request body.
import { valueTypeOf, type Field } from '../domain/fields.ts';
import type { CollectionSchema } from '../domain/collection-schema.ts';

type Wrapped = { type: string; data?: unknown };

/** The compact form of one value's data for a cell: names for options and steps, ids for items, URLs for profiles. */
function compactData(field: Field, data: any): unknown {
  switch (field.type) {
    case 'field/choice':
    case 'field/stage':
      return data.name ?? data.id;
    case 'field/relation':
      return data.id;
    case 'field/uri/social_x':
    case 'field/uri/social_linked_in':
      return data.url;
    default:
      return data;
  }
}

/** The cell text of a field's rendered value (a wrapper, an array of them, or undefined). */
export function cellOf(field: Field, rendered: unknown): string {
  if (rendered === undefined) return '';
  if (Array.isArray(rendered)) return JSON.stringify(rendered.map((w: Wrapped) => compactData(field, w.data)));
  const data = compactData(field, (rendered as Wrapped).data);
  return typeof data === 'string' ? data : JSON.stringify(data);
}

/** A value's data from its compact form (text, or a JSON element of a `many` cell). */
function dataOf(schema: CollectionSchema, field: Field, compact: unknown): unknown {
  if (typeof compact !== 'string') return compact;
  const text = compact;
  switch (field.type) {
    case 'field/number/unitless_integer':
    case 'field/number/unitless_float':
    case 'field/number/percentage':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'field/boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'field/number/monetary':
      return parseJson(text) ?? text;
    case 'field/choice': {
      const option = field.config.options?.find((o) => o.id === text || o.name === text);
      return { type: 'choice_field_option', id: option?.id ?? text };
    }
    case 'field/stage': {
      const steps = schema.funnels.get(field.config.funnelId ?? '')?.steps ?? [];
      return { type: 'funnel_step', id: steps.find((s) => s.id === text || s.name === text)?.id ?? text };
    }
    case 'field/relation':
      return { type: 'item', id: text };
    default:
      return text;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The value param for a cell; undefined for an empty cell. A `many` cell that is not a JSON array is one value. */
export function valueOfCell(schema: CollectionSchema, field: Field, text: string): unknown {
  if (text === '') return undefined;
  const type = valueTypeOf(field.type);
  const wrap = (compact: unknown) => ({ type, data: dataOf(schema, field, compact) });
  if (field.cardinality === 'many') {
    const list = text.startsWith('[') ? parseJson(text) : undefined;
    return Array.isArray(list) ? list.map(wrap) : [wrap(text)];
  }
  return wrap(text);
}
