/**
 * Text search on the service (search.md). Candidates come from the NameIndex and the
 * interned make/model/mime values; a lower bound of each candidate's sort key (rule 7)
 * against the current k-th best prunes most of them without matching. The survivors
 * (visible to the user: never a root, never anything being deleted) go to `selectPage`
 * of app/search, which decides matches, order, fragments and the page token.
 *
 * No module-level state: the per-search "seen" marks belong to the NameIndex (newVisit).
 *
 * Tier 1: a name starting with a term has the best possible key prefix (name field, word
 * start, index 0), ordered by (name length, name, id). When tier 1 alone fills the page,
 * nothing else can beat it and the search stops there.
 */
import type { DocMatch, SearchDoc } from '../../app/search/match.js';
import { matchDoc } from '../../app/search/match.js';
import { isWordBefore } from '../../app/search/fold.js';
import { compareKeys, type SortKey } from '../../app/search/order.js';
import type { ParsedQuery } from '../../app/search/query.js';
import { selectPage, TopK, type Candidate } from '../../app/search/select.js';
import type { TreeIndex } from '../store/tree-index.js';
import { PERM } from '../store/tree-index.js';
import type { NameIndex } from '../store/name-index.js';
import { POSITIONS } from '../store/name-grams.js';

export interface SearchResult {
  items: { value: number; match: DocMatch }[];
  pageToken: string;
}

/** The candidate of a row: its searchable doc and folded fields, value = row. */
export function candidateOf(ix: TreeIndex, r: number): Candidate<number> {
  const mk = ix.makeId[r]!,
    md = ix.modelId[r]!,
    mi = ix.mimeId[r]!;
  const doc: SearchDoc = {
    id: ix.ids[r]!,
    name: ix.names[r]!,
    cameraMake: mk >= 0 ? ix.makes.values[mk] : undefined,
    cameraModel: md >= 0 ? ix.models.values[md] : undefined,
    mimeType: ix.mimes.values[mi]!,
  };
  const folded = [
    ix.fnames[r]!,
    mk >= 0 ? ix.makes.folded[mk] : undefined,
    md >= 0 ? ix.models.folded[md] : undefined,
    ix.mimes.folded[mi]!,
  ];
  return { doc, folded, value: r };
}

/** True when every folded term occurs in some folded field of the row (rule 4). */
export function rowMatches(ix: TreeIndex, r: number, terms: readonly string[]): boolean {
  const mk = ix.makeId[r]!,
    md = ix.modelId[r]!;
  const f0 = ix.fnames[r]!,
    f3 = ix.mimes.folded[ix.mimeId[r]!]!;
  const f1 = mk >= 0 ? ix.makes.folded[mk]! : '',
    f2 = md >= 0 ? ix.models.folded[md]! : '';
  for (const t of terms) {
    if (!(f0.includes(t) || f3.includes(t) || (f1 !== '' && f1.includes(t)) || (f2 !== '' && f2.includes(t)))) return false;
  }
  return true;
}

/** True when the user may see the row in search results (never a root, never an unfinished upload: content.md). */
export function searchable(ix: TreeIndex, userId: number, r: number): boolean {
  return !ix.isRoot(r) && !ix.isPartial(r) && ix.access(userId, r) >= PERM.ReadFile;
}

/** Above this many word-start entries, tier 2 costs more than the name scan. */
const TIER2_MAX = 150_000;

function hits(folded: readonly string[], t: string): { at: Int32Array; any: boolean } {
  const at = new Int32Array(folded.length);
  let any = false;
  for (let i = 0; i < folded.length; i++) {
    at[i] = folded[i]!.indexOf(t);
    if (at[i]! >= 0) any = true;
  }
  return { at, any };
}

/** One page of text search for a user. */
export function searchText(
  ix: TreeIndex,
  names: NameIndex,
  userId: number,
  query: ParsedQuery,
  limit: number,
  after: SortKey | null,
): SearchResult {
  const terms = [...new Set(query.folded)];
  const k = limit + 1;
  const top = new TopK<number>(k);
  const { stamps, now } = names.newVisit();
  const single = terms.length === 1;

  const consider = (r: number, lb: SortKey): void => {
    if (stamps[r] === now) return;
    const b = top.bound;
    if (b && compareKeys(lb, b) >= 0) return;
    stamps[r] = now;
    if (!ix.isAlive(r) || !rowMatches(ix, r, terms) || !searchable(ix, userId, r)) return;
    const c = candidateOf(ix, r);
    const m = matchDoc(c.doc, query, c.folded);
    if (!m || (after && compareKeys(m.key, after) <= 0)) return;
    top.push(m.key, r);
  };
  const key = (r: number, field: number, wordStart: boolean, index: number): SortKey => {
    const name = ix.names[r]!;
    return { field, wordStart, index, nameLength: name.length, name, id: ix.ids[r]! };
  };

  // Tier 1: names starting with a term, by name length; a group walked in key order stops
  // at the first row that cannot enter the page.
  const tier1 = (b: SortKey | undefined): boolean => b !== undefined && b.field === 0 && b.wordStart && b.index === 0;
  if (after === null || tier1(after)) {
    for (const t of terms) names.deltaPrefix(t, (r) => consider(r, key(r, 0, true, 0)));
    const minLen = after ? after.nameLength : 0;
    for (const len of names.lengths()) {
      if (len < minLen) continue;
      const b0 = top.bound;
      if (tier1(b0) && b0!.nameLength < len) break;
      for (const t of terms) {
        if (t.length > len) continue;
        names.prefixGroup(t, len, (r, ordered) => {
          const k1 = key(r, 0, true, 0);
          const b = top.bound;
          if (ordered && b && compareKeys(k1, b) >= 0) return false;
          consider(r, k1);
          return true;
        });
      }
    }
    if (top.size === k) return finish();
  }

  // General: every match holds the chosen term somewhere; prefer a term no make/model/mime holds.
  const fields = [ix.makes.folded, ix.models.folded, ix.mimes.folded];
  const scored = terms.map((t) => ({ t, h: fields.map((f) => hits(f, t)) }));
  scored.sort((a, b) => Number(a.h.some((x) => x.any)) - Number(b.h.some((x) => x.any)) || b.t.length - a.t.length);
  const { t: pivot, h } = scored[0]!;
  const fn = ix.fnames;
  // Tier 2 (one term): rows where the term occurs at a word start. Every row whose key has
  // wordStart = true is among them, so if the page fills with such keys, nothing else can beat it.
  if (single && (after === null || (after.field === 0 && after.wordStart))) {
    const bucket = names.wordStartBucket(pivot);
    if (bucket && bucket.n <= TIER2_MAX) {
      const gen = ix.gen;
      for (let i = 0; i < bucket.n; i++) {
        const r = bucket.rows[i]!;
        if (gen[r] !== bucket.gens[i] || stamps[r] === now) continue;
        const f = fn[r]!;
        const first = f.indexOf(pivot);
        if (first < 0) continue;
        let ws = false;
        for (let x = first; !ws && x >= 0; x = f.indexOf(pivot, x + 1)) ws = !isWordBefore(f, x);
        if (!ws) continue;
        const bd = top.bound;
        if (bd && bd.field === 0 && bd.wordStart && (first > bd.index || (first === bd.index && f.length > bd.nameLength))) continue;
        consider(r, key(r, 0, true, first));
      }
      const bd = top.bound;
      if (top.size === k && bd && bd.field === 0 && bd.wordStart) return finish();
    }
  }
  // Positions (one term of 2+ code units): rows whose first occurrence is at position p, for
  // p = 1, 2, ... (p = 0 is tier 1). Once position p is done, every row not seen has its first
  // occurrence after p, and (when tier 2 saw every word-start row) wordStart false.
  if (single && pivot.length >= 2) {
    const bucket2 = names.wordStartBucket(pivot);
    const wsAllSeen = !bucket2 || bucket2.n <= TIER2_MAX;
    const gen = ix.gen;
    for (let p = 1; p < POSITIONS; p++) {
      const b = names.positionBucket(pivot, p);
      if (b) {
        for (let i = 0; i < b.n; i++) {
          const r = b.rows[i]!;
          if (gen[r] !== b.gens[i] || stamps[r] === now) continue;
          const f = fn[r]!;
          if (!f.startsWith(pivot, p)) continue;
          const first = f.indexOf(pivot);
          let ws = false;
          for (let x = first; !ws && x >= 0; x = f.indexOf(pivot, x + 1)) ws = !isWordBefore(f, x);
          const bd = top.bound;
          if (
            bd &&
            bd.field === 0 &&
            ((bd.wordStart && !ws) || (bd.wordStart === ws && (first > bd.index || (first === bd.index && f.length > bd.nameLength))))
          )
            continue;
          consider(r, key(r, 0, ws, first));
        }
      }
      const bd = top.bound;
      if (top.size === k && bd && bd.field === 0 && ((bd.wordStart && bd.index <= p) || (wsAllSeen && (bd.wordStart || bd.index <= p))))
        return finish();
    }
  }
  if (single) {
    // The locations are a subset of the occurrences: "some occurrence starts a word" bounds
    // wordStart from above, and the first occurrence is the first location.
    names.scanSingle(
      pivot,
      () => top.bound,
      (r, ws, first) => consider(r, key(r, 0, ws, first)),
    );
  } else {
    names.substring(pivot, (r) => {
      const b = top.bound;
      if (b && b.field === 0 && b.wordStart && b.index === 0 && ix.names[r]!.length > b.nameLength) return;
      consider(r, key(r, 0, true, 0));
    });
  }
  const bound = top.bound;
  if (h.some((x) => x.any) && !(single && bound && bound.field === 0)) {
    const mk = h[0]!,
      md = h[1]!,
      mi = h[2]!;
    const valueHit = (r: number): [number, number] | undefined => {
      const a = ix.makeId[r]! >= 0 ? mk.at[ix.makeId[r]!]! : -1;
      if (a >= 0) return [1, a];
      const b = ix.modelId[r]! >= 0 ? md.at[ix.modelId[r]!]! : -1;
      if (b >= 0) return [2, b];
      const c = mi.at[ix.mimeId[r]!]!;
      return c >= 0 ? [3, c] : undefined;
    };
    if (!single) {
      for (let r = 1; r < ix.end; r++) {
        if (stamps[r] === now || !ix.isAlive(r) || !valueHit(r)) continue;
        consider(r, key(r, 0, true, 0));
      }
    } else {
      // A row whose name lacks the term sorts by (first field with a hit, index there), then
      // exactly in tier-1 order (length, name, id): walk each hit value's rows in that order
      // and stop a walk once its class cannot enter the page.
      const fieldHits = [mk, md, mi];
      const visitRow = (r: number, f: number, idx: number): void => {
        if (stamps[r] === now || !ix.isAlive(r)) return;
        const hit = valueHit(r);
        if (!hit || hit[0] !== f || fn[r]!.includes(pivot)) return; // another list, or the name scan, covers it
        const bd = top.bound;
        if (
          bd &&
          (bd.field < f ||
            (bd.field === f && (bd.wordStart || idx > bd.index || (idx === bd.index && ix.names[r]!.length > bd.nameLength))))
        )
          return;
        consider(r, key(r, f, false, idx));
      };
      for (let fi = 0; fi < 3; fi++) {
        const at = fieldHits[fi]!.at;
        for (let v = 0; v < at.length; v++) {
          const idx = at[v]!;
          if (idx < 0) continue;
          const f = fi + 1;
          names.walkValue(fi, v, (r) => {
            const bd = top.bound;
            if (bd) {
              const len = ix.names[r]!.length;
              if (bd.field < f || (bd.field === f && (bd.wordStart || idx > bd.index || (idx === bd.index && len > bd.nameLength))))
                return false;
              if (bd.field === f && idx === bd.index && len === bd.nameLength && compareKeys(key(r, f, false, idx), bd) >= 0) return false;
            }
            visitRow(r, f, idx);
            return true;
          });
        }
      }
      names.deltaRows((r) => {
        const hit = valueHit(r);
        if (hit) visitRow(r, hit[0], hit[1]);
      });
    }
  }
  return finish();

  function finish(): SearchResult {
    return selectPage(
      top.sorted().map((e) => candidateOf(ix, e.value)),
      query,
      limit,
      after,
    );
  }
}
