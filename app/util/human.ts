/**
 * Numbers, sizes and plurals for people: the one way the window (and any other reader)
 * writes a count ("12,340"), a size ("414 MB", 1024-based, one decimal under 10 of a unit)
 * and a counted word ("1 file", "2 files", never "file(s)"). Pure; English words, so counts
 * are grouped the English way whatever the system's locale.
 */

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A count with thousands separators: `12340` -> `"12,340"`. */
export function formatCount(n: number): string {
  return GROUPED.format(n);
}

/** `"1 item"`, `"2 items"`, `"12,340 items"`: the count and the right form of the word. */
export function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/**
 * Bytes for people, 1024-based (as the `size:` filter reads them): `"512 B"`, `"4.2 MB"`,
 * `"414 MB"`, `"1,023 GB"`. One decimal below 10 of a unit, none above; '' for no size.
 */
export function formatSize(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '';
  let v = Math.max(0, bytes);
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  if (i === 0) return `${formatCount(v)} B`;
  // 9.96 rounds to "10.0": written as 10, like any other value from 10 up
  const text = v < 10 && Number(v.toFixed(1)) < 10 ? v.toFixed(1) : formatCount(Math.round(v));
  return `${text} ${UNITS[i]}`;
}

/**
 * Text written with "(s)" plurals ("3 file(s)", "held 1 delete(s)", "2 new placeholder(s)")
 * in real plurals, the count grouped and a following are/were agreeing ("1 file is"): for
 * records written that way, shown as they came. A word with no count before it takes its
 * plural ("download(s) failed" -> "downloads failed").
 */
export function realPlurals(text: string): string {
  return text
    .replace(
      /\b(\d+) ((?:[A-Za-z-]+ )?)([A-Za-z]+)\(s\)( are\b| were\b)?/g,
      (_all, n: string, adjective: string, word: string, verb: string | undefined) => {
        const one = Number(n) === 1;
        const agreed = verb === undefined ? '' : one ? (verb === ' are' ? ' is' : ' was') : verb;
        return `${formatCount(Number(n))} ${adjective}${one ? word : pluralOf(word)}${agreed}`;
      },
    )
    .replace(/\b([A-Za-z]+)\(s\)/g, (all, word: string) => (/^https?$/i.test(word) ? all : pluralOf(word)));
}

/** The plural of one English word as the app's records use them (file, delete, entry, box...). */
function pluralOf(word: string): string {
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(word)) return `${word}es`;
  return `${word}s`;
}
