// Timestamps as the API writes them: ISO 8601, UTC, millisecond precision. Stored the same way, so they sort
// as text on every engine.

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function timestamp(clock: Clock = systemClock): string {
  return clock().toISOString();
}
