/**
 * The operators of a search query (ext:, kind:, in:, size:, date:, camera:, on:) as removable
 * chips under the search box, and the note that such a query is answered offline only
 * (the NAS has no operators). Removing a chip rewrites the query without that operator.
 */
import { describeFilter, parseFilters, withoutFilter } from '../../app/filters/filters.js';
import { button, el, type Child } from '../dom.js';

/** The chips for `q` (nothing when it has no operator); `onChange` gets the new query. */
export function filterChips(q: string, onChange: (next: string) => void): Child[] {
  const p = parseFilters(q);
  if (!p.ok || p.query.filters.length === 0) return [];
  return [
    ...p.query.filters.map((f, i) =>
      el(
        'span',
        { class: 'chip', 'data-op': f.op, title: f.raw },
        el('span', {}, describeFilter(f)),
        button('×', () => onChange(withoutFilter(q, p.query, i)), { class: 'chip-x', 'aria-label': `Remove filter ${describeFilter(f)}` }),
      ),
    ),
    el(
      'span',
      { class: 'offline-only', id: 'offline-only', title: 'The NAS search has no operators: these results come from the mirror only' },
      'offline only',
    ),
  ];
}

/** The operators, for the search box's hint. */
export const FILTER_HELP =
  'Filters: ext:jpg kind:photo|video|audio|doc|folder in:"Photos/2019" size:>100mb date:2019-05..2019-08 camera:canon ' +
  'on:device|nas|kept (content on this device, on the NAS only, kept here)';

/** The query narrowed to what is on this device, for a one-click "on this device only"; undefined when it already says where (`on:`) or does not parse. */
export function onDeviceQuery(q: string): string | undefined {
  if (!parseFilters(q).ok || hasOnFilter(q)) return undefined;
  return q.trim() === '' ? 'on:device' : `${q.trim()} on:device`;
}

/** True when the query narrows by where the content is (`on:`): its answer changes as files are kept, downloaded or freed. */
export function hasOnFilter(q: string): boolean {
  const p = parseFilters(q);
  return p.ok && p.query.filters.some((f) => f.op === 'on');
}
