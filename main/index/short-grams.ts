/**
 * First-page lists for terms of 1-2 code units. For every frequent unigram and bigram of
 * the folded names, and for the infrequent ones within a budget (rarest first): the `top` objects with the smallest OCCURRENCE key, i.e. (some
 * occurrence starts a word first, then the first occurrence's index, then object number,
 * which is result order within those). An object's true key (app/search) is never before
 * its occurrence key (its locations are some of the occurrences), so when the (limit+1)-th
 * best true key among a list's objects is before the occurrence key of the list's last
 * entry, no object outside the list can enter the page: the page is proven from `top`
 * objects instead of a visit of every name holding the term.
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
  // slots: unigrams and ASCII bigrams by a dense table, other bigrams by a Map
  const dense = new Int32Array(65536 + 128 * 128).fill(-1);
  const sparse = new Map<number, number>();
  let cap = 4096;
  let count = new Uint32Array(cap),
    stamp = new Uint32Array(cap),
    first = new Uint32Array(cap);
  let wsf = new Uint8Array(cap);
  let thr = new Float64Array(cap).fill(Infinity);
  // closed: the kept entries all start a word at index 0, so no later object can enter
  let closed = new Uint8Array(cap);
  const cand: number[][] = [];
  const keys: number[] = [];
  const newSlot = (key: number): number => {
    const x = keys.length;
    keys.push(key);
    cand.push([]);
    if (x >= cap) {
      cap *= 2;
      const g = <A extends Uint32Array | Uint8Array | Float64Array>(a: A, b: A): A => {
        b.set(a as never);
        return b;
      };
      count = g(count, new Uint32Array(cap));
      stamp = g(stamp, new Uint32Array(cap));
      first = g(first, new Uint32Array(cap));
      wsf = g(wsf, new Uint8Array(cap));
      thr = g(thr, new Float64Array(cap).fill(Infinity));
      closed = g(closed, new Uint8Array(cap));
    }
    return x;
  };
  let longest = 0;
  for (let o = 0; o < n; o++) longest = Math.max(longest, starts[o + 1]! - starts[o]!);
  const touched = new Uint32Array(2 * longest);
  for (let o = 0; o < n; o++) {
    const s = starts[o]!,
      e = starts[o + 1]! - 1;
    const stampO = o + 1;
    let t = 0;
    let c = blob.charCodeAt(s);
    for (let i = s; i < e; i++) {
      const p = i - s;
      const ws = wsAt[i] === 1;
      let x = dense[c]!;
      if (x < 0) dense[c] = x = newSlot(c);
      if (stamp[x] !== stampO) {
        stamp[x] = stampO;
        count[x]!++;
        if (!closed[x]) {
          first[x] = p;
          wsf[x] = ws ? 1 : 0;
          touched[t++] = x;
        }
      } else if (ws) wsf[x] = 1;
      if (i + 1 < e) {
        const c2 = blob.charCodeAt(i + 1);
        const key = c * 65536 + c2;
        if (c < 128 && c2 < 128) {
          x = dense[65536 + c * 128 + c2]!;
          if (x < 0) dense[65536 + c * 128 + c2] = x = newSlot(key);
        } else {
          const y = sparse.get(key);
          if (y === undefined) sparse.set(key, (x = newSlot(key)));
          else x = y;
        }
        if (stamp[x] !== stampO) {
          stamp[x] = stampO;
          count[x]!++;
          if (!closed[x]) {
            first[x] = p;
            wsf[x] = ws ? 1 : 0;
            touched[t++] = x;
          }
        } else if (ws) wsf[x] = 1;
        c = c2;
      }
    }
    for (let j = 0; j < t; j++) {
      const x = touched[j]!;
      const packed = (wsf[x] ? 0 : WS_LAST) + Math.min(first[x]!, SHORT_MAX_FIRST) * FIRST_UNIT + o;
      if (packed >= thr[x]!) continue;
      const arr = cand[x]!;
      arr.push(packed);
      if (arr.length >= 2 * top) {
        arr.sort((a, b) => a - b);
        arr.length = top;
        thr[x] = arr[top - 1]!;
        if (thr[x]! < FIRST_UNIT) closed[x] = 1;
      }
    }
  }
  const kept: number[] = [];
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
  kept.sort((a, b) => keys[a]! - keys[b]!);
  const shortKeys = new Uint32Array(kept.length);
  const shortStart = new Uint32Array(kept.length + 1);
  const lists: number[][] = [];
  kept.forEach((x, k) => {
    const arr = cand[x]!.sort((a, b) => a - b).slice(0, top);
    shortKeys[k] = keys[x]!;
    shortStart[k + 1] = shortStart[k]! + arr.length;
    lists.push(arr);
  });
  const shortList = new Uint32Array(shortStart[kept.length]!);
  lists.forEach((arr, k) => {
    for (let j = 0; j < arr.length; j++) shortList[shortStart[k]! + j] = arr[j]! % FIRST_UNIT;
  });
  return { shortTop: top, shortAll: r === rare.length ? 1 : 0, shortKeys, shortStart, shortList };
}
