// Conditions and values over organizations that keep different times (domain/due-times.ts): one statement
// serves every organization, each on its own clock.
import { sql, type RawBuilder } from 'kysely';
import type { DueTimes } from '../../domain/due-times.ts';

/** True for rows whose time column `at` is due by their organization's (column `org`) time. */
export function dueBy(org: string, at: string, times: DueTimes): RawBuilder<boolean> {
  const own = times.orgs.map(({ orgId, now }) => sql`(${sql.ref(org)} = ${orgId} and ${sql.ref(at)} <= ${now})`);
  const ids = times.orgs.map(({ orgId }) => orgId);
  const others =
    times.others === undefined ? [] : [ids.length === 0 ? sql`${sql.ref(at)} <= ${times.others}` : sql`(${sql.ref(org)} not in (${sql.join(ids)}) and ${sql.ref(at)} <= ${times.others})`];
  const all = [...own, ...others];
  return all.length === 0 ? sql<boolean>`1 = 0` : sql<boolean>`(${sql.join(all, sql` or `)})`;
}

/** Each row's organization's time (a lease's end, say): a CASE over the listed organizations. */
export function timeOf(org: string, times: DueTimes): RawBuilder<string> {
  if (times.orgs.length === 0) return sql<string>`${times.others ?? null}`;
  const cases = times.orgs.map(({ orgId, now }) => sql`when ${orgId} then ${now}`);
  return sql<string>`case ${sql.ref(org)} ${sql.join(cases, sql` `)} else ${times.others ?? null} end`;
}
