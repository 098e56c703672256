// Copying an organization's rows into another organization: every id of the source (the organization's own,
// and every row's `id`) gets a new id wherever it appears — key columns, foreign keys, JSON documents, blob
// keys — so the copy shares nothing with its source. New ids are the old ones plus one random shift: order
// (and so creation order and cursors' tiebreaks) and time part are kept. The rows stay JSON text throughout:
// one pass of one regular expression over each table's text, no row parsed.
import { idShift, shiftId } from './ids.ts';
import type { OrgRows } from './ports/toolkit-store.ts';

/** A run of id characters; an id is a run of 22, or the last 22 of a run after a JSON escape (`\\nID`). */
const RUN = /[1-9A-HJ-NP-Za-km-z]{22,}/g;
/** A JSON escape (doubled in nested JSON text) stands for a separator, as the character it encodes is one. */
const ESCAPE_BEFORE = /\\(?:[nrtbf]|u[0-9A-Fa-f]{4})$/;
const ID_LENGTH = 22;

function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Whether the 22 characters at `start` are a word of their own (not part of a longer one). */
function standsAlone(text: string, start: number): boolean {
  if (isAlphanumeric(text.charCodeAt(start + ID_LENGTH))) return false;
  if (start === 0 || !isAlphanumeric(text.charCodeAt(start - 1))) return true;
  return ESCAPE_BEFORE.test(text.slice(Math.max(0, start - 6), start));
}

/** A row's own id: the only unescaped `"id":` in a table's text, as rows are flat. */
const ROW_ID = /"id":"([1-9A-HJ-NP-Za-km-z]{22})"/g;

const reversed = (text: string) => [...text].reverse().join('');

export interface Renamer {
  tables: OrgRows;
  /** `text` with the source's ids replaced by the copy's. */
  rename(text: string): string;
}

export function renameIds(tables: OrgRows, fromOrgId: string, toOrgId: string): Renamer {
  const shift = idShift();
  const ids = new Map<string, string>([[fromOrgId, toOrgId]]);
  for (const { json } of Object.values(tables)) {
    for (const match of json.matchAll(ROW_ID)) if (!ids.has(match[1]!)) ids.set(match[1]!, shiftId(match[1]!, shift));
  }
  // Index keys keep some values reversed too (ends_with as a range scan): a reversed id is renamed reversed.
  const renamed = (candidate: string): string | undefined => {
    const to = ids.get(candidate);
    if (to !== undefined) return to;
    const back = ids.get(reversed(candidate));
    return back === undefined ? undefined : reversed(back);
  };
  const rename = (text: string) =>
    text.replace(RUN, (run: string, offset: number) => {
      const start = offset + run.length - ID_LENGTH;
      const to = renamed(run.length === ID_LENGTH ? run : run.slice(-ID_LENGTH));
      return to !== undefined && standsAlone(text, start) ? run.slice(0, run.length - ID_LENGTH) + to : run;
    });
  const copy: OrgRows = {};
  for (const [table, rows] of Object.entries(tables)) copy[table] = { columns: rows.columns, json: rename(rows.json) };
  return { tables: copy, rename };
}
