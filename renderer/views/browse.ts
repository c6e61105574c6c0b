/**
 * Browse: the NAS folder tree from the offline index, one folder at a time, with
 * breadcrumbs. Folders open in place; files open or reveal their placeholder.
 * Keyboard: the listing is a grid with one active row (aria-activedescendant): up/down move
 * it, Enter opens it (a folder: into it; a file: Open), Shift+Enter reveals, Backspace or
 * Alt+Up goes up; Tab reaches the active row's buttons only. Long names are cut with an
 * ellipsis, the full name on hover.
 */
import type { ListResult } from '../../app/contract/shapes.js';
import { quoteOperator } from '../../app/filters/filters.js';
import { isFolder, type RemoteObject } from '../../app/model/remote-object.js';
import { button, el, perFrame, replace } from '../dom.js';
import { formatDate, formatSize, iconClass, plural } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';
import { MARKS_PER_FRAME, deviceMark, fillMarks, keepAction } from '../device-marks.js';
import { ignore } from '../../app/util/ignore.js';

export function browseView(ctx: UiContext): View {
  const crumbs = el('nav', { class: 'crumbs', 'aria-label': 'Folder path' });
  // explicit roles throughout: above the narrow width the rows are laid out as grids, not as a
  // table (style.css, .browse-listing), and the elements keep what they are to a screen reader
  const tbody = el('tbody', { id: 'browse-rows', role: 'rowgroup' });
  // sortable columns (the loaded rows, folders first either way): a button per header, aria-sort on it
  type Key = 'name' | 'size' | 'mTime';
  let sort: { key: Key; desc: boolean } = { key: 'name', desc: false };
  const heads = new Map<Key, HTMLTableCellElement>();
  const head = (key: Key, label: string): HTMLTableCellElement => {
    const th = el(
      'th',
      { scope: 'col', role: 'columnheader', class: `col-${key}`, 'aria-sort': key === 'name' ? 'ascending' : 'none' },
      button(
        label,
        () => {
          sort = { key, desc: sort.key === key ? !sort.desc : false };
          resort();
        },
        { class: 'sort', id: `sort-${key}` },
      ),
    );
    heads.set(key, th);
    return th;
  };
  const keys = el(
    'span',
    { class: 'sr-only', id: 'browse-keys' },
    "Up and down arrows move, Enter opens, Shift+Enter shows it in the file manager, Backspace goes up a folder, Tab reaches the row's buttons.",
  );
  // one Tab stop; the active row is said through aria-activedescendant (the focus stays here)
  const table = el(
    'table',
    {
      class: 'listing browse-listing',
      id: 'browse-table',
      role: 'grid',
      tabindex: '0',
      'aria-label': 'Folder contents',
      'aria-describedby': 'browse-keys',
      'aria-readonly': 'true',
    },
    el(
      'thead',
      { role: 'rowgroup' },
      el(
        'tr',
        { role: 'row' },
        head('name', 'Name'),
        head('size', 'Size'),
        head('mTime', 'Modified'),
        el('th', { scope: 'col', role: 'columnheader', class: 'col-actions' }, el('span', { class: 'sr-only' }, 'Actions')),
      ),
    ),
    tbody,
  );
  const empty = el('p', { class: 'empty', hidden: true }, 'This folder is empty.');
  const more = button('More', () => void load(current, true), { class: 'more', hidden: true });
  let folderPath = '';
  // Organize what this folder holds (files below it; the view says so in its query)
  const organize = button('Organize this folder…', () => ctx.show('organize', quoteOperator('in', folderPath || '/')), {
    class: 'small',
    id: 'organize-folder',
  });
  const root = el(
    'section',
    { class: 'view browse-view', 'aria-label': 'Browse' },
    el('div', { class: 'browse-head' }, crumbs, organize),
    keys,
    table,
    empty,
    more,
  );

  let current = 'root';
  let files: RemoteObject[] = [];
  /** The rows in the order shown, and the active one (-1: none). */
  let shown: RemoteObject[] = [];
  let active = -1;
  let parentId: string | null = null;
  let focusPending = false;
  /** Loads under way. */
  let loading = 0;
  let token = '';
  let seq = 0;

  const act = async (what: 'open' | 'reveal', f: RemoteObject): Promise<void> => {
    if (what === 'open') return ctx.openFile(f.id, f.name);
    try {
      await ctx.client.call(what, { id: f.id });
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };

  /** Words each row's mark and its Keep / Unpin button from the engine's states. */
  const marks = (): void => {
    fillMarks(
      ctx.client,
      tbody,
      files.map((f) => f.id),
    )
      .then((states) => {
        const isPinned = (b: HTMLButtonElement): boolean => states.get(b.dataset['keepFor'] ?? '') === 'pinned';
        const changed = [...tbody.querySelectorAll<HTMLButtonElement>('button.keep')].filter(
          (b) => b.dataset['pinned'] !== (isPinned(b) ? '1' : '') || b.textContent !== (isPinned(b) ? 'Unpin' : 'Keep'),
        );
        return perFrame(changed, MARKS_PER_FRAME, (b) => {
          const pinned = isPinned(b);
          b.dataset['pinned'] = pinned ? '1' : '';
          b.textContent = pinned ? 'Unpin' : 'Keep';
          b.setAttribute('aria-label', `${pinned ? 'Stop keeping' : 'Keep'} ${b.dataset['name'] ?? ''} on this device`);
        });
      })
      .catch(ignore('the marks are a hint: the rows stay usable without them'));
  };
  const keepOrFree = (b: HTMLButtonElement | 'free', f: RemoteObject): void => {
    const what = b === 'free' ? 'free' : b.dataset['pinned'] === '1' ? 'unpin' : 'pin';
    void keepAction(ctx.client, what, f.id, f.name, ctx.toast).then(marks);
  };

  const row = (f: RemoteObject, i: number): HTMLElement => {
    const folder = isFolder(f);
    // the name's button is for the mouse: the keyboard opens the active row with Enter
    const name = folder
      ? button(f.name, () => void load(f.id, false, true), { class: 'link name', 'data-id': f.id, title: f.name, tabindex: '-1' })
      : el('span', { class: 'name', 'data-id': f.id, title: f.name }, f.name);
    const tr = el(
      'tr',
      { class: folder ? 'folder' : 'file', id: `browse-row-${i}`, role: 'row', 'aria-selected': 'false' },
      el(
        'td',
        { class: 'name-cell', role: 'gridcell' },
        el('div', { class: 'name-line' }, el('span', { class: iconClass(f, folder), 'aria-hidden': 'true' }), name, deviceMark(f.id)),
      ),
      el('td', { class: 'num', role: 'gridcell' }, folder ? plural(f.childCount ?? 0, 'item', 'items') : formatSize(f.size)),
      el('td', { class: 'date', role: 'gridcell' }, formatDate(f.mTime)),
      el(
        'td',
        { class: 'actions', role: 'gridcell' },
        folder ? null : button('Open', () => void act('open', f), { 'aria-label': `Open ${f.name}`, tabindex: '-1' }),
        button('Reveal', () => void act('reveal', f), { 'aria-label': `Reveal ${f.name} in the file manager`, tabindex: '-1' }),
        keepButton(f),
        button('Free up space', () => keepOrFree('free', f), {
          class: 'free',
          tabindex: '-1',
          'aria-label': `Free up space: make ${f.name} ${folder ? 'and what it holds ' : ''}placeholders again`,
        }),
      ),
    );
    tr.addEventListener('click', () => setActive(i, false));
    return tr;
  };

  /** Marks a row active or not: its class, aria-selected, its buttons Tab stops or not (`row` makes them inactive). */
  const markActive = (tr: HTMLTableRowElement, on: boolean): void => {
    tr.classList.toggle('active', on);
    tr.setAttribute('aria-selected', String(on));
    for (const b of tr.querySelectorAll<HTMLButtonElement>('td.actions button')) b.tabIndex = on ? 0 : -1;
  };

  /** Makes row `i` the active one: marked, said (aria-activedescendant), its buttons the only Tab stops (only the rows that change are touched: a folder may show thousands). */
  function setActive(i: number, scroll = true): void {
    active = shown.length === 0 ? -1 : Math.max(0, Math.min(shown.length - 1, i));
    const tr = active >= 0 ? tbody.rows[active] : undefined;
    const was = tbody.querySelector<HTMLTableRowElement>('tr.active') ?? undefined;
    if (tr !== was) {
      if (was) markActive(was, false);
      if (tr) markActive(tr, true);
    }
    if (tr && scroll) tr.scrollIntoView({ block: 'nearest' });
    if (active >= 0) table.setAttribute('aria-activedescendant', `browse-row-${active}`);
    else table.removeAttribute('aria-activedescendant');
  }

  /** Enter on the active row: a folder opens in place, a file as Open does. */
  const openActive = (reveal: boolean): void => {
    const f = shown[active];
    if (!f) return;
    if (reveal) void act('reveal', f);
    else if (isFolder(f)) void load(f.id, false, true);
    else void act('open', f);
  };
  const keepButton = (f: RemoteObject): HTMLButtonElement => {
    const attrs = {
      class: 'keep',
      'data-keep-for': f.id,
      'data-name': f.name,
      'aria-label': `Keep ${f.name} on this device`,
      tabindex: '-1',
    };
    const b: HTMLButtonElement = button('Keep', () => keepOrFree(b, f), attrs);
    return b;
  };

  const render = (page: ListResult, append: boolean): void => {
    folderPath = page.folder.path.replace(/^\//, '');
    replace(
      crumbs,
      ...page.crumbs.flatMap((c, i) => {
        const last = i === page.crumbs.length - 1;
        // up a crumb: the folder on the way down is the active row there
        const below = page.crumbs[i + 1]?.id;
        const item = last
          ? el('span', { 'aria-current': 'location', class: 'crumb current', tabindex: '-1', title: c.name }, c.name)
          : button(c.name, () => void load(c.id, false, true, below), { class: 'link crumb', title: c.name });
        return i === 0 ? [item] : [el('span', { class: 'sep', 'aria-hidden': 'true' }, '/'), item];
      }),
    );
    parentId = page.crumbs.length > 1 ? page.crumbs[page.crumbs.length - 2]!.id : null;
    files = append ? [...files, ...page.files] : page.files;
    resort();
    empty.hidden = files.length > 0;
    more.hidden = page.pageToken === '';
  };

  function resort(): void {
    const dir = sort.desc ? -1 : 1;
    const val = (f: RemoteObject): string | number =>
      sort.key === 'name' ? f.name.toLowerCase() : sort.key === 'size' ? (isFolder(f) ? (f.childCount ?? 0) : (f.size ?? 0)) : f.mTime;
    const was = shown[active]?.id;
    shown = [...files].sort((a, b) => Number(isFolder(b)) - Number(isFolder(a)) || (val(a) < val(b) ? -dir : val(a) > val(b) ? dir : 0));
    replace(tbody, ...shown.map(row));
    // the active row stays the same object through a re-sort, "More" or a refresh
    const at = was === undefined ? -1 : shown.findIndex((f) => f.id === was);
    setActive(at >= 0 ? at : 0, false);
    marks();
    for (const [k, th] of heads) th.setAttribute('aria-sort', k === sort.key ? (sort.desc ? 'descending' : 'ascending') : 'none');
  }

  // on the listing: arrows move the active row, Enter opens it
  table.addEventListener('keydown', (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const onGrid = ev.target === table;
    const step = ev.key === 'ArrowDown' ? 1 : ev.key === 'ArrowUp' ? -1 : ev.key === 'PageDown' ? 10 : ev.key === 'PageUp' ? -10 : 0;
    if (step !== 0 || (onGrid && (ev.key === 'Home' || ev.key === 'End'))) {
      ev.preventDefault();
      setActive(ev.key === 'Home' ? 0 : ev.key === 'End' ? shown.length - 1 : active + step);
      if (!onGrid) table.focus({ preventScroll: true }); // from a row's button: back on the list
    } else if (onGrid && ev.key === 'Enter') {
      ev.preventDefault();
      openActive(ev.shiftKey);
    }
  });
  // a row's button focused (Tab, a click): its row is the active one
  tbody.addEventListener('focusin', (ev) => {
    const tr = (ev.target as HTMLElement).closest('tr');
    const i = tr ? Array.prototype.indexOf.call(tbody.rows, tr) : -1;
    if (i >= 0 && i !== active) setActive(i, false);
  });

  // Backspace or Alt+Up: up to the parent folder
  root.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement) return;
    if ((ev.key === 'Backspace' && !ev.altKey && !ev.ctrlKey && !ev.metaKey) || (ev.altKey && ev.key === 'ArrowUp')) {
      if (parentId === null) return;
      ev.preventDefault();
      void load(parentId, false, true, current); // the folder left is the active row up there
    }
  });

  /** Focus to the listing, its row `activeId` (else the first) active, or to the folder's name when empty. */
  const focusListing = (activeId?: string): void => {
    focusPending = false;
    window.scrollTo(0, 0);
    setActive(
      activeId === undefined
        ? 0
        : Math.max(
            0,
            shown.findIndex((f) => f.id === activeId),
          ),
    );
    (shown.length > 0 ? table : crumbs.querySelector<HTMLElement>('.crumb.current'))?.focus({ preventScroll: true });
  };
  /**
   * `moved`: the user opened a folder or a crumb here. The button they used is gone with the
   * old rows, so focus goes to the listing with its first row active (Enter goes on down,
   * Tab reaches that row's buttons) or to the folder's name when empty, and the page starts
   * at its top.
   */
  const load = async (folderId: string, append: boolean, moved = false, activeId?: string): Promise<void> => {
    const my = ++seq;
    loading++;
    try {
      const page = await ctx.client.call('list', append && token ? { folderId, pageToken: token } : { folderId });
      if (my !== seq) return;
      if (!append && folderId !== current) sort = { key: 'name', desc: false };
      current = folderId;
      token = page.pageToken;
      render(page, append);
      if (moved || focusPending) focusListing(activeId);
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    } finally {
      loading--;
      // a failed load still hands the keyboard over (to what the view shows)
      if (loading === 0 && focusPending) focusListing();
    }
  };

  return {
    id: 'browse',
    title: 'Browse',
    root,
    activate(arg) {
      void load(arg ?? current, false);
    },
    // the rows are rebuilt by the load that activate() started: focus once they are there
    focus() {
      // after the listing a load brings; now when none is under way (the tab switch's load
      // may have ended before this, on a loaded machine where the switch's timer came late)
      if (loading > 0) focusPending = true;
      else focusListing();
    },
    refresh(what) {
      if (!root.isConnected || root.hidden) return;
      if (what === 'index') void load(current, false);
      else if (what === 'content') marks();
    },
  };
}
