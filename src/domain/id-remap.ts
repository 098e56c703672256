// Copying an organization's rows into another organization: every id of the source (the organization's own,
// and every row's `id`) gets a new id wherever it appears — key columns, foreign keys, JSON documents, blob
// keys — so the copy shares nothing with its source. New ids are the old ones plus one random shift: order
// (and so creation order and cursors' tiebreaks) and time part are kept.
import { idShift, isId, shiftId } from './ids.ts';
import type { OrgRows, Row } from './ports/toolkit-store.ts';

/** A 22-character id standing alone (not inside a longer word). */
const ID_TOKEN = /(?<![0-9A-Za-z])[1-9A-HJ-NP-Za-km-z]{22}(?![0-9A-Za-z])/g;

const reversed = (text: string) => [...text].reverse().join('');

export interface Renamer {
  rows: OrgRows;
  /** `text` with the source's ids replaced by the copy's. */
  rename(text: string): string;
}

export function renameIds(tables: OrgRows, fromOrgId: string, toOrgId: string): Renamer {
  const shift = idShift();
  const ids = new Map<string, string>();
  const add = (from: string, to: string) => {
    ids.set(from, to);
    // Index keys keep some values reversed too (ends_with as a range scan): map those spellings as well.
    ids.set(reversed(from), reversed(to));
  };
  add(fromOrgId, toOrgId);
  for (const rows of Object.values(tables)) {
    for (const row of rows) {
      const id = row.id;
      if (typeof id === 'string' && isId(id) && !ids.has(id)) add(id, shiftId(id, shift));
    }
  }
  const rename = (text: string) => (text.length < 22 ? text : text.replace(ID_TOKEN, (token) => ids.get(token) ?? token));
  const renameRow = (row: Row): Row => {
    const out: Row = {};
    for (const [column, value] of Object.entries(row)) out[column] = typeof value === 'string' ? rename(value) : value;
    return out;
  };
  const rows: OrgRows = {};
  for (const [table, tableRows] of Object.entries(tables)) rows[table] = tableRows.map(renameRow);
  return { rows, rename };
}
