/**
 * Matching one object against a parsed query (search.md rules 2, 4, 5, 6 and the key of 7).
 * Pure and allocation-light: the service and the offline index call it on every candidate.
 */
import type { Fragment, Location } from '../model/remote-object.js';
import { foldCase, isWordAt, isWordBefore } from './fold.js';
import type { ParsedQuery } from './query.js';
import type { SortKey } from './order.js';

/** The searchable fields of an object, in the order of rule 2. */
export interface SearchDoc {
  id: string;
  name: string;
  cameraMake?: string | undefined;
  cameraModel?: string | undefined;
  mimeType: string;
}

/** Number of searchable fields (rule 2): name, cameraMake, cameraModel, mimeType. */
export const FIELD_COUNT = 4;

/** The searchable values of a doc in rule-2 order; absent fields are undefined. */
export function searchFields(doc: SearchDoc): [string, string | undefined, string | undefined, string] {
  return [doc.name, doc.cameraMake, doc.cameraModel, doc.mimeType];
}

/** A match: the sort key of rule 7 and the fragments of rule 6. */
export interface DocMatch {
  key: SortKey;
  fragments: Fragment[];
}

/**
 * Matches a doc. `folded` may pass the doc's fields already folded (same order as
 * `searchFields`) to save the work. Returns undefined when some term occurs in no field.
 */
export function matchDoc(doc: SearchDoc, query: ParsedQuery, folded?: readonly (string | undefined)[]): DocMatch | undefined {
  const fields = searchFields(doc);
  const f = folded ?? fields.map((v) => (v === undefined ? undefined : foldCase(v)));
  // Rule 4: every term occurs in at least one field.
  for (const term of query.folded) {
    let found = false;
    for (let k = 0; k < FIELD_COUNT; k++) {
      const v = f[k];
      if (v !== undefined && v.includes(term)) {
        found = true;
        break;
      }
    }
    if (!found) return undefined;
  }
  const fragments: Fragment[] = [];
  let firstField = -1;
  let firstIndex = 0;
  let nameWordStart = false;
  for (let k = 0; k < FIELD_COUNT; k++) {
    const text = fields[k];
    const ftext = f[k];
    if (text === undefined || ftext === undefined) continue;
    const locations = locate(text, ftext, query.folded);
    if (locations.length === 0) continue;
    if (firstField < 0) {
      firstField = k;
      firstIndex = locations[0]!.index;
    }
    if (k === 0) nameWordStart = locations.some((l) => !isWordBefore(text, l.index));
    fragments.push({ text, locations });
  }
  return {
    key: { field: firstField, wordStart: nameWordStart, index: firstIndex, nameLength: doc.name.length, name: doc.name, id: doc.id },
    fragments,
  };
}

/**
 * Rule 5: the locations of all terms in one field. `text` is the original value and
 * `folded` the same value folded (same length).
 */
export function locate(text: string, folded: string, terms: readonly string[]): Location[] {
  const all: Location[] = [];
  for (const term of terms) {
    if (term.length === 0) continue;
    let from = 0;
    for (;;) {
      const at = folded.indexOf(term, from);
      if (at < 0) break;
      let end = at + term.length;
      // Ends inside a word: the last code point of the occurrence and the next one are word characters.
      if (end < text.length && isWordBefore(text, end) && isWordAt(text, end)) {
        while (end < text.length && isWordAt(text, end)) end += codeUnitStep(text, end);
      }
      all.push({ index: at, length: end - at });
      from = end;
    }
  }
  if (all.length <= 1) return all;
  all.sort((a, b) => a.index - b.index || b.length - a.length);
  const kept: Location[] = [];
  let keptEnd = -1;
  for (const l of all) {
    if (l.index < keptEnd) continue;
    kept.push(l);
    keptEnd = l.index + l.length;
  }
  return kept;
}

function codeUnitStep(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}
