/**
 * Activity: one line per action in plain words (see app/activity/words.ts), newest first, with
 * whether the NAS took it; the engine's own record (path, reason, request numbers) one
 * click away under "Details". A filter by kind of action and a text filter; renames and
 * moves can be undone.
 */
import type { ActivityEntry } from '../../app/contract/shapes.js';
import { activityLines, type ActivityGroup, type ActivityLine } from '../../app/activity/words.js';
import { button, el, field, replace } from '../dom.js';
import { formatCount, formatDate, plural, realPlurals } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';

const GROUPS: [ActivityGroup | 'all', string][] = [
  ['all', 'Everything'],
  ['mine', 'My changes'],
  ['nas', 'Changes on the NAS'],
  ['needs-you', 'Needs me'],
  ['problem', 'Problems'],
  ['app', 'The app'],
];

export function activityView(ctx: UiContext): View {
  const list = el('ol', { class: 'activity', id: 'activity-list', 'aria-label': 'Recent activity' });
  const empty = el('p', { class: 'empty', id: 'activity-empty', hidden: true }, 'Nothing has happened yet.');
  const filter = el('select', { id: 'activity-filter', name: 'activity-filter' }, ...GROUPS.map(([v, t]) => el('option', { value: v }, t)));
  const text = el('input', {
    id: 'activity-search',
    type: 'search',
    name: 'activity-search',
    placeholder: 'Name or folder',
    autocomplete: 'off',
  });
  const count = el('span', { id: 'activity-count', class: 'hint', 'aria-live': 'polite' });
  const root = el(
    'section',
    { class: 'view activity-view', 'aria-label': 'Activity' },
    el('div', { class: 'row filters' }, field('Show', filter), field('Filter', text), count),
    list,
    empty,
  );

  let lines: ActivityLine[] = [];

  const undo = async (e: ActivityEntry, label: string, b: HTMLButtonElement): Promise<void> => {
    b.disabled = true;
    try {
      await ctx.client.call('undo', { id: e.id });
      ctx.toast(`Undoing: ${label}`);
      await load();
    } catch (err) {
      b.disabled = false;
      ctx.toast(messageOf(err), 'error');
    }
  };

  const row = (l: ActivityLine): HTMLElement => {
    const e = l.entry;
    const undoBtn = e.undoable
      ? button('Undo', (ev) => void undo(e, l.text, ev.currentTarget as HTMLButtonElement), {
          'aria-label': `Undo: ${l.text}`,
          class: 'undo small',
        })
      : null;
    return el(
      'li',
      { class: `entry group-${l.group} kind-${e.kind.replace(/[^a-z-]/gi, '')}`, 'data-id': e.id },
      el(
        'div',
        { class: 'entry-head' },
        el('span', { class: 'summary' }, l.text),
        l.state ? el('span', { class: `state ${l.state}` }, l.state === 'done' ? 'Done on the NAS' : 'Waiting to be sent') : null,
        e.undone ? el('span', { class: 'undone' }, 'Undone') : null,
        el('time', { datetime: e.at }, formatDate(e.at)),
        undoBtn,
      ),
      el(
        'details',
        { class: 'more' },
        el('summary', {}, 'Details'),
        ...l.raw.map((r) =>
          el(
            'div',
            { class: 'raw' },
            r.path ? el('div', { class: 'entry-path' }, r.path) : null,
            el('div', { class: 'reason' }, realPlurals(`${r.summary} — ${r.reason}`)),
          ),
        ),
      ),
    );
  };

  const render = (): void => {
    const g = filter.value;
    const t = text.value.trim().toLowerCase();
    const shown = lines.filter(
      (l) => (g === 'all' || l.group === g) && (!t || `${l.text} ${l.raw.map((r) => r.path).join(' ')}`.toLowerCase().includes(t)),
    );
    replace(list, ...shown.map(row));
    empty.hidden = shown.length > 0;
    replace(empty, lines.length === 0 ? 'Nothing has happened yet.' : 'Nothing matches this filter.');
    replace(
      count,
      lines.length === 0
        ? ''
        : shown.length === lines.length
          ? plural(lines.length, 'action', 'actions')
          : `${formatCount(shown.length)} of ${plural(lines.length, 'action', 'actions')}`,
    );
  };
  filter.addEventListener('change', render);
  text.addEventListener('input', render);

  const load = async (): Promise<void> => {
    try {
      const { entries } = await ctx.client.call('activity', { limit: 500 });
      lines = activityLines(entries);
      render();
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };

  return {
    id: 'activity',
    title: 'Activity',
    root,
    activate() {
      void load();
    },
    refresh(what) {
      if (what === 'activity' && !root.hidden) void load();
    },
  };
}
