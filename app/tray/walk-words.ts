/**
 * A walk in progress in words, the one place the window's header, the tray's tooltip and
 * `nas-mirror status` take them from, and the fraction its progress bar shows. The NAS never
 * states its size: the walk's `known` (the items it knows exist so far, app/contract/shapes.ts)
 * is said as "of at least N" while it grows and as THE total once `settled`; a walk without it
 * (a device that omits childCount) says what it has seen so far, or, on a re-walk, compares
 * with the last complete walk. Pure.
 */
import type { AppStatus } from '../contract/shapes.js';
import { formatCount, plural } from '../util/human.js';

/** What the words read of the status. */
export type WalkFacts = Pick<AppStatus, 'walk' | 'lastCompleteWalk' | 'indexed'>;

export interface WalkWords {
  /** "12,340 of 100,000 items (12 %) · about 2 min left", "12,340 of at least 30,000 items", "starting…". */
  text: string;
  /** How far the walk is, 0 to 0.99, when it is known (a settled total or the last walk's size); null: a bar without a figure. */
  fraction: number | null;
}

/** The header's line: "Reading the NAS: " and the walk's words. */
export function walkLine(s: WalkFacts): string {
  return `Reading the NAS: ${walkWords(s).text}`;
}

export function walkWords(s: WalkFacts): WalkWords {
  const w = s.walk;
  if (w.objects === 0) return { text: 'starting…', fraction: null };
  // a lower bound below what was already seen is not one (a NAS that changed meanwhile): not said
  const known = w.known !== null && w.known >= w.objects ? w.known : null;
  if (known !== null && w.settled) {
    const left = w.recentRate > 0 ? ` · ${timeLeft((known - w.objects) / w.recentRate)}` : '';
    const text = `${formatCount(w.objects)} of ${plural(known, 'item', 'items')} (${percent(w.objects, known)} %)${left}`;
    return { text, fraction: share(w.objects, known) };
  }
  // a re-walk's expectation: the last complete walk's size, unless the NAS is known to hold more now
  const last = s.lastCompleteWalk !== null && s.indexed > 0 ? s.indexed : null;
  if (last !== null && (known === null || known <= last)) {
    return { text: `${seen(w)} (about ${percent(w.objects, last)} %)`, fraction: share(w.objects, last) };
  }
  if (known !== null) return { text: `${formatCount(w.objects)} of at least ${plural(known, 'item', 'items')}`, fraction: null };
  return { text: `${seen(w)} so far`, fraction: null };
}

/** The walk's other counts, for the details: "40 folders, 1,200 placeholders placed, 1,500 items a second". */
export function walkDetails(w: AppStatus['walk']): string {
  return [
    plural(w.folders, 'folder', 'folders'),
    w.placed > 0 ? `${plural(w.placed, 'placeholder', 'placeholders')} placed` : '',
    w.rate > 0 ? `${plural(w.rate, 'item', 'items')} a second` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * Time left for people, rounded as far as such an estimate deserves: "less than a minute left",
 * "about 2 min left", "about 1 h 10 min left" (to 10 min from an hour), "about 14 h left".
 */
export function timeLeft(seconds: number): string {
  if (!(seconds >= 60)) return 'less than a minute left';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min left`;
  if (minutes >= 10 * 60) return `about ${Math.round(minutes / 60)} h left`;
  const tens = Math.round(minutes / 10) * 10;
  const h = Math.floor(tens / 60);
  const m = tens % 60;
  return `about ${h} h${m > 0 ? ` ${m} min` : ''} left`;
}

/** `part` of `whole`, never all of it while the walk runs (the last items may still come). */
const share = (part: number, whole: number): number => Math.min(0.99, part / whole);
const percent = (part: number, whole: number): number => Math.min(99, Math.floor((part * 100) / whole));

/** What a walk without a total has seen: "3 folders, 2,500 items, 1,200 placeholders placed at 1,500/s". */
function seen(w: AppStatus['walk']): string {
  const placed = w.placed > 0 ? `, ${plural(w.placed, 'placeholder', 'placeholders')} placed` : '';
  const rate = w.rate > 0 ? ` at ${formatCount(w.rate)}/s` : '';
  return `${plural(w.folders, 'folder', 'folders')}, ${plural(w.objects, 'item', 'items')}${placed}${rate}`;
}
