/**
 * Local names: the name a NAS object gets on disk. A name the local filesystem can hold is
 * used as is; otherwise (forbidden characters or device names, trailing dot/space, too long,
 * equal but for case to a sibling on a case-insensitive fs, or our own reserved name) it gets
 * a deterministic mapped name `stem~<hash of id>.ext`. The mapping is kept per object id,
 * so a rename of a mapped entry still patches the right object.
 */
import { nameProblem, utf8Length } from '../../app/model/names.js';
import type { FsTraits } from './fs-traits.js';

/** Our own folder inside the mirror root (staging, local-only area, marker). */
export const RESERVED_DIR = '.nas-mirror';

const WIN_FORBIDDEN = /[<>:"\\|?*\x00-\x1f]/g;
const WIN_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/** Why a remote name must be refused outright (`..`, separators, NUL...), or undefined. */
export function refuseRemoteName(name: unknown): string | undefined {
  return nameProblem(name);
}

/** Why the local filesystem cannot hold `name` as is, or undefined when it can. */
export function localNameProblem(name: string, traits: FsTraits): string | undefined {
  if (utf8Length(name) > traits.maxNameBytes) return 'too long for the local filesystem';
  if (traits.windowsNames) {
    if (/[<>:"\\|?*\x00-\x1f]/.test(name)) return 'holds a character the local filesystem forbids';
    if (/[. ]$/.test(name)) return 'ends with a dot or a space';
    if (WIN_DEVICE.test(name)) return 'is a reserved device name';
  }
  return undefined;
}

const ASCII = /^[\x00-\x7f]*$/;

/** The case key of a name under `traits` (names with equal keys cannot be siblings). */
export function nameKey(name: string, traits: FsTraits): string {
  const n = ASCII.test(name) ? name : name.normalize('NFC'); // NFC of ASCII is itself: a third of the cost
  return traits.caseInsensitive ? n.toLowerCase() : n;
}

/** A short, stable tag of an object id (FNV-1a 32-bit, base 36). */
export function idTag(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, '0');
}

function truncateUtf8(s: string, maxBytes: number): string {
  let out = '';
  for (const ch of s) {
    if (utf8Length(out + ch) > maxBytes) break;
    out += ch;
  }
  return out;
}

/** The mapped local name of `name` for object `id` (always holdable under `traits`). */
export function mappedLocalName(name: string, id: string, traits: FsTraits, salt = ''): string {
  let clean = traits.windowsNames ? name.replace(WIN_FORBIDDEN, '_') : name.replace(/\x00/g, '_');
  clean = clean.replace(/[/\\]/g, '_');
  const dot = clean.lastIndexOf('.');
  let stem = dot > 0 ? clean.slice(0, dot) : clean;
  let ext = dot > 0 ? clean.slice(dot) : '';
  if (traits.windowsNames) ext = ext.replace(/[. ]+$/, '');
  if (ext === '.') ext = '';
  const tag = `~${idTag(id)}${salt}`;
  const budget = traits.maxNameBytes - utf8Length(tag);
  if (utf8Length(ext) > Math.floor(budget / 2)) ext = '';
  stem = truncateUtf8(stem, budget - utf8Length(ext));
  if (traits.windowsNames) stem = stem.replace(/[. ]+$/, '');
  if (stem === '') stem = '_';
  if (traits.windowsNames && WIN_DEVICE.test(`${stem}${tag}${ext}`)) stem = `_${stem}`.slice(0, Math.max(1, stem.length));
  return `${stem}${tag}${ext}`;
}

export interface Sibling {
  id: string;
  name: string;
}

/**
 * Local names for the children of one folder. Deterministic: among names equal under the
 * case key, the smallest id keeps the plain name. `taken` holds local names already in use
 * that these siblings must avoid (our reserved dir at the root, entries kept in place).
 */
export function assignLocalNames(siblings: readonly Sibling[], traits: FsTraits, taken: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set(taken.map((t) => nameKey(t, traits)));
  const sorted = [...siblings].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const plain: Sibling[] = [];
  const mapped: Sibling[] = [];
  for (const s of sorted) (localNameProblem(s.name, traits) === undefined ? plain : mapped).push(s);
  for (const s of plain) {
    const k = nameKey(s.name, traits);
    if (used.has(k)) mapped.push(s);
    else {
      used.add(k);
      out.set(s.id, s.name);
    }
  }
  for (const s of mapped) {
    let salt = '';
    let n = mappedLocalName(s.name, s.id, traits);
    for (let i = 1; used.has(nameKey(n, traits)); i++) {
      salt = `-${i}`;
      n = mappedLocalName(s.name, s.id, traits, salt);
    }
    used.add(nameKey(n, traits));
    out.set(s.id, n);
  }
  return out;
}

/**
 * The remote name a local rename means: the entry's own local name (maybe mapped) means
 * "unchanged"; anything else is the new remote name as typed.
 */
export function remoteNameFor(newLocalName: string, oldLocalName: string, oldRemoteName: string): string {
  return newLocalName === oldLocalName ? oldRemoteName : newLocalName;
}
