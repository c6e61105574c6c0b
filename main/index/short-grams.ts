/**
 * First-page lists for terms of 1-2 code units. For every frequent unigram and bigram of
 * the folded names, and for the infrequent ones within a budget (rarest first): the `top`
 * objects with the smallest OCCURRENCE key, i.e. (some occurrence starts a word first, then
 * the first occurrence's index, then object number, which is result order within those). An
 * object's true key (app/search) is never before its occurrence key (its locations are some
 * of the occurrences), so when the (limit+1)-th best true key among a list's objects is
 * before the occurrence key of the list's last entry, no object outside the list can enter
 * the page: the page is proven from `top` objects instead of a visit of every name holding
 * the term.
 */

/** Objects kept per unigram / bigram. */
export const SHORT_TOP = 128;
/**
 * List entries allowed for infrequent grams: max(65536, n/8) (512 KB at 1M objects). The
 * demo library at 1M needs 35k; a library of many distinct scripts keeps its rarest grams
 * (most grams per entry) and the others fall back to the blob scan.
 */
export const shortRareBudget = (n: number): number => Math.max(65536, Math.floor(n / 8));
/** First occurrence indexes are clamped here (a list ending there proves nothing). */
export const SHORT_MAX_FIRST = 0x3ffff;

/** Unigram c -> c; bigram (c0, c1) -> c0 * 65536 + c1 (c0 is never 0: names hold no NUL). */
export const shortKey = (t: string): number => (t.length === 1 ? t.charCodeAt(0) : t.charCodeAt(0) * 65536 + t.charCodeAt(1));

export interface ShortLists {
  shortTop: number;
  /** 1 when every gram of the names has a list (none over the budget): a gram without one is in no name. */
  shortAll: number;
  shortKeys: Uint32Array;
  /** Per key k: shortList[shortStart[k], shortStart[k+1]) in occurrence-key order. */
  shortStart: Uint32Array;
  shortList: Uint32Array;
}

const WS_LAST = 2 ** 51;
const FIRST_UNIT = 2 ** 32;

/**
 * One pass over the names (in number order): counts, and the best `top` entries per gram.
 * `wsAt`: the word-start flags of the blob (name-blob.ts).
 */
export function buildShortLists(
  blob: string,
  starts: Uint32Array,
  wsAt: Uint8Array,
  n: number,
  freqMin: number,
  top = SHORT_TOP,
  rareBudget = shortRareBudget(n),
): ShortLists {
  const grams = new GramSlots();
  let longest = 0;
  for (let o = 0; o < n; o++) longest = Math.max(longest, starts[o + 1]! - starts[o]!);
  const touched = new Uint32Array(2 * longest);
  for (let o = 0; o < n; o++) {
    const t = grams.scanName(blob, wsAt, starts[o]!, starts[o + 1]! - 1, o + 1, touched);
    grams.offer(touched, t, o, top);
  }
  const kept: number[] = [];
  const all = keepGrams(grams, kept, freqMin, top, rareBudget);
  return listsOf(grams, kept, top, all);
}

const ascending = (a: number, b: number): number => a - b;

/** The grams of the names by slot: each one's key, objects counted, and its candidate entries (best `top` kept). */
class GramSlots {
  readonly keys: number[] = [];
  /** Per slot: the packed occurrence keys of its best objects so far (sorted and cut at 2 * top). */
  readonly cand: number[][] = [];
  // slots: unigrams and ASCII bigrams by a dense table, other bigrams by a Map
  private readonly dense = new Int32Array(65536 + 128 * 128).fill(-1);
  private readonly sparse = new Map<number, number>();
  private cap = 4096;
  /** Per slot: the objects holding the gram. */
  count = new Uint32Array(this.cap);
  private stamp = new Uint32Array(this.cap);
  private first = new Uint32Array(this.cap);
  private wsf = new Uint8Array(this.cap);
  private thr = new Float64Array(this.cap).fill(Infinity);
  // closed: the kept entries all start a word at index 0, so no later object can enter
  private closed = new Uint8Array(this.cap);

  /**
   * Marks the grams of the name blob[s, e) as held by the object stamped `stampO` (its number
   * + 1): counts each once, notes its first index and whether some occurrence starts a word.
   * Lists the slots to offer the object to in `touched`; returns how many.
   */
  scanName(blob: string, wsAt: Uint8Array, s: number, e: number, stampO: number, touched: Uint32Array): number {
    let t = 0;
    let c = blob.charCodeAt(s);
    for (let i = s; i < e; i++) {
      const p = i - s;
      const ws = wsAt[i] === 1;
      let x = this.dense[c]!;
      if (x < 0) this.dense[c] = x = this.newSlot(c);
      t = this.mark(x, p, ws, stampO, touched, t);
      if (i + 1 < e) {
        const c2 = blob.charCodeAt(i + 1);
        t = this.mark(this.bigramSlot(c, c2), p, ws, stampO, touched, t);
        c = c2;
      }
    }
    return t;
  }

  /** Offers object o to the lists of the slots in touched[0, t): kept while among the best `top` of each. */
  offer(touched: Uint32Array, t: number, o: number, top: number): void {
    for (let j = 0; j < t; j++) {
      const x = touched[j]!;
      const packed = (this.wsf[x] ? 0 : WS_LAST) + Math.min(this.first[x]!, SHORT_MAX_FIRST) * FIRST_UNIT + o;
      if (packed >= this.thr[x]!) continue;
      const arr = this.cand[x]!;
      arr.push(packed);
      if (arr.length >= 2 * top) {
        arr.sort(ascending);
        arr.length = top;
        this.thr[x] = arr[top - 1]!;
        if (this.thr[x]! < FIRST_UNIT) this.closed[x] = 1;
      }
    }
  }

  /** Slot x met at index p of the object stamped `stampO`: counted and listed in `touched` at its first occurrence. */
  private mark(x: number, p: number, ws: boolean, stampO: number, touched: Uint32Array, t: number): number {
    if (this.stamp[x] !== stampO) {
      this.stamp[x] = stampO;
      this.count[x]!++;
      if (!this.closed[x]) {
        this.first[x] = p;
        this.wsf[x] = ws ? 1 : 0;
        touched[t++] = x;
      }
    } else if (ws) this.wsf[x] = 1;
    return t;
  }

  /** The slot of bigram (c, c2), created when new. */
  private bigramSlot(c: number, c2: number): number {
    const key = c * 65536 + c2;
    if (c < 128 && c2 < 128) {
      const x = this.dense[65536 + c * 128 + c2]!;
      if (x >= 0) return x;
      return (this.dense[65536 + c * 128 + c2] = this.newSlot(key));
    }
    const y = this.sparse.get(key);
    if (y !== undefined) return y;
    const x = this.newSlot(key);
    this.sparse.set(key, x);
    return x;
  }

  /** A new slot for `key`, the per-slot arrays grown when full. */
  private newSlot(key: number): number {
    const x = this.keys.length;
    this.keys.push(key);
    this.cand.push([]);
    if (x >= this.cap) {
      this.cap *= 2;
      const g = <A extends Uint32Array | Uint8Array | Float64Array>(a: A, b: A): A => {
        b.set(a as never);
        return b;
      };
      this.count = g(this.count, new Uint32Array(this.cap));
      this.stamp = g(this.stamp, new Uint32Array(this.cap));
      this.first = g(this.first, new Uint32Array(this.cap));
      this.wsf = g(this.wsf, new Uint8Array(this.cap));
      this.thr = g(this.thr, new Float64Array(this.cap).fill(Infinity));
      this.closed = g(this.closed, new Uint8Array(this.cap));
    }
    return x;
  }
}

/**
 * Fills `kept` with the slots that get a list: every frequent gram, then the infrequent ones,
 * rarest first, while their entries fit the budget. True when every gram got one.
 */
function keepGrams(grams: GramSlots, kept: number[], freqMin: number, top: number, rareBudget: number): boolean {
  const { count, keys } = grams;
  const rare: number[] = [];
  for (let x = 0; x < keys.length; x++) (count[x]! >= freqMin ? kept : rare).push(x);
  // infrequent grams, rarest first, while their entries fit the budget
  rare.sort((a, b) => count[a]! - count[b]!);
  let spent = 0,
    r = 0;
  for (; r < rare.length && spent + Math.min(count[rare[r]!]!, top) <= rareBudget; r++) {
    spent += Math.min(count[rare[r]!]!, top);
    kept.push(rare[r]!);
  }
  return r === rare.length;
}

/** The lists of the kept slots, by key, each its best `top` objects in occurrence-key order. */
function listsOf(grams: GramSlots, kept: number[], top: number, all: boolean): ShortLists {
  const { keys, cand } = grams;
  kept.sort((a, b) => keys[a]! - keys[b]!);
  const shortKeys = new Uint32Array(kept.length);
  const shortStart = new Uint32Array(kept.length + 1);
  const lists: number[][] = [];
  kept.forEach((x, k) => {
    const arr = cand[x]!.sort(ascending).slice(0, top);
    shortKeys[k] = keys[x]!;
    shortStart[k + 1] = shortStart[k]! + arr.length;
    lists.push(arr);
  });
  const shortList = new Uint32Array(shortStart[kept.length]!);
  lists.forEach((arr, k) => {
    for (let j = 0; j < arr.length; j++) shortList[shortStart[k]! + j] = arr[j]! % FIRST_UNIT;
  });
  return { shortTop: top, shortAll: all ? 1 : 0, shortKeys, shortStart, shortList };
}
