/**
 * The offline index on disk (`<state>/index/text-index.bin`), so a restart needs no rebuild:
 * a JSON header (format, store generation, sizes, combos, overlay docs) then the typed arrays
 * and the string tables, 8-byte aligned. Written to a temporary file and renamed (atomic).
 * A file whose generation differs from the store's is stale and is ignored.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BaseData, Combo } from './base-index.js';
import { casesOf } from './name-cases.js';
import type { IndexDoc } from './engine.js';

// 6 (s30): the names as their cases (name-cases.ts), not as a second text
const FORMAT = 'nas-mirror-text-index/6';
/** Format 5 held the names as a second text: read too (its cases made from it), so an update rebuilds nothing. */
const FORMAT_NAMES_TEXT = 'nas-mirror-text-index/5';

interface Header {
  format: string;
  generation: number;
  n: number;
  shortTop: number;
  shortAll: number;
  combos: Combo[];
  extra: IndexDoc[];
  sections: { name: string; kind: 'u32' | 'f64' | 'u8' | 'utf8'; offset: number; bytes: number }[];
}

export const indexFile = (stateDir: string): string => join(stateDir, 'index', 'text-index.bin');

export interface Persisted {
  base: BaseData;
  dead: Uint8Array;
  extra: IndexDoc[];
  generation: number;
}

export function saveIndex(stateDir: string, p: Persisted): void {
  const b = p.base;
  // strings are written as text (`Text`), never copied whole into a buffer first: at 1M
  // objects the copies of names, blob and ids were ~80 MB more at the build's peak
  const parts: { name: string; kind: Header['sections'][number]['kind']; data: Uint8Array | Text }[] = [
    { name: 'starts', kind: 'u32', data: bytes(b.starts) },
    { name: 'combo', kind: 'u32', data: bytes(b.combo) },
    { name: 'comboStart', kind: 'u32', data: bytes(b.comboStart) },
    { name: 'comboList', kind: 'u32', data: bytes(b.comboList) },
    { name: 'triKeys', kind: 'f64', data: bytes(b.triKeys) },
    { name: 'triStart', kind: 'u32', data: bytes(b.triStart) },
    { name: 'triList', kind: 'u32', data: bytes(b.triList) },
    { name: 'freqStart', kind: 'u32', data: bytes(b.freqStart) },
    { name: 'freqList', kind: 'u32', data: bytes(b.freqList) },
    { name: 'freqPos', kind: 'u8', data: b.freqPos },
    { name: 'wsStart', kind: 'u32', data: bytes(b.wsStart) },
    { name: 'wsList', kind: 'u32', data: bytes(b.wsList) },
    { name: 'wsPos', kind: 'u8', data: b.wsPos },
    { name: 'shortKeys', kind: 'u32', data: bytes(b.shortKeys) },
    { name: 'shortStart', kind: 'u32', data: bytes(b.shortStart) },
    { name: 'shortList', kind: 'u32', data: bytes(b.shortList) },
    { name: 'byId', kind: 'u32', data: bytes(b.byId) },
    { name: 'dead', kind: 'u8', data: p.dead.length === b.n ? p.dead : new Uint8Array(b.n) },
    { name: 'idStarts', kind: 'u32', data: bytes(b.idStarts) },
    { name: 'ids', kind: 'utf8', data: new Text([b.idBlob], '') },
    { name: 'upper', kind: 'u8', data: b.cases.upper },
    { name: 'otherAt', kind: 'u32', data: bytes(b.cases.otherAt) },
    { name: 'otherUnit', kind: 'u8', data: bytes(b.cases.otherUnit) },
    { name: 'blob', kind: 'utf8', data: new Text([b.blob], '') },
  ];
  let off = 0;
  const sections = parts.map((x) => {
    const s = { name: x.name, kind: x.kind, offset: off, bytes: x.data.byteLength };
    off += align8(x.data.byteLength);
    return s;
  });
  const header: Header = {
    format: FORMAT,
    generation: p.generation,
    n: b.n,
    shortTop: b.shortTop,
    shortAll: b.shortAll,
    combos: b.combos,
    extra: p.extra,
    sections,
  };
  const hb = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32LE(hb.length, 0);
  const file = indexFile(stateDir);
  mkdirSync(join(stateDir, 'index'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, prefix);
    writeSync(fd, hb);
    const pad = align8(hb.length) - hb.length;
    if (pad) writeSync(fd, Buffer.alloc(pad));
    for (const x of parts) {
      if (x.data instanceof Text) x.data.writeTo(fd);
      else writeSync(fd, x.data);
      const pd = align8(x.data.byteLength) - x.data.byteLength;
      if (pd) writeSync(fd, Buffer.alloc(pd));
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** Strings joined by `sep`, as UTF-8: its size known without encoding it whole, written in slices. */
class Text {
  readonly byteLength: number;
  constructor(
    private readonly items: readonly string[],
    private readonly sep: string,
  ) {
    let n = items.length > 1 ? (items.length - 1) * Buffer.byteLength(sep) : 0;
    for (const s of items) n += Buffer.byteLength(s, 'utf8');
    this.byteLength = n;
  }

  writeTo(fd: number): void {
    const SLICE = 1 << 20;
    for (let i = 0; i < this.items.length; i += 4096) {
      const group = this.items.slice(i, i + 4096);
      let text = group.join(this.sep);
      if (i + 4096 < this.items.length) text += this.sep;
      // one long string (the blob) in slices, cut between UTF-16 surrogates never
      for (let at = 0; at < text.length;) {
        let end = Math.min(text.length, at + SLICE);
        const c = text.charCodeAt(end - 1);
        if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
        writeSync(fd, text.slice(at, end), null, 'utf8');
        at = end;
      }
    }
  }
}

/**
 * Loads the saved index; undefined when absent, unreadable or of another format. Each section
 * is read from the file into memory of its own (typed) or through one scratch buffer (text),
 * never the whole file at once: at 1M objects the file is ~165 MB, which read whole then
 * copied out made a restart's peak ~165 MB higher (s26).
 */
export function loadIndex(stateDir: string): Persisted | undefined {
  const file = indexFile(stateDir);
  if (!existsSync(file)) return undefined;
  let fd: number | undefined;
  try {
    const at = (fd = openSync(file, 'r'));
    const readAt = (into: Uint8Array, position: number): void => readFully(at, into, position);
    const prefix = Buffer.alloc(8);
    readAt(prefix, 0);
    const hlen = prefix.readUInt32LE(0);
    const hb = Buffer.alloc(hlen);
    readAt(hb, 8);
    const header = JSON.parse(hb.toString('utf8')) as Header;
    if (header.format !== FORMAT && header.format !== FORMAT_NAMES_TEXT) return undefined;
    const dataStart = 8 + align8(hlen);
    const sec = (name: string): Header['sections'][number] => {
      const s = header.sections.find((x) => x.name === name);
      if (!s) throw new Error(`missing section ${name}`);
      return s;
    };
    const copy = (name: string): ArrayBuffer => {
      const s = sec(name);
      const out = new ArrayBuffer(s.bytes);
      readAt(new Uint8Array(out), dataStart + s.offset);
      return out;
    };
    const u32 = (name: string): Uint32Array => new Uint32Array(copy(name));
    const u8 = (name: string): Uint8Array => new Uint8Array(copy(name));
    const scratch = Buffer.allocUnsafe(Math.max(0, ...header.sections.filter((x) => x.kind === 'utf8').map((x) => x.bytes)));
    const text = (name: string): string => {
      const s = sec(name);
      const b = scratch.subarray(0, s.bytes);
      readAt(b, dataStart + s.offset);
      return b.toString('utf8');
    };
    const blob = text('blob');
    const cases =
      header.format === FORMAT_NAMES_TEXT
        ? casesOf(text('names'), blob)
        : { upper: u8('upper'), otherAt: u32('otherAt'), otherUnit: new Uint16Array(copy('otherUnit')) };
    const base: BaseData = {
      n: header.n,
      idBlob: text('ids'),
      idStarts: u32('idStarts'),
      blob,
      cases,
      starts: u32('starts'),
      combo: u32('combo'),
      combos: header.combos,
      comboStart: u32('comboStart'),
      comboList: u32('comboList'),
      triKeys: new Float64Array(copy('triKeys')),
      triStart: u32('triStart'),
      triList: u32('triList'),
      freqStart: u32('freqStart'),
      freqList: u32('freqList'),
      freqPos: u8('freqPos'),
      wsStart: u32('wsStart'),
      wsList: u32('wsList'),
      wsPos: u8('wsPos'),
      shortTop: header.shortTop,
      shortAll: header.shortAll,
      shortKeys: u32('shortKeys'),
      shortStart: u32('shortStart'),
      shortList: u32('shortList'),
      byId: u32('byId'),
    };
    if (!consistent(base)) return undefined;
    return { base, dead: u8('dead'), extra: header.extra, generation: header.generation };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  for (let got = 0; got < into.byteLength;) {
    const n = readSync(fd, into, got, into.byteLength - got, position + got);
    if (n === 0) throw new Error('the index file ends early');
    got += n;
  }
}

/** Whether the loaded tables agree on their sizes (a file of another build is not used). */
function consistent(b: BaseData): boolean {
  const { upper, otherAt, otherUnit } = b.cases;
  return (
    b.idStarts.length === b.n + 1 &&
    b.starts.length === b.n + 1 &&
    upper.length === (b.blob.length + 7) >>> 3 &&
    otherAt.length === otherUnit.length
  );
}

function bytes(a: Uint32Array | Uint16Array | Float64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

const align8 = (n: number): number => (n + 7) & ~7;
