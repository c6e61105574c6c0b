/**
 * Human output of the offline commands: tables, highlighted fragments (ANSI inverse on a
 * TTY, [brackets] otherwise), sizes and dates. Pure string building.
 */
import { formatSize } from '../../app/util/human.js';
import type { Fragment, RemoteObject } from '../../app/model/remote-object.js';
import { isFolder } from '../../app/model/remote-object.js';

export function highlight(f: Fragment, tty: boolean): string {
  let out = '';
  let at = 0;
  for (const l of f.locations) {
    out += clean(f.text.slice(at, l.index));
    const part = clean(f.text.slice(l.index, l.index + l.length));
    out += tty ? `\x1b[7m${part}\x1b[27m` : `[${part}]`;
    at = l.index + l.length;
  }
  return out + clean(f.text.slice(at));
}

/** Control characters would garble a terminal: shown as U+FFFD. */
const clean = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\uFFFD');

export function kindOf(o: RemoteObject): string {
  return isFolder(o) ? 'folder' : humanSize(o.size);
}

/** Sizes written as the window writes them (app/util/human.ts): "414 MB", "4.2 MB", "512 B". */
export function humanSize(n: number | undefined): string {
  return typeof n === 'number' ? formatSize(n) : '';
}

/**
 * Terminal columns a string takes: ANSI sequences and combining marks / variation selectors
 * take none, East Asian wide characters and emoji take two (so "家族写真" or "🎉 Party"
 * keep the next column aligned).
 */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s.replace(/\x1b\[\d+m/g, '')) {
    if (/[\p{Mn}\p{Me}\u200b-\u200f\ufe00-\ufe0f]/u.test(ch)) continue;
    w += isWide(ch) ? 2 : 1;
  }
  return w;
}

/** Hangul jamo, CJK symbols and ideographs, kana, Yi, Hangul syllables. */
const EAST_ASIAN_WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3]/u;
/** CJK compatibility ideographs, CJK compatibility forms, full-width forms and signs. */
const FULL_WIDTH_FORMS = /[\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;
/** Emoji and other pictographs. */
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
/** Counted one column although pictographic: ©, ® and the symbols of U+2000-2BFF. */
const NARROW_SYMBOL = /[\u00a9\u00ae\u2000-\u2bff]/u;

/** True when the character takes two columns: East Asian wide, full-width or emoji. */
function isWide(ch: string): boolean {
  return (EAST_ASIAN_WIDE.test(ch) || FULL_WIDTH_FORMS.test(ch) || PICTOGRAPHIC.test(ch)) && !NARROW_SYMBOL.test(ch);
}

/** Left-aligned columns; visible width ignores ANSI sequences and counts wide characters twice. */
export function table(rows: string[][]): string {
  const vis = displayWidth;
  const widths: number[] = [];
  for (const r of rows)
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, vis(c));
    });
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - vis(c)))).join('  ')).join('\n') + '\n';
}

export { clean };

/** Where a fragment other than the name came from, in words ("camera model: [Canon] EOS"). */
function fieldOf(o: RemoteObject, text: string): string {
  const img = o.image as { cameraMake?: unknown; cameraModel?: unknown } | undefined;
  if (img?.cameraMake === text) return 'camera make';
  if (img?.cameraModel === text) return 'camera model';
  if (o.mimeType === text) return 'type';
  return 'text';
}

/**
 * One search match as table cells: the name first (highlighted when the name matched),
 * then the size (or "folder"), the folder, and where else it matched.
 */
export function matchCells(file: RemoteObject, fragments: readonly Fragment[], folder: string, tty: boolean): string[] {
  const named = fragments.find((f) => f.text === file.name);
  const others = fragments.filter((f) => f !== named).map((f) => `${fieldOf(file, f.text)}: ${highlight(f, tty)}`);
  return [named ? highlight(named, tty) : clean(file.name), kindOf(file), clean(folder), others.join('; ')];
}
