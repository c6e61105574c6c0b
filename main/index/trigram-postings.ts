/**
 * The trigram postings of the offline index, built from the folded-name blob in three
 * passes over its positions, each looking the trigram up again (a direct table for ASCII
 * trigrams, open addressing for the rest) instead of keeping a (slot, position, word start)
 * record per pair: those records were ~110 MB of typed arrays at 1M objects, and V8 marks
 * the whole heap for every 64 MB of new external memory. Pass 1 counts the objects per
 * trigram; pass 2 fills the infrequent lists (number order) and counts the frequent ones'
 * objects per first position; pass 3 places the frequent ones in (first position, number) order.
 */

export interface TrigramPostings {
  /** Trigram keys (c0*2^32 + c1*2^16 + c2) per slot. */
  triKeys: Float64Array;
  /** Postings by object number, for the infrequent trigrams only (frequent ones: empty range). */
  triStart: Uint32Array;
  triList: Uint32Array;
  /**
   * Frequent trigrams (in at least `FREQUENT` objects): every object holding it, sorted by
   * (first position of the trigram in the name, clamped to 255; number) with that position
   * alongside, so a search can visit objects in order of where their first match can be.
   */
  freqStart: Uint32Array;
  freqList: Uint32Array;
  freqPos: Uint8Array;
  /** Frequent trigrams: the objects holding it at a word start, in the same order. */
  wsStart: Uint32Array;
  wsList: Uint32Array;
  wsPos: Uint8Array;
}

/** Open addressing from a non-ASCII trigram to its slot; integer-only hashing (Map on doubles is slow). */
class TrigramTable {
  private cap = 1 << 12;
  private keys = new Float64Array(this.cap).fill(-1);
  private slots = new Int32Array(this.cap);
  private size = 0;
  private static hash(a: number, b: number, c: number): number {
    return Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35);
  }
  /** The slot of trigram key k = (a, b, c), or -1. */
  find(a: number, b: number, c: number, k: number): number {
    for (let h = TrigramTable.hash(a, b, c) & (this.cap - 1); ; h = (h + 1) & (this.cap - 1)) {
      const x = this.keys[h]!;
      if (x === k) return this.slots[h]!;
      if (x === -1) return -1;
    }
  }
  insert(a: number, b: number, c: number, k: number, slot: number): void {
    if ((this.size + 1) * 2 > this.cap) this.grow();
    let h = TrigramTable.hash(a, b, c) & (this.cap - 1);
    while (this.keys[h] !== -1) h = (h + 1) & (this.cap - 1);
    this.keys[h] = k;
    this.slots[h] = slot;
    this.size++;
  }
  private grow(): void {
    const oldK = this.keys,
      oldS = this.slots;
    this.cap *= 2;
    this.keys = new Float64Array(this.cap).fill(-1);
    this.slots = new Int32Array(this.cap);
    this.size = 0;
    for (let i = 0; i < oldK.length; i++) {
      const k = oldK[i]!;
      if (k !== -1) this.insert(Math.floor(k / 4294967296), Math.floor(k / 65536) & 0xffff, k % 65536, k, oldS[i]!);
    }
  }
}

/** Trigram slots: ASCII trigrams by a direct table (2^21 entries), others by a hash table. */
class TrigramSlots {
  readonly keys: number[] = [];
  private readonly ascii = new Int32Array(1 << 21).fill(-1);
  private readonly other = new TrigramTable();
  /** The slot of (a, b, c), created when new. */
  slotOf(a: number, b: number, c: number): number {
    if ((a | b | c) < 128) {
      const i = (a << 14) | (b << 7) | c;
      const x = this.ascii[i]!;
      if (x >= 0) return x;
      this.ascii[i] = this.keys.length;
    } else {
      const k = a * 4294967296 + b * 65536 + c;
      const x = this.other.find(a, b, c, k);
      if (x >= 0) return x;
      this.other.insert(a, b, c, k, this.keys.length);
    }
    this.keys.push(a * 4294967296 + b * 65536 + c);
    return this.keys.length - 1;
  }
}

/** The postings of the names' trigrams; `freqMin`: objects for a frequent trigram (positional lists). */
export function buildTrigramPostings(blob: string, starts: Uint32Array, wsAt: Uint8Array, n: number, freqMin: number): TrigramPostings {
  const names: Names = { blob, starts, wsAt, n };
  const slots = new TrigramSlots();
  const { counts, last } = countObjects(names, slots);
  const build = layoutOf(slots.keys.length, counts, last, freqMin);
  // pass 2 counts (infrequent lists, frequent objects per first position), pass 3 places
  visitPass(names, slots, build, 2);
  placeStarts(build);
  visitPass(names, slots, build, 3);
  const { triStart, triList, freqStart, freqList, freqPos, wsStart, wsList, wsPos } = build;
  return { triKeys: Float64Array.from(slots.keys), triStart, triList, freqStart, freqList, freqPos, wsStart, wsList, wsPos };
}

/** The folded names in number order (name-blob.ts): blob[starts[o], starts[o+1]-1) is name o. */
interface Names {
  blob: string;
  starts: Uint32Array;
  wsAt: Uint8Array;
  n: number;
}

/** Pass 1: objects per trigram slot, and the per-slot stamps the later passes go on using. */
function countObjects(names: Names, slots: TrigramSlots): { counts: Uint32Array; last: Uint32Array } {
  const { blob, starts, n } = names;
  let counts: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 12);
  let last: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 12);
  for (let o = 0; o < n; o++) {
    const s = starts[o]!,
      e = starts[o + 1]! - 1;
    let a = blob.charCodeAt(s),
      b = blob.charCodeAt(s + 1);
    for (let i = s; i + 3 <= e; i++) {
      const c = blob.charCodeAt(i + 2);
      const slot = slots.slotOf(a, b, c);
      a = b;
      b = c;
      if (slot >= counts.length) {
        counts = grown(counts);
        last = grown(last);
      }
      if (last[slot] === o + 1) continue;
      last[slot] = o + 1;
      counts[slot]!++;
    }
  }
  return { counts, last };
}

/** The postings under construction: the lists, their starts, and the counts and fill points of passes 2 and 3. */
interface PostingsBuild {
  /** Trigram slots. */
  k: number;
  /** Per slot: the last object (stamped) that held it in this pass. */
  last: Uint32Array;
  isFreq: Uint8Array;
  triStart: Uint32Array;
  triList: Uint32Array;
  /** Where each infrequent slot's list is filled next. */
  fill: Uint32Array;
  freqStart: Uint32Array;
  /** Per frequent slot: its number among the frequent ones (-1: infrequent). */
  freqSlot: Int32Array;
  // per frequent trigram and first position (clamped to 255): objects, and those with a word start
  posCount: Uint32Array;
  wsPosCount: Uint32Array;
  /** Per slot, for the object being visited: the first position, and whether an occurrence starts a word. */
  first: Uint8Array;
  wsAny: Uint8Array;
  touched: Uint32Array;
  wsStart: Uint32Array;
  posFill: Uint32Array;
  wsFill: Uint32Array;
  freqList: Uint32Array;
  freqPos: Uint8Array;
  wsList: Uint32Array;
  wsPos: Uint8Array;
}

/** Which slots are frequent, the infrequent lists' starts, and the arrays passes 2 and 3 fill. */
function layoutOf(k: number, counts: Uint32Array, last: Uint32Array, freqMin: number): PostingsBuild {
  const isFreq = new Uint8Array(k);
  const triStart = new Uint32Array(k + 1);
  const freqStart = new Uint32Array(k + 1);
  for (let x = 0; x < k; x++) {
    isFreq[x] = counts[x]! >= freqMin ? 1 : 0;
    triStart[x + 1] = triStart[x]! + (isFreq[x] ? 0 : counts[x]!);
    freqStart[x + 1] = freqStart[x]! + (isFreq[x] ? counts[x]! : 0);
  }
  const triList = new Uint32Array(triStart[k]!);
  const fill = triStart.slice(0, k);
  const freqSlot = new Int32Array(k).fill(-1);
  let nf = 0;
  for (let x = 0; x < k; x++) if (isFreq[x]) freqSlot[x] = nf++;
  return {
    k,
    last,
    isFreq,
    triStart,
    triList,
    fill,
    freqStart,
    freqSlot,
    posCount: new Uint32Array(nf * 256),
    wsPosCount: new Uint32Array(nf * 256),
    first: new Uint8Array(k),
    wsAny: new Uint8Array(k),
    touched: new Uint32Array(k),
    wsStart: new Uint32Array(k + 1),
    posFill: new Uint32Array(nf * 256),
    wsFill: new Uint32Array(nf * 256),
    freqList: new Uint32Array(0),
    freqPos: new Uint8Array(0),
    wsList: new Uint32Array(0),
    wsPos: new Uint8Array(0),
  };
}

/**
 * Pass 2 or 3 over the names. Pass 2 fills the infrequent lists (number order) and counts the
 * frequent trigrams' objects per first position; pass 3 places the frequent ones.
 */
function visitPass(names: Names, slots: TrigramSlots, build: PostingsBuild, pass: 2 | 3): void {
  const { blob, starts, wsAt, n } = names;
  const { last, isFreq, triList, fill, first, wsAny, touched } = build;
  const stamp = (pass - 1) * n;
  for (let o = 0; o < n; o++) {
    const s = starts[o]!,
      e = starts[o + 1]! - 1;
    let a = blob.charCodeAt(s),
      b = blob.charCodeAt(s + 1);
    let t = 0;
    for (let i = s; i + 3 <= e; i++) {
      const c = blob.charCodeAt(i + 2);
      const x = slots.slotOf(a, b, c);
      a = b;
      b = c;
      if (last[x] !== stamp + o + 1) {
        last[x] = stamp + o + 1;
        if (!isFreq[x]) {
          if (pass === 2) triList[fill[x]!++] = o;
          continue;
        }
        first[x] = Math.min(255, i - s);
        wsAny[x] = wsAt[i]!;
        touched[t++] = x;
      } else if (wsAt[i]) wsAny[x] = 1;
    }
    if (pass === 2) countPositions(build, t);
    else placeObject(build, t, o);
  }
}

/** Pass 2: counts object o under each frequent trigram it holds (touched[0, t)), by first position. */
function countPositions(b: PostingsBuild, t: number): void {
  const { touched, first, freqSlot, posCount, wsAny, wsPosCount } = b;
  for (let j = 0; j < t; j++) {
    const x = touched[j]!,
      at = freqSlot[x]! * 256 + first[x]!;
    posCount[at]!++;
    if (wsAny[x]) wsPosCount[at]!++;
  }
}

/** Pass 3: places object o in the lists of each frequent trigram it holds (touched[0, t)). */
function placeObject(b: PostingsBuild, t: number, o: number): void {
  const { touched, first, freqSlot, posFill, freqList, freqPos, wsAny, wsFill, wsList, wsPos } = b;
  for (let j = 0; j < t; j++) {
    const x = touched[j]!,
      q = first[x]!,
      at = freqSlot[x]! * 256 + q;
    // counting sort by position: stable, so number order within a position
    const p = posFill[at]!++;
    freqList[p] = o;
    freqPos[p] = q;
    if (wsAny[x]) {
      const w = wsFill[at]!++;
      wsList[w] = o;
      wsPos[w] = q;
    }
  }
}

/** Between passes 2 and 3: where each (frequent trigram, first position) starts in the lists, and the lists. */
function placeStarts(b: PostingsBuild): void {
  const { k, isFreq, freqSlot, freqStart, posFill, posCount, wsFill, wsStart, wsPosCount } = b;
  for (let x = 0; x < k; x++) {
    let w = 0;
    if (isFreq[x]) {
      const f = freqSlot[x]!;
      let p = freqStart[x]!;
      for (let q = 0; q < 256; q++) {
        posFill[f * 256 + q] = p;
        p += posCount[f * 256 + q]!;
        wsFill[f * 256 + q] = wsStart[x]! + w;
        w += wsPosCount[f * 256 + q]!;
      }
    }
    wsStart[x + 1] = wsStart[x]! + w;
  }
  b.freqList = new Uint32Array(freqStart[k]!);
  b.freqPos = new Uint8Array(freqStart[k]!);
  b.wsList = new Uint32Array(wsStart[k]!);
  b.wsPos = new Uint8Array(wsStart[k]!);
}

function grown(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}
