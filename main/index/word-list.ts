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
 * (55 MB). This list holds its strings, an array of them and a count each (~8 MB at 200k
 * words, no Map: a count is a binary search away) and loads in ~0.1 s (s35). The tests
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
 * Calls `found(index, distance)` for every word of `words` (sorted) within `d` edits
 * (insertions, deletions, substitutions) of `q`.
 */
function walkWithin(words: readonly string[], q: string, d: number, found: (i: number, distance: number) => void): void {
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
    if (distance <= d) found(i, distance);
    i++;
  }
}

export class WordList {
  /** Sorted; may hold words no object uses any more (count 0) until the next merge. */
  private main: string[];
  /** The uses of each word of `main` (no Map over 200k words: a lookup is a binary search). */
  private mainCounts: Uint32Array;
  /** Words not in `main`, sorted, and their uses (each above 0). */
  private fresh: string[] = [];
  private readonly freshCounts = new Map<string, number>();
  /** Words of `main` whose count fell to 0 since the last merge. */
  private gone = 0;
  private live: number;

  /** `words` sorted and distinct, `counts[i]` the uses of `words[i]` (each above 0). */
  constructor(words: string[] = [], counts: ArrayLike<number> = []) {
    this.main = words;
    this.mainCounts = Uint32Array.from(counts);
    this.live = words.length;
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
    return this.live;
  }

  /** The index of `w` in `main`, or -1. */
  private inMain(w: string): number {
    const i = lowerBound(this.main, w);
    return this.main[i] === w ? i : -1;
  }

  /** How many uses `w` has (0: not a word of the library). */
  count(w: string): number {
    const i = this.inMain(w);
    return i >= 0 ? this.mainCounts[i]! : (this.freshCounts.get(w) ?? 0);
  }

  add(w: string): void {
    const i = this.inMain(w);
    if (i >= 0) {
      if (this.mainCounts[i]! === 0) {
        this.gone--; // back in use before a merge dropped it
        this.live++;
      }
      this.mainCounts[i]!++;
      return;
    }
    const n = this.freshCounts.get(w);
    this.freshCounts.set(w, (n ?? 0) + 1);
    if (n !== undefined) return;
    this.live++;
    this.fresh.splice(lowerBound(this.fresh, w), 0, w);
    if (this.fresh.length >= MERGE_AT) this.merge();
  }

  remove(w: string): void {
    const i = this.inMain(w);
    if (i >= 0) {
      if (this.mainCounts[i]! === 0) return;
      this.mainCounts[i]!--;
      if (this.mainCounts[i]! === 0) {
        this.live--;
        if (++this.gone >= MERGE_AT) this.merge();
      }
      return;
    }
    const n = this.freshCounts.get(w);
    if (n === undefined) return;
    if (n > 1) {
      this.freshCounts.set(w, n - 1);
      return;
    }
    this.freshCounts.delete(w);
    this.fresh.splice(lowerBound(this.fresh, w), 1);
    this.live--;
  }

  /** The words in use, sorted, with their counts (the saved form). */
  toSorted(): { words: string[]; counts: number[] } {
    this.merge();
    return { words: this.main.slice(), counts: Array.from(this.mainCounts) };
  }

  /** Every word in use that starts with `prefix` (`prefix` itself included when it is one), in order. */
  *withPrefix(prefix: string): Generator<string> {
    const { main, fresh } = this;
    for (let i = lowerBound(main, prefix); i < main.length && main[i]!.startsWith(prefix); i++) if (this.mainCounts[i]! > 0) yield main[i]!;
    for (let i = lowerBound(fresh, prefix); i < fresh.length && fresh[i]!.startsWith(prefix); i++) yield fresh[i]!;
  }

  /** Every word in use within `d` edits of `q`, with its distance. */
  within(q: string, d: number): Map<string, number> {
    const out = new Map<string, number>();
    walkWithin(this.main, q, d, (i, distance) => {
      if (this.mainCounts[i]! > 0) out.set(this.main[i]!, distance);
    });
    walkWithin(this.fresh, q, d, (i, distance) => out.set(this.fresh[i]!, distance));
    return out;
  }

  /** One sorted list of the words in use. */
  private merge(): void {
    if (this.fresh.length === 0 && this.gone === 0) return;
    const a = this.main;
    const b = this.fresh;
    const words: string[] = [];
    const counts: number[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (j >= b.length || (i < a.length && a[i]! < b[j]!)) {
        const n = this.mainCounts[i]!;
        if (n > 0) {
          words.push(a[i]!);
          counts.push(n);
        }
        i++;
      } else {
        words.push(b[j]!);
        counts.push(this.freshCounts.get(b[j]!)!);
        j++;
      }
    }
    this.main = words;
    this.mainCounts = Uint32Array.from(counts);
    this.fresh = [];
    this.freshCounts.clear();
    this.gone = 0;
  }
}
