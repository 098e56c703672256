// Values that point at something: a choice option of the field, a step of the field's funnel, an item.
// Requests send pointers ({id, type}); responses expand them. Relation targets are checked against the
// database by the item use cases, which can see other items.
import { describeJson, ValueProblem, type ValueType } from './value-type.ts';

function pointerId(data: unknown, type: string, example: string): string {
  const record = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  if (!record || typeof record.id !== 'string' || (record.type !== undefined && record.type !== type)) {
    throw new ValueProblem(`must be a pointer ${example}, got ${describeJson(data)}`);
  }
  return record.id;
}

export const choice: ValueType = {
  parse(data, { field }) {
    const id = pointerId(data, 'choice_field_option', '{"type": "choice_field_option", "id": "…"}');
    const options = field.config.options ?? [];
    if (!options.some((o) => o.id === id)) {
      const list = options.map((o) => `${o.id} (${o.name})`).join(', ');
      throw new ValueProblem(`is not an option of field ${field.ref}; options are: ${list}`);
    }
    return { id };
  },
  render(stored, { field }) {
    const { id } = stored as { id: string };
    const option = field.config.options?.find((o) => o.id === id);
    return option ? { id, type: 'choice_field_option', name: option.name, color: option.color } : { id, type: 'choice_field_option' };
  },
};

export const funnelStep: ValueType = {
  parse(data, { field, funnel }) {
    const id = pointerId(data, 'funnel_step', '{"type": "funnel_step", "id": "…"}');
    const steps = funnel?.steps ?? [];
    if (!steps.some((s) => s.id === id)) {
      const list = steps.map((s) => `${s.id} (${s.name})`).join(', ');
      throw new ValueProblem(`is not a step of the funnel of field ${field.ref}; steps are: ${list}`);
    }
    return { id };
  },
  render(stored, { funnel }) {
    const { id } = stored as { id: string };
    const step = funnel?.steps.find((s) => s.id === id);
    return step ? { id, type: 'funnel_step', name: step.name, step_type: step.stepType, color: step.color } : { id, type: 'funnel_step' };
  },
};

/** Stored as the full item pointer: an item never changes collection and collection refs never change. */
export const relation: ValueType = {
  parse(data) {
    return { id: pointerId(data, 'item', '{"type": "item", "id": "…"}'), type: 'item' };
  },
  render: (stored) => stored,
};
