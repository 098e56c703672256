// Request bodies of /v0/funnels; the Funnel shape itself lives with fields, whose stage variant embeds it.
import { Type } from 'typebox';
import { StepInput } from './fields.ts';

export const CreateFunnelBody = Type.Object({
  name: Type.String(),
  steps: Type.Optional(Type.Array(StepInput)),
});

export const UpdateFunnelBody = Type.Object({
  name: Type.Optional(Type.String()),
  steps: Type.Optional(Type.Array(StepInput)),
});

export const FunnelParams = Type.Object({ id: Type.String() });
