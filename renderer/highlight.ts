/**
 * Renders a fragment with its locations as <mark> elements. Locations are UTF-16 indices
 * into the text (search.md rule 5), sorted and non-overlapping; anything out of range is
 * clipped rather than trusted.
 */
import type { Location } from '../app/model/remote-object.js';
import { el } from './dom.js';

export function highlighted(text: string, locations: readonly Location[]): HTMLElement {
  const span = el('span', { class: 'hl' });
  let at = 0;
  const sorted = [...locations].sort((a, b) => a.index - b.index);
  for (const loc of sorted) {
    const start = Math.max(at, Math.min(text.length, loc.index));
    const end = Math.max(start, Math.min(text.length, loc.index + loc.length));
    if (start > at) span.append(text.slice(at, start));
    if (end > start) span.append(el('mark', {}, text.slice(start, end)));
    at = end;
  }
  if (at < text.length) span.append(text.slice(at));
  return span;
}
