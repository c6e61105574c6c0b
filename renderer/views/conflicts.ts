/**
 * Conflicts and held deletes, each a list with checkboxes and bulk actions: re-apply or drop
 * a conflict's local intent; approve (delete on the NAS) or reject (restore the placeholders)
 * a held delete. Nothing happens without an explicit click.
 */
import type { BulkResult, ConflictEntry, HeldDelete } from '../../app/contract/shapes.js';
import { button, el, replace } from '../dom.js';
import { formatDate } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';

interface Section<T> {
  root: HTMLElement;
  render(items: T[]): void;
  selected(): string[];
}

function section<T extends { id: string }>(opts: {
  id: string; title: string; emptyText: string; intro: string;
  actions: { label: string; className?: string; run: (ids: string[]) => Promise<void> }[];
  cells: (item: T) => HTMLElement[];
}): Section<T> {
  const all = el('input', { type: 'checkbox', id: `${opts.id}-all`, 'aria-label': `Select all ${opts.title.toLowerCase()}` });
  const tbody = el('tbody', {});
  const empty = el('p', { class: 'empty' }, opts.emptyText);
  const buttons = opts.actions.map((a) => button(a.label, () => void run(a.run), { class: a.className ?? '', 'data-action': a.label.toLowerCase().replace(/\W+/g, '-') }));
  const bar = el('div', { class: 'bulk-bar' }, el('label', { for: all.id, class: 'select-all' }, all, ' Select all'), ...buttons);
  const table = el('table', { class: 'listing', id: `${opts.id}-table` }, tbody);
  const root = el('section', { class: 'panel', id: opts.id, 'aria-labelledby': `${opts.id}-h` }, el('h2', { id: `${opts.id}-h` }, opts.title), el('p', { class: 'intro' }, opts.intro), bar, table, empty);

  const boxes = (): HTMLInputElement[] => [...tbody.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  const sync = (): void => {
    const n = boxes().filter((b) => b.checked).length;
    buttons.forEach((b) => { b.disabled = n === 0; });
    all.checked = n > 0 && n === boxes().length;
  };
  all.addEventListener('change', () => { boxes().forEach((b) => { b.checked = all.checked; }); sync(); });
  const selected = (): string[] => boxes().filter((b) => b.checked).map((b) => b.value);
  const run = async (fn: (ids: string[]) => Promise<void>): Promise<void> => {
    const ids = selected();
    if (ids.length === 0) return;
    buttons.forEach((b) => { b.disabled = true; });
    try { await fn(ids); } finally { sync(); }
  };

  return {
    root,
    selected,
    render(items) {
      replace(tbody, ...items.map((it) => {
        const box = el('input', { type: 'checkbox', value: it.id, id: `${opts.id}-${it.id}`, 'aria-label': `Select ${it.id}` });
        box.addEventListener('change', sync);
        return el('tr', { 'data-id': it.id }, el('td', { class: 'check' }, box), ...opts.cells(it));
      }));
      empty.hidden = items.length > 0;
      table.hidden = items.length === 0;
      bar.hidden = items.length === 0;
      all.checked = false;
      sync();
    },
  };
}

export function conflictsView(ctx: UiContext): View {
  const report = (r: BulkResult, verb: string): void => {
    ctx.toast(r.failed.length === 0 ? `${verb} ${r.done}` : `${verb} ${r.done}; ${r.failed.length} failed: ${r.failed[0]?.message ?? ''}`, r.failed.length ? 'error' : 'info');
  };
  const call = async (fn: () => Promise<void>): Promise<void> => {
    try { await fn(); } catch (e) { ctx.toast(messageOf(e), 'error'); }
    await load();
  };

  const conflicts = section<ConflictEntry>({
    id: 'conflicts', title: 'Conflicts', emptyText: 'No conflicts.',
    intro: 'The NAS changed something you also changed locally. The NAS version is on disk; your change is kept here.',
    actions: [
      { label: 'Re-apply selected', run: (ids) => call(async () => report(await ctx.client.call('resolveConflicts', { ids, action: 'reapply' }), 'Re-applied')) },
      { label: 'Drop selected', className: 'secondary', run: (ids) => call(async () => report(await ctx.client.call('resolveConflicts', { ids, action: 'drop' }), 'Dropped')) },
    ],
    cells: (c) => [
      el('td', {}, el('div', { class: 'summary' }, c.intent), el('div', { class: 'entry-path' }, c.path)),
      el('td', {}, el('div', {}, `NAS: ${c.remote}`), el('div', { class: 'reason' }, c.reason)),
      el('td', {}, el('time', { datetime: c.at }, formatDate(c.at))),
    ],
  });

  const held = section<HeldDelete>({
    id: 'held', title: 'Held deletes', emptyText: 'No deletes are waiting.',
    intro: 'These deletes were held because one batch would delete more than your threshold. Nothing has been deleted on the NAS yet.',
    actions: [
      { label: 'Approve selected', className: 'danger', run: (ids) => call(async () => report(await ctx.client.call('resolveHeld', { ids, action: 'approve' }), 'Approved')) },
      { label: 'Reject selected', run: (ids) => call(async () => report(await ctx.client.call('resolveHeld', { ids, action: 'reject' }), 'Restored')) },
    ],
    cells: (h) => [
      el('td', {}, el('span', { class: `ico ${h.folder ? 'folder' : 'file'}`, 'aria-hidden': 'true' }), el('span', { class: 'entry-path' }, h.path)),
      el('td', {}, h.folder ? `${h.objects} objects` : 'file'),
      el('td', {}, el('time', { datetime: h.at }, formatDate(h.at))),
    ],
  });

  const root = el('section', { class: 'view conflicts-view', 'aria-label': 'Conflicts and held deletes' }, conflicts.root, held.root);

  const load = async (): Promise<void> => {
    try {
      const r = await ctx.client.call('conflicts', {});
      conflicts.render(r.conflicts);
      held.render(r.held);
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };

  return {
    id: 'conflicts', title: 'Conflicts', root,
    activate() { void load(); },
    refresh(what) { if (what === 'conflicts' && !root.hidden) void load(); },
  };
}
