/**
 * The library's distinct words with their use counts, kept sorted (UTF-16 code unit order, as
 * `<` compares), for completion and corrections:
 * - the words starting with a prefix are one range, found by binary search;
 * - the words within an edit distance of a query are found by walking the sorted list as the
 *   trie it spells: the rows of the Levenshtein matrix are shared along common prefixes, and
 *   every word under a prefix is skipped at once when no word below it can come within the
 *   distance (the walk minisearch's radix tree does, on an array).
 *
 * Why not minisearch here: one minisearch document per word held ~1.1 KB a word (at 1M
 * objects, 200k words, 223 MB) and took 1.2 s to load; its radix tree alone 270 bytes a word
 * (55 MB). This list holds ~45 bytes a word (9 MB) and loads in ~0.1 s (s35). The tests
 * compare its answers with minisearch's own tree on random words.
 *
 * New words go to a small second sorted list, merged into the main one (dropping the words
 * no object uses any more) once either has grown by MERGE_AT.
 */

/** Words added (or gone) since the last merge before the lists are merged again. */
export const MERGE_AT = 4096;

/** The first index in `words` (sorted) whose word is not below `w`. */
function lowerBound(words: readonly string[], w: string, from = 0): number {
  let lo = from;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]! < w) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index after `i` whose word does not start with `prefix` (words[i] does; the ones that do are contiguous). */
function pastPrefix(words: readonly string[], i: number, prefix: string): number {
  let lo = i + 1;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Calls `found(word, distance)` for every word of `words` (sorted) within `d` edits
 * (insertions, deletions, substitutions) of `q`.
 */
function walkWithin(words: readonly string[], q: string, d: number, found: (w: string, distance: number) => void): void {
  const n = q.length + 1;
  // row r holds the distances from the word's first r characters to each prefix of q; a row
  // past q.length + d has no entry within d, so no more rows are ever needed
  const rows = new Uint16Array((q.length + d + 2) * n);
  for (let j = 0; j < n; j++) rows[j] = j;
  let prev = '';
  /** rows 0..valid hold the matrix of prev's first `valid` characters */
  let valid = 0;
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    let r = 0;
    const same = Math.min(valid, w.length);
    while (r < same && w.charCodeAt(r) === prev.charCodeAt(r)) r++;
    let cut = 0;
    for (r = r + 1; r <= w.length; r++) {
      const c = w.charCodeAt(r - 1);
      const at = r * n;
      const above = at - n;
      rows[at] = r;
      let min = r;
      for (let j = 1; j < n; j++) {
        const sub = rows[above + j - 1]! + (c === q.charCodeAt(j - 1) ? 0 : 1);
        const del = rows[above + j]! + 1;
        const ins = rows[at + j - 1]! + 1;
        const v = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
        rows[at + j] = v;
        if (v < min) min = v;
      }
      if (min > d) {
        cut = r;
        break;
      }
    }
    prev = w;
    if (cut > 0) {
      // no word starting with w's first `cut` characters comes within d
      valid = cut;
      i = pastPrefix(words, i, w.slice(0, cut));
      continue;
    }
    valid = w.length;
    const distance = rows[w.length * n + n - 1]!;
    if (distance <= d) found(w, distance);
    i++;
  }
}

export class WordList {
  /** Sorted; may hold words no object uses any more (count 0, absent from `counts`) until the next merge. */
  private main: string[];
  /** Sorted; words added since the last merge. */
  private fresh: string[] = [];
  private readonly counts: Map<string, number>;
  /** Words in `main` whose count fell to 0 since the last merge. */
  private gone = 0;

  /** `words` sorted and distinct, `counts[i]` the uses of `words[i]` (each above 0). */
  constructor(words: string[] = [], counts: readonly number[] = []) {
    this.main = words;
    this.counts = new Map();
    for (let i = 0; i < words.length; i++) this.counts.set(words[i]!, counts[i]!);
  }

  /** From words and counts in any order. */
  static fromCounts(counts: ReadonlyMap<string, number>): WordList {
    const words = [...counts.keys()].sort();
    return new WordList(
      words,
      words.map((w) => counts.get(w)!),
    );
  }

  get size(): number {
    return this.counts.size;
  }

  /** How many uses `w` has (0: not a word of the library). */
  count(w: string): number {
    return this.counts.get(w) ?? 0;
  }

  add(w: string): void {
    const n = this.counts.get(w);
    this.counts.set(w, (n ?? 0) + 1);
    if (n !== undefined) return;
    const at = lowerBound(this.main, w);
    if (this.main[at] === w) {
      this.gone--; // back in use before a merge dropped it
      return;
    }
    const f = lowerBound(this.fresh, w);
    if (this.fresh[f] !== w) this.fresh.splice(f, 0, w);
    if (this.fresh.length >= MERGE_AT) this.merge();
  }

  remove(w: string): void {
    const n = this.counts.get(w);
    if (n === undefined) return;
    if (n > 1) {
      this.counts.set(w, n - 1);
      return;
    }
    this.counts.delete(w);
    const f = lowerBound(this.fresh, w);
    if (this.fresh[f] === w) this.fresh.splice(f, 1);
    else if (++this.gone >= MERGE_AT) this.merge();
  }

  /** The words in use, sorted, with their counts (the saved form). */
  toSorted(): { words: string[]; counts: number[] } {
    this.merge();
    return { words: this.main.slice(), counts: this.main.map((w) => this.counts.get(w)!) };
  }

  /** Every word in use that starts with `prefix` (`prefix` itself included when it is one), in order. */
  *withPrefix(prefix: string): Generator<string> {
    for (const list of [this.main, this.fresh]) {
      for (let i = lowerBound(list, prefix); i < list.length && list[i]!.startsWith(prefix); i++) {
        if (this.counts.has(list[i]!)) yield list[i]!;
      }
    }
  }

  /** Every word in use within `d` edits of `q`, with its distance. */
  within(q: string, d: number): Map<string, number> {
    const out = new Map<string, number>();
    const keep = (w: string, distance: number): void => {
      if (this.counts.has(w)) out.set(w, distance);
    };
    walkWithin(this.main, q, d, keep);
    walkWithin(this.fresh, q, d, keep);
    return out;
  }

  /** One sorted list of the words in use. */
  private merge(): void {
    if (this.fresh.length === 0 && this.gone === 0) return;
    const a = this.main;
    const b = this.fresh;
    const out: string[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      const w = j >= b.length || (i < a.length && a[i]! < b[j]!) ? a[i++]! : b[j++]!;
      if (this.counts.has(w)) out.push(w);
    }
    this.main = out;
    this.fresh = [];
    this.gone = 0;
  }
}
