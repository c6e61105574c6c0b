/** Activity: every decision of the engine with its reason; renames and moves can be undone. */
import type { ActivityEntry } from '../../app/contract/shapes.js';
import { button, el, replace } from '../dom.js';
import { formatDate } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';

export function activityView(ctx: UiContext): View {
  const list = el('ol', { class: 'activity', id: 'activity-list', 'aria-label': 'Recent activity' });
  const empty = el('p', { class: 'empty', hidden: true }, 'Nothing has happened yet.');
  const root = el('section', { class: 'view activity-view', 'aria-label': 'Activity' }, list, empty);

  const undo = async (e: ActivityEntry, b: HTMLButtonElement): Promise<void> => {
    b.disabled = true;
    try {
      await ctx.client.call('undo', { id: e.id });
      ctx.toast(`Undo queued: ${e.summary}`);
      await load();
    } catch (err) {
      b.disabled = false;
      ctx.toast(messageOf(err), 'error');
    }
  };

  const row = (e: ActivityEntry): HTMLElement => {
    let undoBtn: HTMLButtonElement | null = null;
    if (e.undoable) {
      const b = button('Undo', () => void undo(e, b), { 'aria-label': `Undo: ${e.summary}`, class: 'undo' });
      undoBtn = b;
    }
    return el('li', { class: `entry kind-${e.kind.replace(/[^a-z-]/gi, '')}`, 'data-id': e.id },
      el('div', { class: 'entry-head' },
        el('span', { class: 'badge' }, e.kind),
        el('span', { class: 'summary' }, e.summary),
        el('time', { datetime: e.at }, formatDate(e.at)),
        undoBtn ?? el('span', {})),
      e.path ? el('div', { class: 'entry-path' }, e.path) : null,
      el('div', { class: 'reason' }, e.reason));
  };

  const load = async (): Promise<void> => {
    try {
      const { entries } = await ctx.client.call('activity', { limit: 200 });
      replace(list, ...entries.map(row));
      empty.hidden = entries.length > 0;
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };

  return {
    id: 'activity', title: 'Activity', root,
    activate() { void load(); },
    refresh(what) { if (what === 'activity' && !root.hidden) void load(); },
  };
}
