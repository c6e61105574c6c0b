/**
 * Search operators on top of the service's text search: `ext:`, `kind:`, `in:"..."`,
 * `size:`, `date:`, `camera:`, `on:`. A query is split into its plain text (handed UNCHANGED to the
 * service's semantics, so plain terms keep exactly the service's answer) and its filters,
 * which only narrow that answer offline. Text inside double quotes is never an operator.
 * Pure: `in:` is resolved to a folder by the caller (it needs the mirror), and `on:` reads the
 * device's state the caller hands it (on-device.ts).
 */
import { foldCase } from '../search/fold.js';
import { KINDS, type Fact, type ObjectKind } from './facts.js';
import { formatSize } from '../util/human.js';
import type { DeviceState } from '../contract/shapes.js';
import { ON_LABELS, isOn, onPlaceOf, type OnPlace } from './on-device.js';

export const OPERATORS = ['ext', 'kind', 'in', 'size', 'date', 'camera', 'on'] as const;
export type Operator = (typeof OPERATORS)[number];

export type Filter =
  | { op: 'ext'; raw: string; exts: string[] }
  | { op: 'kind'; raw: string; kinds: ObjectKind[] }
  | { op: 'in'; raw: string; path: string }
  /** Inclusive byte bounds. */
  | { op: 'size'; raw: string; min: number; max: number }
  /** Inclusive YYYYMMDD bounds. */
  | { op: 'date'; raw: string; from: number; to: number }
  | { op: 'camera'; raw: string; text: string }
  /** Where the content is: on this device, on the NAS only (a placeholder), or kept here. */
  | { op: 'on'; raw: string; place: OnPlace };

export interface FilteredQuery {
  /** The query without its operators ('' when only operators were given). */
  text: string;
  filters: Filter[];
  /** Where each operator sits in the query, for removing one (chips). */
  spans: { start: number; end: number }[];
}

export type FilterParse = { ok: true; query: FilteredQuery } | { ok: false; message: string };

const KIND_ALIASES: Record<string, ObjectKind> = {
  photo: 'photo',
  photos: 'photo',
  image: 'photo',
  images: 'photo',
  picture: 'photo',
  video: 'video',
  videos: 'video',
  movie: 'video',
  audio: 'audio',
  music: 'audio',
  sound: 'audio',
  doc: 'doc',
  docs: 'doc',
  document: 'doc',
  documents: 'doc',
  folder: 'folder',
  folders: 'folder',
  dir: 'folder',
  other: 'other',
};

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
};
const OP_RE = /^(ext|kind|in|size|date|camera|on):/i;

/** Splits a query into plain text and filters; never throws. */
export function parseFilters(q: string): FilterParse {
  const filters: Filter[] = [];
  const spans: { start: number; end: number }[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      const end = q.indexOf('"', i + 1);
      i = end < 0 ? q.length : end + 1;
      continue;
    }
    const m = OP_RE.exec(q.slice(i, i + 8));
    let j = i;
    if (!m) {
      while (j < q.length && q[j] !== '"' && !/\s/u.test(q[j]!)) j++;
      i = j;
      continue;
    }
    j = i + m[0].length;
    let value: string;
    if (q[j] === '"') {
      const r = readQuoted(q, j);
      value = r.value;
      j = r.end;
    } else {
      const start = j;
      while (j < q.length && !/\s/u.test(q[j]!)) j++;
      value = q.slice(start, j);
    }
    const f = parseOne(m[1]!.toLowerCase() as Operator, value, q.slice(i, j));
    if (typeof f === 'string') return { ok: false, message: f };
    filters.push(f);
    spans.push({ start: i, end: j });
    i = j;
  }
  let text = '';
  let at = 0;
  for (const s of spans) {
    text += q.slice(at, s.start) + ' ';
    at = s.end;
  }
  text = (text + q.slice(at)).trim();
  return { ok: true, query: { text: filters.length ? text : q, filters, spans } };
}

/**
 * An operator's quoted value starting at the `"` at `from`: `\"` stands for `"` and `\\` for
 * `\` (any other `\x` is kept as typed, so Windows-looking paths still read); an unclosed quote
 * runs to the end. `end` is the index just past the closing quote.
 */
function readQuoted(q: string, from: number): { value: string; end: number } {
  let value = '';
  let j = from + 1;
  while (j < q.length && q[j] !== '"') {
    if (q[j] === '\\' && (q[j + 1] === '"' || q[j + 1] === '\\')) j++;
    value += q[j];
    j++;
  }
  return { value, end: Math.min(j + 1, q.length) };
}

/**
 * An operator with its value quoted so `parseFilters` reads it back exactly, whatever the value
 * holds (spaces, `"`, `\`, any script): `quoteOperator('in', 'a "b"')` is `in:"a \"b\""`.
 */
export function quoteOperator(op: Operator, value: string): string {
  return `${op}:"${value.replace(/["\\]/gu, (c) => `\\${c}`)}"`;
}

/** The query with the operator at `index` (in `spans` order) taken out. */
export function withoutFilter(q: string, query: FilteredQuery, index: number): string {
  const s = query.spans[index];
  if (!s) return q;
  return (q.slice(0, s.start) + ' ' + q.slice(s.end)).replace(/\s+/gu, ' ').trim();
}

function parseOne(op: Operator, value: string, raw: string): Filter | string {
  const v = value.trim();
  if (v === '' && (op !== 'in' || value === '')) return `${op}: needs a value (for example ${EXAMPLES[op]})`;
  // a folder name may be or begin or end with spaces: the path is taken as written, not trimmed
  if (op === 'in')
    return {
      op,
      raw,
      path: value
        .split('/')
        .filter((s) => s !== '')
        .join('/'),
    };
  switch (op) {
    case 'ext':
      return {
        op,
        raw,
        exts: v
          .split(/[|,]/)
          .map((e) => e.replace(/^\./, '').toLowerCase())
          .filter((e) => e !== ''),
      };
    case 'kind': {
      const kinds: ObjectKind[] = [];
      for (const k of v.toLowerCase().split(/[|,]/)) {
        const kind = KIND_ALIASES[k];
        if (!kind) return `kind:${k} is not a kind: use ${KINDS.filter((x) => x !== 'other').join(', ')} or other`;
        kinds.push(kind);
      }
      return { op, raw, kinds };
    }
    case 'camera':
      return { op, raw, text: foldCase(v) };
    case 'on': {
      const place = onPlaceOf(v);
      return place ? { op, raw, place } : `on:${v} is not a place: use on:device (or on:here), on:nas (or on:placeholder) or on:kept`;
    }
    case 'size':
      return sizeFilter(v, raw);
    case 'date':
      return dateFilter(v, raw);
  }
}

const EXAMPLES: Record<Operator, string> = {
  ext: 'ext:jpg',
  kind: 'kind:photo',
  in: 'in:"Photos/2019"',
  size: 'size:>100mb',
  date: 'date:2019-05..2019-08',
  camera: 'camera:canon',
  on: 'on:device',
};

function bytes(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(s.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  return m && unit !== undefined ? Math.round(Number(m[1]) * unit) : undefined;
}

function sizeFilter(v: string, raw: string): Filter | string {
  const bad = `size:${v} is not a size: use size:>100mb, size:<=2gb or size:10mb..1gb (units b, kb, mb, gb, tb; 1 kb = 1024 bytes)`;
  const range = /^(.+)\.\.(.+)$/.exec(v);
  if (range) {
    const a = bytes(range[1]!),
      b = bytes(range[2]!);
    return a === undefined || b === undefined ? bad : { op: 'size', raw, min: a, max: b };
  }
  const m = /^(>=|<=|>|<|=)?(.+)$/.exec(v)!;
  const n = bytes(m[2]!);
  if (n === undefined) return bad;
  switch (m[1]) {
    case '>':
      return { op: 'size', raw, min: n + 1, max: Infinity };
    case '>=':
    case undefined:
      return { op: 'size', raw, min: n, max: Infinity };
    case '<':
      return { op: 'size', raw, min: 0, max: n - 1 };
    case '<=':
      return { op: 'size', raw, min: 0, max: n };
    default:
      return { op: 'size', raw, min: n, max: n };
  }
}

/** `2019`, `2019-05`, `2019-05-03` -> first and last YYYYMMDD it covers. */
function dayBounds(s: string): [number, number] | undefined {
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(s.trim());
  if (!m) return undefined;
  const y = Number(m[1]) * 10_000;
  if (m[2] === undefined) return [y + 101, y + 1231];
  const mo = Number(m[2]);
  if (mo < 1 || mo > 12) return undefined;
  if (m[3] === undefined) return [y + mo * 100 + 1, y + mo * 100 + 31];
  const d = Number(m[3]);
  return d < 1 || d > 31 ? undefined : [y + mo * 100 + d, y + mo * 100 + d];
}

function dateFilter(v: string, raw: string): Filter | string {
  const bad = `date:${v} is not a date: use date:2019, date:2019-05, date:2019-05-03, date:2019-05..2019-08, date:>2019 or date:<2020-01`;
  const range = /^(.+)\.\.(.+)$/.exec(v);
  if (range) {
    const a = dayBounds(range[1]!),
      b = dayBounds(range[2]!);
    return a && b ? { op: 'date', raw, from: a[0], to: b[1] } : bad;
  }
  const m = /^(>=|<=|>|<)?(.+)$/.exec(v)!;
  const b = dayBounds(m[2]!);
  if (!b) return bad;
  switch (m[1]) {
    case '>':
      return { op: 'date', raw, from: b[1] + 1, to: 99_991_231 };
    case '>=':
      return { op: 'date', raw, from: b[0], to: 99_991_231 };
    case '<':
      return { op: 'date', raw, from: 1, to: b[0] - 1 };
    case '<=':
      return { op: 'date', raw, from: 1, to: b[1] };
    default:
      return { op: 'date', raw, from: b[0], to: b[1] };
  }
}

/**
 * True when the fact passes every filter. `under(id, folderId)` says whether an object is
 * below a folder; `inFolders` holds the folder id each `in:` filter resolved to, in order;
 * `deviceOf(id)` says what an object is on this device (`on:`; on-device.ts `stateIn`).
 */
export function passes(
  f: Fact,
  filters: readonly Filter[],
  inFolders: readonly string[],
  under: (id: string, folderId: string) => boolean,
  deviceOf: (id: string) => DeviceState | undefined = () => undefined,
): boolean {
  let k = 0;
  for (const x of filters) {
    switch (x.op) {
      case 'ext':
        if (!x.exts.includes(f.ext)) return false;
        break;
      case 'kind':
        if (!x.kinds.includes(f.kind)) return false;
        break;
      case 'size':
        if (f.kind === 'folder' || f.size < x.min || f.size > x.max) return false;
        break;
      case 'date':
        if (f.day === 0 || f.day < x.from || f.day > x.to) return false;
        break;
      case 'camera':
        if (f.camera === '' || !f.camera.includes(x.text)) return false;
        break;
      case 'in':
        if (!under(f.id, inFolders[k++]!)) return false;
        break;
      case 'on':
        if (!isOn(x.place, deviceOf(f.id))) return false;
        break;
    }
  }
  return true;
}

/** A short label for a chip: `ext: jpg`, `size: > 100 MB`... */
export function describeFilter(f: Filter): string {
  switch (f.op) {
    case 'ext':
      return `ext: ${f.exts.join(' | ')}`;
    case 'kind':
      return `kind: ${f.kinds.join(' | ')}`;
    case 'in':
      return `in: /${f.path}`;
    case 'camera':
      return `camera: ${f.text}`;
    case 'on':
      return ON_LABELS[f.place];
    case 'size': {
      const range = f.max === Infinity ? `≥ ${human(f.min)}` : f.min === 0 ? `≤ ${human(f.max)}` : `${human(f.min)} – ${human(f.max)}`;
      return `size: ${range}`;
    }
    case 'date': {
      const range = f.to === 99_991_231 ? `from ${iso(f.from)}` : f.from === 1 ? `until ${iso(f.to)}` : `${iso(f.from)} – ${iso(f.to)}`;
      return `date: ${range}`;
    }
  }
}

/** `n` in decimal, zero-padded to `width` digits. */
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** A yyyymmdd number as `yyyy-mm-dd`. */
const iso = (d: number): string => `${pad(Math.floor(d / 10_000), 4)}-${pad(Math.floor(d / 100) % 100, 2)}-${pad(d % 100, 2)}`;

/** Bytes for people (1024-based, as `size:` reads them): the app's one size format. */
export function human(n: number): string {
  return formatSize(n);
}
