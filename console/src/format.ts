// How values look in the console: the `{type, data}` wrapper reduced to readable text.

interface Value {
  type: string;
  data?: unknown;
}

function dataText(value: Value): string {
  const data = value.data as any;
  switch (value.type) {
    case 'value/number/monetary':
      return `${data.in_minor_units} ${data.currency ?? ''} (minor units)`;
    case 'value/choice':
    case 'value/funnel_step':
      return data.name ?? data.id;
    case 'value/relation':
      return `item ${data.id}`;
    case 'value/uri/social_x':
    case 'value/uri/social_linked_in':
      return data.username ?? data.url;
    case 'value/number/percentage':
      return `${data} %`;
    default:
      return typeof data === 'string' ? data : JSON.stringify(data);
  }
}

export function valueText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  return dataText(value as Value);
}

export const timeText = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : '');
