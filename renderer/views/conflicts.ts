/**
 * Conflicts, held deletes and held uploads, each a table with headers, a button pair per row
 * and bulk buttons for the selected rows: a conflict keeps mine (sent again) or keeps the NAS
 * version; a file changed on both sides (both kept) also keeps both; a held delete is deleted from the NAS (after a confirmation naming how many
 * items go) or kept (placeholders back); a held upload (many new files at once) is uploaded
 * or kept on this computer only. Nothing happens without an explicit click.
 */
import type { BulkResult, ConflictEntry, HeldDelete, HeldUpload } from '../../app/contract/shapes.js';
import type { ConflictAction } from '../../app/model/intent.js';
import { confirmDialog } from '../confirm.js';
import { button, el, replace } from '../dom.js';
import { formatCount, formatDate, formatSize, plural, realPlurals } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';
import { emptyNasPanel } from './empty-nas.js';

interface Section<T> {
  root: HTMLElement;
  render(items: T[]): void;
}

interface Action<T> {
  /** Per row ("Keep mine") and in bulk ("Keep mine for the selected"). */
  label: string;
  bulk: string;
  key: string;
  className?: string;
  /** The rows it is offered on (default: all); its bulk button shows while one is listed. */
  applies?: (item: T) => boolean;
  run: (ids: string[]) => Promise<void>;
}

function section<T extends { id: string }>(opts: {
  id: string;
  title: string;
  emptyText: string;
  intro: string;
  headers: string[];
  actions: Action<T>[];
  /** Said under the table (hidden until filled). */
  note?: HTMLElement;
  name: (item: T) => string;
  cells: (item: T) => HTMLElement[];
}): Section<T> {
  const all = el('input', { type: 'checkbox', id: `${opts.id}-all`, 'aria-label': `Select all ${opts.title.toLowerCase()}` });
  const tbody = el('tbody', {});
  const empty = el('p', { class: 'empty' }, opts.emptyText);
  const buttons = opts.actions.map((a) =>
    button(a.bulk, () => void run(a.run, selected()), { class: a.className ?? '', 'data-action': a.key }),
  );
  const bar = el('div', { class: 'bulk-bar' }, el('label', { for: all.id, class: 'select-all' }, all, ' Select all'), ...buttons);
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      el('th', { class: 'check' }, el('span', { class: 'sr-only' }, 'Select')),
      ...opts.headers.map((h) => el('th', { scope: 'col' }, h)),
      el('th', { scope: 'col', class: 'actions' }, el('span', { class: 'sr-only' }, 'Actions')),
    ),
  );
  const table = el('table', { class: 'listing', id: `${opts.id}-table` }, head, tbody);
  const root = el(
    'section',
    { class: 'panel', id: opts.id, 'aria-labelledby': `${opts.id}-h` },
    el('h2', { id: `${opts.id}-h` }, opts.title),
    el('p', { class: 'intro' }, opts.intro),
    bar,
    el('div', { class: 'table-wrap' }, table),
    opts.note ?? null,
    empty,
  );

  const boxes = (): HTMLInputElement[] => [...tbody.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
  const sync = (): void => {
    const n = boxes().filter((b) => b.checked).length;
    buttons.forEach((b) => {
      b.disabled = n === 0;
    });
    all.checked = n > 0 && n === boxes().length;
  };
  all.addEventListener('change', () => {
    boxes().forEach((b) => {
      b.checked = all.checked;
    });
    sync();
  });
  const selected = (): string[] =>
    boxes()
      .filter((b) => b.checked)
      .map((b) => b.value);
  const run = async (fn: (ids: string[]) => Promise<void>, ids: string[]): Promise<void> => {
    if (ids.length === 0) return;
    buttons.forEach((b) => {
      b.disabled = true;
    });
    try {
      await fn(ids);
    } finally {
      sync();
    }
  };

  return {
    root,
    render(items) {
      replace(
        tbody,
        ...items.map((it) => {
          const name = opts.name(it);
          const box = el('input', { type: 'checkbox', value: it.id, id: `${opts.id}-${it.id}`, 'aria-label': `Select ${name}` });
          box.addEventListener('change', sync);
          const rowButtons = opts.actions
            .filter((a) => a.applies?.(it) ?? true)
            .map((a) =>
              button(a.label, () => void run(a.run, [it.id]), {
                class: `small ${a.className ?? ''}`,
                'data-row-action': a.key,
                'aria-label': `${a.label}: ${name}`,
              }),
            );
          return el(
            'tr',
            { 'data-id': it.id },
            el('td', { class: 'check' }, box),
            ...opts.cells(it),
            el('td', { class: 'actions' }, ...rowButtons),
          );
        }),
      );
      empty.hidden = items.length > 0;
      table.hidden = items.length === 0;
      bar.hidden = items.length === 0;
      opts.actions.forEach((a, i) => {
        buttons[i]!.hidden = a.applies !== undefined && !items.some(a.applies);
      });
      all.checked = false;
      sync();
    },
  };
}

/** The NAS's current name from the engine's `remote` ("\"name\" (eTag …)"), or null (deleted there). */
const nasName = (remote: string): string | null => {
  const m = /^(".*") \(eTag [^)]*\)$/.exec(remote);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return null;
  }
};
/** The "On the NAS" cell: its name now, deleted, or what the engine said (a change it could not send, a local-only target). */
const onNas = (remote: string): string => {
  const name = nasName(remote);
  if (name !== null) return `Now “${name}”`;
  if (remote === 'deleted on the NAS') return 'Deleted on the NAS';
  return remote.charAt(0).toUpperCase() + remote.slice(1);
};
const base = (p: string): string => p.replace(/\/+$/, '').slice(p.replace(/\/+$/, '').lastIndexOf('/') + 1) || p;
const folderOf = (p: string): string => {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
};

/**
 * A held "renamed or deleted?": the new items it may have become, each a button ("It was
 * renamed to …"); Delete from NAS and Keep stay the row's other choices.
 */
function renamedChoice(h: HeldDelete, choose: (to: string) => Promise<void>): HTMLElement {
  return el(
    'div',
    { class: 'renamed-choice' },
    el(
      'div',
      { class: 'summary' },
      `Gone from here while ${h.candidates!.length === 1 ? 'a new item' : 'new items'} appeared: renamed, or deleted?`,
    ),
    ...h.candidates!.map((to) =>
      button(`It was renamed to “${base(to)}”`, () => void choose(to), {
        class: 'small',
        'data-row-action': 'renamed',
        title: to,
        'aria-label': `${base(h.path)} was renamed to ${to}`,
      }),
    ),
  );
}

/** A change the NAS did not take: what you did, what the NAS holds now, when. */
function changeCells(c: ConflictEntry): HTMLElement[] {
  return [
    el(
      'td',
      {},
      el('div', { class: 'name' }, nasName(c.remote) ?? base(c.path)),
      el('div', { class: 'summary' }, `You: ${c.intent}`),
      el('div', { class: 'entry-path' }, `in ${folderOf(c.path)}`),
    ),
    el(
      'td',
      {},
      el('div', {}, onNas(c.remote)),
      el(
        'details',
        { class: 'more' },
        el('summary', {}, 'Details'),
        el('div', { class: 'reason' }, realPlurals(`${c.reason} — NAS: ${c.remote}`)),
      ),
    ),
    el('td', {}, el('time', { datetime: c.at }, formatDate(c.at))),
  ];
}

/** A file changed here and on the NAS: both versions in words (yours by its conflicted copy's name), and why a last choice failed. */
function versionCells(c: ConflictEntry, v: NonNullable<ConflictEntry['versions']>): HTMLElement[] {
  return [
    el(
      'td',
      {},
      el('div', { class: 'name' }, base(c.path)),
      el('div', { class: 'summary' }, 'Changed here and on the NAS: both kept'),
      el(
        'div',
        { class: 'summary version-mine' },
        `Your version: “${v.yours.name}”, ${formatSize(v.yours.size)}, changed ${formatDate(v.yours.modified)}`,
      ),
      el('div', { class: 'entry-path' }, `in ${folderOf(`/${c.path}`)}`),
      c.note !== undefined ? el('div', { class: 'conflict-note', role: 'status' }, `Not done: ${c.note}`) : null,
    ),
    el(
      'td',
      {},
      el('div', { class: 'version-nas' }, `NAS version: ${formatSize(v.nas.size)}, changed ${formatDate(v.nas.modified)}`),
      el('details', { class: 'more' }, el('summary', {}, 'Details'), el('div', { class: 'reason' }, c.reason)),
    ),
    el('td', {}, el('time', { datetime: c.at }, formatDate(c.at))),
  ];
}

export function conflictsView(ctx: UiContext): View {
  const confirm = confirmDialog('held-confirm');
  let heldItems: HeldDelete[] = [];
  const report = (r: BulkResult, verb: string): void => {
    const why = realPlurals(r.failed[0]?.message ?? '');
    ctx.toast(
      r.failed.length === 0
        ? `${verb}: ${plural(r.done, 'item', 'items')}.`
        : r.done === 0
          ? // (not "Kept your version: 0; 1 could not be: …"): as the row says it
            `Not done: ${why}`
          : `${verb}: ${plural(r.done, 'item', 'items')}; ${formatCount(r.failed.length)} could not be: ${why}`,
      r.failed.length ? 'error' : 'info',
    );
  };
  const call = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
    await load();
  };

  // the choice in the contract's words: a change the NAS did not take is re-applied or dropped; a file changed on both sides is kept as chosen
  let conflictItems: ConflictEntry[] = [];
  const choose =
    (mine: ConflictAction, intent: ConflictAction | null, verb: string, intentVerb = verb) =>
    (ids: string[]): Promise<void> =>
      call(async () => {
        const content = new Set(conflictItems.filter((c) => c.kind === 'content').map((c) => c.id));
        const calls: [ConflictAction, string[]][] = [
          [mine, ids.filter((i) => content.has(i))],
          ...(intent ? [[intent, ids.filter((i) => !content.has(i))] as [ConflictAction, string[]]] : []),
        ];
        const out: BulkResult = { done: 0, failed: [] };
        for (const [action, some] of calls) {
          if (some.length === 0) continue;
          const r = await ctx.client.call('resolveConflicts', { ids: some, action });
          out.done += r.done;
          out.failed.push(...r.failed);
        }
        report(out, calls[0]![1].length === 0 ? intentVerb : verb);
      });
  const conflicts = section<ConflictEntry>({
    id: 'conflicts',
    title: 'Conflicts',
    emptyText: 'No conflicts.',
    headers: ['Your change', 'On the NAS', 'When'],
    intro:
      'The NAS changed something you also changed here, or never gave an answer your change could be sent with. The NAS version is on disk for now; choose which one to keep. A file changed on both sides is kept twice until you choose: the NAS version at its name, yours beside it as a “conflicted copy”.',
    actions: [
      {
        label: 'Keep mine',
        bulk: 'Keep mine for the selected',
        key: 'keep-mine',
        run: choose('keep-mine', 'reapply', 'Kept your version', 'Sent again'),
      },
      {
        label: 'Keep the NAS version',
        bulk: 'Keep the NAS version for the selected',
        key: 'keep-nas',
        className: 'secondary',
        run: choose('keep-nas', 'drop', 'Kept the NAS version'),
      },
      {
        label: 'Keep both',
        bulk: 'Keep both for the selected',
        key: 'keep-both',
        className: 'secondary',
        applies: (c) => c.kind === 'content',
        run: choose('keep-both', null, 'Kept both'),
      },
    ],
    // named as it is on disk now (the NAS version), not by the path of a change that did not happen
    name: (c) => (c.kind === 'content' ? base(c.path) : (nasName(c.remote) ?? base(c.path))),
    cells: (c) => (c.versions ? versionCells(c, c.versions) : changeCells(c)),
  });

  const approve = async (ids: string[]): Promise<void> => {
    const chosen = heldItems.filter((h) => ids.includes(h.id));
    const objects = chosen.reduce((n, h) => n + Math.max(1, h.objects), 0);
    const what =
      chosen.length === 1
        ? `“${base(chosen[0]!.path)}”${objects > 1 ? ` and the ${plural(objects - 1, 'item', 'items')} in it` : ''}`
        : `${plural(chosen.length, 'entry', 'entries')} (${plural(objects, 'item', 'items')} in all)`;
    const ok = await confirm.ask(
      `Delete ${what} from the NAS?`,
      'They are deleted on the NAS itself, for every device. This app cannot bring them back.',
      chosen.length === 1 ? 'Delete from the NAS' : `Delete ${plural(objects, 'item', 'items')} from the NAS`,
    );
    if (ok) await call(async () => report(await ctx.client.call('resolveHeld', { ids, action: 'approve' }), 'Deleted from the NAS'));
  };
  const held = section<HeldDelete>({
    id: 'held',
    title: 'Deletes waiting for you',
    emptyText: 'No deletes are waiting.',
    headers: ['Deleted here', 'Size', 'Since'],
    intro:
      'You deleted more at once than your limit (Settings), or the app could not tell whether something was renamed or deleted, so these wait for you. Nothing has been deleted on the NAS yet.',
    actions: [
      { label: 'Delete from NAS', bulk: 'Delete the selected from the NAS', key: 'delete-from-nas', className: 'danger', run: approve },
      {
        label: 'Keep',
        bulk: 'Keep the selected (put them back)',
        key: 'keep',
        run: (ids) => call(async () => report(await ctx.client.call('resolveHeld', { ids, action: 'reject' }), 'Put back')),
      },
    ],
    name: (h) => base(h.path),
    cells: (h) => [
      el(
        'td',
        {},
        el('span', { class: `ico ${h.folder ? 'folder' : 'file'}`, 'aria-hidden': 'true' }),
        el('span', { class: 'name' }, base(h.path)),
        el('div', { class: 'entry-path' }, `in ${folderOf(h.path)}`),
        h.candidates
          ? renamedChoice(h, (to) =>
              call(async () => report(await ctx.client.call('heldWasRenamed', { id: h.id, to }), 'Sent as a rename')),
            )
          : null,
      ),
      el('td', {}, h.folder ? `folder, ${plural(h.objects, 'item', 'items')}` : 'file'),
      el('td', {}, el('time', { datetime: h.at }, formatDate(h.at))),
    ],
  });

  // a held upload's list may be cut short (a whole disk copied in): every row selected is then "all"
  let uploadsCut = false;
  let heldUploadCount = 0;
  const resolveUploads =
    (upload: boolean) =>
    (ids: string[]): Promise<void> =>
      call(async () => {
        const all = uploadsCut && ids.length === heldUploadCount;
        report(
          await ctx.client.call('resolveUploads', { ids: all ? ['all'] : ids, upload }),
          upload ? 'Upload approved' : 'Kept on this computer only',
        );
      });
  const uploadsMore = el('p', { class: 'intro', id: 'uploads-more', hidden: true });
  const uploads = section<HeldUpload>({
    id: 'uploads',
    title: 'New files waiting for your OK',
    emptyText: 'No new files are waiting.',
    headers: ['New here', 'What', 'Since'],
    intro:
      "You added more new files at once than your limit (the delete limit in Settings, or 5 GB), so nothing goes to the NAS until you say so. A folder's row covers everything in it. Kept on this computer only, they stay in your mirror folder and are not uploaded.",
    actions: [
      { label: 'Upload', bulk: 'Upload the selected', key: 'upload', run: resolveUploads(true) },
      {
        label: 'Keep on this computer only',
        bulk: 'Keep the selected on this computer only',
        key: 'keep-here',
        className: 'secondary',
        run: resolveUploads(false),
      },
    ],
    name: (u) => base(u.path),
    cells: (u) => [
      el(
        'td',
        {},
        el('span', { class: `ico ${u.folder ? 'folder' : 'file'}`, 'aria-hidden': 'true' }),
        el('span', { class: 'name' }, base(u.path)),
        el('div', { class: 'entry-path' }, `in ${folderOf(`/${u.path}`)}`),
      ),
      el('td', {}, u.folder ? 'folder, with everything in it' : 'file'),
      el('td', {}, el('time', { datetime: u.at }, formatDate(u.at))),
    ],
    note: uploadsMore,
  });

  const emptyNas = emptyNasPanel(confirm, (id, action) =>
    call(async () =>
      report(
        await ctx.client.call('resolveHeld', { ids: [id], action }),
        action === 'approve' ? 'The next check removes the placeholders' : 'Kept',
      ),
    ),
  );
  const root = el(
    'section',
    { class: 'view conflicts-view', 'aria-label': 'Conflicts, held deletes and held uploads' },
    emptyNas.root,
    conflicts.root,
    held.root,
    uploads.root,
    confirm.root,
  );

  const load = async (): Promise<void> => {
    try {
      const [r, up] = await Promise.all([ctx.client.call('conflicts', {}), ctx.client.call('heldUploads', {})]);
      // a NAS that looks empty has its own panel, in its own words
      heldItems = r.held.filter((h) => h.cause !== 'nas-looks-empty');
      emptyNas.render(r.held.find((h) => h.cause === 'nas-looks-empty'));
      conflictItems = r.conflicts;
      conflicts.render(r.conflicts);
      held.render(heldItems);
      heldUploadCount = up.held.length;
      uploadsCut = up.total > up.held.length;
      uploads.render(up.held);
      uploadsMore.hidden = !uploadsCut;
      uploadsMore.textContent = uploadsCut
        ? `Showing the first ${formatCount(up.held.length)} of ${formatCount(up.total)}: with every row selected, your choice covers all ${formatCount(up.total)}.`
        : '';
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };

  return {
    id: 'conflicts',
    title: 'Conflicts',
    root,
    activate() {
      void load();
    },
    refresh(what) {
      if (what === 'conflicts' && !root.hidden) void load();
    },
  };
}
