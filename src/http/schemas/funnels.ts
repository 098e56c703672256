// Request bodies of /v0/funnels; the Funnel shape itself lives with fields, whose stage variant embeds it.
import { Type } from 'typebox';
import { StepInput } from './fields.ts';

export const CreateFunnelBody = Type.Object(
  {
    name: Type.String(),
    steps: Type.Optional(Type.Array(StepInput)),
  },
  { examples: [{ name: 'Sales', steps: [{ name: 'Lead', step_type: 'active', color: 'blue' }, { name: 'Won', step_type: 'success', color: 'green' }] }] },
);

export const UpdateFunnelBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    steps: Type.Optional(Type.Array(StepInput)),
  },
  { examples: [{ steps: [{ id: '1CLJt2v5S2pLx7JmQa9Ufb', name: 'Lead', step_type: 'active' }, { name: 'Lost', step_type: 'failure', color: 'red' }] }] },
);

export const FunnelParams = Type.Object({ id: Type.String() });
