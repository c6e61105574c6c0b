/**
 * Organize patterns: text with tokens, filled per object. `{name}` (the name without its
 * extension), `{ext}` (the extension without the dot, as written; `{ext:lower}`), `{date:FMT}`
 * (FMT of YYYY YY MM DD hh mm ss, from the capture date, else mTime in UTC), `{camera}` (make
 * and model, "unknown camera" when none), `{counter}` / `{counter:N}` (1, 2, ... in the
 * order of the selection, zero-padded to N digits), `{parent}` (the current folder's name).
 * Pure; a bad pattern is a message, never a throw.
 */
import type { RemoteObject } from '../model/remote-object.js';
import { FOLDER_MIME } from '../model/remote-object.js';
import { cameraOf } from '../filters/facts.js';

type Part =
  | { lit: string }
  | { token: 'name' | 'ext' | 'extLower' | 'camera' | 'parent' }
  | { token: 'date'; fmt: string }
  | { token: 'counter'; width: number };

export interface Pattern {
  readonly source: string;
  readonly parts: readonly Part[];
}

export const TOKEN_HELP = '{name} {ext} {ext:lower} {date:YYYY-MM-DD} {camera} {counter} {counter:3} {parent}';

export function parsePattern(source: string): { ok: true; pattern: Pattern } | { ok: false; message: string } {
  const parts: Part[] = [];
  const re = /\{([^{}]*)\}/g;
  let at = 0;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    if (m.index > at) parts.push({ lit: source.slice(at, m.index) });
    at = m.index + m[0].length;
    const [name, arg] = splitToken(m[1]!);
    if (name === 'name' && arg === undefined) parts.push({ token: 'name' });
    else if (name === 'ext' && arg === undefined) parts.push({ token: 'ext' });
    else if (name === 'ext' && arg === 'lower') parts.push({ token: 'extLower' });
    else if (name === 'camera' && arg === undefined) parts.push({ token: 'camera' });
    else if (name === 'parent' && arg === undefined) parts.push({ token: 'parent' });
    else if (name === 'date' && arg !== undefined && /^[YMDhms\-_ .:/]+$/.test(arg) && /YY|MM|DD|hh|mm|ss/.test(arg))
      parts.push({ token: 'date', fmt: arg });
    else if (name === 'counter' && (arg === undefined || /^[1-9]$/.test(arg)))
      parts.push({ token: 'counter', width: arg === undefined ? 1 : Number(arg) });
    else return { ok: false, message: `{${m[1]}} is not a token: use ${TOKEN_HELP}` };
  }
  if (at < source.length) parts.push({ lit: source.slice(at) });
  if (
    /[{}]/.test(
      parts
        .filter((p): p is { lit: string } => 'lit' in p)
        .map((p) => p.lit)
        .join(''),
    )
  )
    return { ok: false, message: 'an unmatched { or } in the pattern' };
  if (parts.length === 0) return { ok: false, message: 'the pattern is empty' };
  return { ok: true, pattern: { source, parts } };
}

function splitToken(t: string): [string, string | undefined] {
  const i = t.indexOf(':');
  return i < 0 ? [t.trim(), undefined] : [t.slice(0, i).trim(), t.slice(i + 1)];
}

/** Date fields of an object: capture date when present, else mTime (UTC). */
export function dateFields(
  o: Pick<RemoteObject, 'mTime' | 'image'>,
): Record<'YYYY' | 'MM' | 'DD' | 'hh' | 'mm' | 'ss', string> | undefined {
  const m =
    /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(o.image?.date ?? '') ??
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(o.mTime);
  return m ? { YYYY: m[1]!, MM: m[2]!, DD: m[3]!, hh: m[4]!, mm: m[5]!, ss: m[6]! } : undefined;
}

function formatDate(fmt: string, d: NonNullable<ReturnType<typeof dateFields>>): string {
  return fmt.replace(/YYYY|YY|MM|DD|hh|mm|ss/g, (k) => (k === 'YY' ? d.YYYY.slice(2) : d[k as keyof typeof d]));
}

/** Fills a pattern for one object; `counter` is its 1-based place in the selection. */
export function fill(p: Pattern, o: RemoteObject, counter: number, parentName: string): string {
  const folder = o.mimeType === FOLDER_MIME;
  const dot = o.name.lastIndexOf('.');
  const base = !folder && dot > 0 ? o.name.slice(0, dot) : o.name;
  const ext = !folder && dot > 0 ? o.name.slice(dot + 1) : '';
  const date = dateFields(o);
  let out = '';
  for (const part of p.parts) {
    if ('lit' in part) {
      out += part.lit;
      continue;
    }
    switch (part.token) {
      case 'name':
        out += base;
        break;
      case 'ext':
        out += ext;
        break;
      case 'extLower':
        out += ext.toLowerCase();
        break;
      case 'camera':
        out += (cameraOf(o) || 'unknown camera').replace(/\//g, '-');
        break;
      case 'parent':
        out += parentName;
        break;
      case 'date':
        out += date ? formatDate(part.fmt, date) : 'undated';
        break;
      case 'counter':
        out += String(counter).padStart(part.width, '0');
        break;
    }
  }
  // "a." when the object has no extension: drop the dangling dot
  return ext === '' ? out.replace(/\.$/, '') : out;
}
