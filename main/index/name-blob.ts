/**
 * The offline index's name tables, built in one pass in number order over the names and ids
 * joined in input order (number-order.ts): the
 * folded names in one string (`blob`, each followed by `\0`; folding is length-preserving,
 * so blob positions are name positions), their starts, the word-start flag of every blob
 * position, and the ids in one string with their starts. Code units go into typed arrays and
 * become one string at the end: no string per name, no million-part join.
 */
import { Buffer } from 'node:buffer';
import { foldCase, isWordAt, isWordBefore } from '../../app/search/index.js';
import { casesOf, type NameCases } from './name-cases.js';
import type { Joined } from './number-order.js';

export interface NameBlob {
  /** The names as the NAS spells them: what differs from `blob` (name-cases.ts). */
  cases: NameCases;
  /** Folded names in number order, each followed by `\0`. */
  blob: string;
  /** n+1 offsets into `blob`: name o is blob[starts[o], starts[o+1]-1). */
  starts: Uint32Array;
  /**
   * Per blob position: 1 when that code unit starts a word position of its name, i.e. it
   * is the name's first or `isWordBefore(name, p)` is false (on the original name).
   */
  wsAt: Uint8Array;
  /** Ids in number order, each followed by `\n` (ids are URL-safe): one string, not a million. */
  idBlob: string;
  idStarts: Uint32Array;
}

/** 1 for ASCII letters and digits (the ASCII letters, marks and digits of search.md rule 5). */
export const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[0-9A-Za-z]/.test(String.fromCharCode(c)) ? 1 : 0;

/**
 * The tables in number order, from the names and ids joined in input order (`order[o]`: the
 * input index of object number o). Reads the joined texts, never a string per object, except
 * the rare non-ASCII names (folded and flagged by `foldCase` and `isWordBefore` on the name
 * itself): the build's caller may let its million names and ids go once they are joined.
 */
export function buildNameBlob(nameText: Joined, idText: Joined, order: Uint32Array): NameBlob {
  const n = order.length;
  const nt = nameText.text,
    ns = nameText.start,
    is = idText.start;
  const starts = new Uint32Array(n + 1);
  const idStarts = new Uint32Array(n + 1);
  for (let o = 0; o < n; o++) {
    const i = order[o]!;
    starts[o + 1] = starts[o]! + ns[i + 1]! - ns[i]! + 1;
    idStarts[o + 1] = idStarts[o]! + is[i + 1]! - is[i]! + 1;
  }
  // code units in number order, each name (id) followed by its separator; one string each at the end
  const units = new Uint16Array(starts[n]!);
  const original = new Uint16Array(starts[n]!);
  const wsAt = new Uint8Array(starts[n]!);
  let high = 0;
  const astral = new Map<number, boolean>();
  for (let o = 0; o < n; o++) {
    const i = order[o]!;
    const from = ns[i]!,
      len = ns[i + 1]! - from,
      off = starts[o]!;
    let ascii = true;
    for (let k = 0; k < len; k++) {
      const c = nt.charCodeAt(from + k);
      original[off + k] = c;
      if (c < 128) {
        units[off + k] = c >= 65 && c <= 90 ? c + 32 : c;
        // the flag of the next position: is this unit (its predecessor) a word character?
        wsAt[off + k + 1] = ASCII_WORD[c]! ^ 1;
      } else {
        ascii = false;
        // either half of a surrogate pair: its code point, remembered (isWordBefore runs a regex per call)
        const pair =
          c >= 0xdc00 && c <= 0xdfff
            ? k > 0
              ? highLow(nt.charCodeAt(from + k - 1), c)
              : -1
            : k + 1 < len
              ? highLow(c, nt.charCodeAt(from + k + 1))
              : -1;
        let word: boolean | undefined;
        if (pair >= 0) {
          word = astral.get(pair);
          if (word === undefined) astral.set(pair, (word = isWordAt(String.fromCodePoint(pair), 0)));
        } else word = isWordBefore(nt.substring(from, from + len), k + 1);
        wsAt[off + k + 1] = word ? 0 : 1;
      }
    }
    if (len > 0) wsAt[off] = 1;
    wsAt[off + len] = 0;
    if (!ascii) {
      const f = foldCase(nt.substring(from, from + len));
      for (let k = 0; k < len; k++) {
        const c = f.charCodeAt(k);
        units[off + k] = c;
        high |= c;
      }
    }
  }
  return {
    cases: casesOf(original, units),
    blob: toText(units, high),
    starts,
    wsAt,
    idBlob: idsInOrder(idText, order, idStarts),
    idStarts,
  };
}

/** The ids in number order, each followed by `\n`, as one string. */
function idsInOrder(idText: Joined, order: Uint32Array, idStarts: Uint32Array): string {
  const { text, start } = idText;
  const units = new Uint16Array(idStarts[order.length]!);
  let high = 0;
  for (let o = 0; o < order.length; o++) {
    const i = order[o]!,
      from = start[i]!,
      len = start[i + 1]! - from,
      off = idStarts[o]!;
    for (let k = 0; k < len; k++) {
      const c = text.charCodeAt(from + k);
      units[off + k] = c;
      high |= c;
    }
    units[off + len] = 10; // '\n'
  }
  return toText(units, high);
}

/** The code point of a high and a low surrogate, or -1 when they are not a pair. */
function highLow(hi: number, lo: number): number {
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff ? ((hi - 0xd800) << 10) + (lo - 0xdc00) + 0x10000 : -1;
}

/** One string of the code units (`high`: their bitwise or): one-byte when every unit fits Latin-1. */
function toText(units: Uint16Array, high: number): string {
  if (units.length === 0) return '';
  if (high < 256) return Buffer.from(new Uint8Array(units).buffer).toString('latin1');
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
}
