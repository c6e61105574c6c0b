/**
 * The window's frame: header (online/offline badge, the state line on a row of its own,
 * progress bar during walks),
 * the view tabs, the views, and toasts. Keyboard: Alt+1..7 switch views, "/" jumps to search.
 */
import type { ContractClient } from '../app/contract/methods.js';
import type { AppStatus } from '../app/contract/shapes.js';
import { connectionWord, toResolve, trayView } from '../app/tray/tray-state.js';
import { walkWords } from '../app/tray/walk-words.js';
import { button, el, replace } from './dom.js';
import { statusWords, walkShown } from './status-words.js';
import { realPlurals } from './format.js';
import { VIEW_IDS, type UiContext, type View, type ViewId } from './context.js';
import { searchView } from './views/search.js';
import { browseView } from './views/browse.js';
import { activityView } from './views/activity.js';
import { conflictsView } from './views/conflicts.js';
import { applyTheme, settingsView } from './views/settings.js';
import { welcomeView } from './views/welcome.js';
import { fileOpener } from './open-file.js';
import { browserNotifier } from './notify.js';
import { organizeView } from './views/organize.js';
import { storageView } from './views/storage.js';
import type { Link } from './transport.js';
import { ignore } from '../app/util/ignore.js';

/** The banner of a window that lost its app (browser mode). */
const LINK_WORDS: Record<Link, string> = {
  up: '',
  down:
    'NAS Mirror is not answering (stopped, or restarting). This window reconnects when it is back; ' +
    'if you started it again, use the window it opened.',
  replaced:
    'NAS Mirror was restarted: this window belongs to its previous run and cannot reconnect. Use the window it opened ' +
    '(`nas-mirror ui` prints its address), then close this one.',
};

export function startApp(root: HTMLElement, client: ContractClient, opts: { notify?: boolean } = {}): { setLink(link: Link): void } {
  let status: AppStatus | null = null;
  const badge = el('span', { class: 'badge conn', id: 'conn-badge', role: 'status' }, '…');
  const stateLine = el('span', { class: 'state-line', id: 'state-line' });
  let fixView: ViewId = 'settings';
  /** The state line names a view that can fix what it says (its button shows, except on that view). */
  let fixWanted = false;
  const fixBtn = button('Settings', () => show(fixView), { id: 'state-fix', class: 'small link', hidden: true });
  const bar = el('div', { class: 'bar' });
  const progress = el(
    'div',
    { class: 'progress', id: 'walk-progress', role: 'progressbar', 'aria-label': 'Reading the NAS', hidden: true },
    bar,
  );
  const linkBanner = el('div', { class: 'banner', role: 'alert', hidden: true });
  const toasts = el('div', { class: 'toasts', 'aria-live': 'polite' });

  const opener = fileOpener(client, (m, level) => ctx.toast(m, level));
  toasts.append(opener.status);
  const ctx: UiContext = {
    client,
    openFile: (id, name) => opener.open(id, name),
    status: () => status,
    show: (id, arg) => show(id, arg),
    toast(message, level = 'info') {
      // (engine messages may still count in "file(s)": said in real plurals here)
      const t = el('div', { class: `toast ${level}`, role: level === 'error' ? 'alert' : 'status' }, realPlurals(message));
      toasts.append(t);
      setTimeout(() => t.remove(), level === 'error' ? 8000 : 4000);
    },
  };

  const views: Record<ViewId, View> = {
    search: searchView(ctx),
    browse: browseView(ctx),
    organize: organizeView(ctx),
    storage: storageView(ctx),
    activity: activityView(ctx),
    conflicts: conflictsView(ctx),
    settings: settingsView(ctx),
  };
  const tabs = new Map<ViewId, HTMLButtonElement>();
  const nav = el('nav', { class: 'tabs', role: 'tablist', 'aria-label': 'Views' });
  VIEW_IDS.forEach((id, i) => {
    const b = button(
      views[id].title,
      () => {
        show(id);
        focusView(id);
      },
      { role: 'tab', id: `tab-${id}`, 'aria-controls': `view-${id}`, title: `${views[id].title} (Alt+${i + 1})` },
    );
    tabs.set(id, b);
    nav.append(b);
    views[id].root.id = `view-${id}`;
    views[id].root.setAttribute('role', 'tabpanel');
    views[id].root.setAttribute('aria-labelledby', b.id);
  });
  nav.addEventListener('keydown', (ev) => {
    const i = VIEW_IDS.findIndex((id) => tabs.get(id) === document.activeElement);
    if (i < 0) return;
    const next =
      ev.key === 'ArrowRight' ? (i + 1) % VIEW_IDS.length : ev.key === 'ArrowLeft' ? (i + VIEW_IDS.length - 1) % VIEW_IDS.length : -1;
    if (next >= 0) {
      ev.preventDefault();
      show(VIEW_IDS[next]!);
      tabs.get(VIEW_IDS[next]!)?.focus();
    }
  });

  const syncBtn = button(
    'Sync now',
    () => {
      client
        .call('syncNow', {})
        .then(() => ctx.toast('Reading the NAS now…'))
        .catch((e: unknown) => ctx.toast(e instanceof Error ? e.message : String(e), 'error'));
    },
    { id: 'sync-now', class: 'small' },
  );
  const pauseBtn = button(
    'Pause',
    () => {
      const paused = !(status?.paused ?? false);
      client
        .call('setPaused', { paused })
        .then(refreshStatus)
        .catch((e: unknown) => ctx.toast(e instanceof Error ? e.message : String(e), 'error'));
    },
    { id: 'pause-toggle', class: 'small', 'aria-pressed': 'false' },
  );
  const header = el(
    'header',
    { class: 'top' },
    el('div', { class: 'brand' }, el('span', { class: 'logo', 'aria-hidden': 'true' }), el('h1', {}, 'NAS Mirror')),
    nav,
    el('div', { class: 'status', id: 'header-status' }, badge, syncBtn, pauseBtn),
    // the state line has a row of its own: whole at every width, never cut by the tabs
    el('div', { class: 'state-row', id: 'state-row' }, stateLine, fixBtn),
  );
  const main = el('main', { id: 'main' }, ...VIEW_IDS.map((id) => views[id].root));
  // First start (or a new mirror): the welcome replaces the views until a choice works.
  /** Set-up checks asked so far: an answer to an older one (or one asked before a choice landed) is stale. */
  let setUpAsked = 0;
  const welcome = welcomeView(ctx, () => {
    setUpAsked++;
    setUpMode(false);
    show('search');
    refreshStatus();
  });
  const welcomeMain = el('main', { id: 'welcome-main' }, welcome.root);
  replace(root, linkBanner, header, progress, main, welcomeMain, toasts, opener.root);
  // what sticks under the header (progress bar, search field) follows its height as it wraps
  new ResizeObserver(() =>
    document.documentElement.style.setProperty('--header-h', `${Math.round(header.getBoundingClientRect().height)}px`),
  ).observe(header);
  let settingUp = false;
  /**
   * Whether the first set-up check answered. Until then neither the welcome nor the main views
   * show: a fresh data folder flashed the search view before the welcome replaced it, and a
   * click or a typed search in that moment went to a view about to vanish.
   */
  let setUpKnown = false;
  function setUpMode(on: boolean): void {
    setUpKnown = true;
    settingUp = on;
    document.body.dataset['setup'] = String(on);
    welcome.root.hidden = !on;
    welcomeMain.hidden = !on;
    main.hidden = on;
    nav.hidden = on;
    syncBtn.hidden = pauseBtn.hidden = on;
    if (on) fixBtn.hidden = true;
  }
  function checkSetUp(): void {
    const asked = ++setUpAsked;
    client
      .call('getSettings', {})
      .then((s) => {
        // (a stale "not set up" put the welcome back over a mirror just set up, for good)
        if (asked !== setUpAsked) return;
        applyTheme(s.theme);
        const need = s.source === 'none';
        if (need) welcome.show(s, !settingUp);
        if (need !== settingUp || !setUpKnown) {
          setUpMode(need);
          if (need) (document.getElementById('setup-location') as HTMLInputElement | null)?.focus();
        }
      })
      .catch((e: unknown) => {
        // no answer (the link is down; the banner says so): the views, as before a set-up check
        if (!setUpKnown && asked === setUpAsked) setUpMode(false);
        ignore('the set-up check runs again when the link comes back')(e);
      });
  }

  let currentView: ViewId = 'search';
  function show(id: ViewId, arg?: string): void {
    currentView = id;
    for (const v of VIEW_IDS) {
      views[v].root.hidden = v !== id;
      tabs.get(v)?.setAttribute('aria-selected', String(v === id));
      tabs.get(v)?.setAttribute('tabindex', v === id ? '0' : '-1');
    }
    document.body.dataset['view'] = id;
    document.documentElement.dataset['view'] = id;
    fixBtn.hidden = settingUp || !fixWanted || id === fixView;
    views[id].activate(arg);
  }

  /** After a tab switch by click or Alt+N the keyboard lands in the view (arrow keys on the tab list keep it there, as tabs do). */
  function focusView(id: ViewId): void {
    const v = views[id];
    setTimeout(() => {
      if (v.focus) v.focus();
      else if (id === 'search') document.getElementById('search-input')?.focus();
      else {
        v.root.setAttribute('tabindex', '-1');
        v.root.focus({ preventScroll: true });
      }
    }, 0);
  }

  let walkPoll: ReturnType<typeof setTimeout> | undefined;
  const notify = opts.notify ? browserNotifier((v) => show(v)) : () => undefined;
  const renderStatus = (s: AppStatus): void => {
    const prev = status;
    if (prev !== s) notify(prev, s);
    status = s;
    const v = trayView(s, Date.now());
    badge.textContent = connectionWord(s);
    badge.dataset['conn'] = s.connection;
    document.body.dataset['tray'] = v.state;
    const words = statusWords(s);
    // a walk waiting on a NAS that does not answer: no progress bar beside "Offline" either
    const walking = walkShown(s);
    const walk = walking ? words.line : null;
    stateLine.textContent = realPlurals(words.line);
    stateLine.title = realPlurals(words.details);
    fixView = words.fix ?? 'settings';
    fixBtn.textContent = fixView === 'conflicts' ? 'Resolve' : 'Settings';
    fixWanted = words.fix !== null;
    fixBtn.hidden = settingUp || !fixWanted || currentView === fixView;
    progress.hidden = !walking;
    pauseBtn.textContent = s.paused ? 'Resume' : 'Pause';
    pauseBtn.setAttribute('aria-pressed', String(s.paused));
    syncBtn.disabled = s.paused || s.walk.running || s.connection === 'unconfigured';
    // walks report progress by polling: the engine emits status at their start and end
    if (s.walk.running && !walkPoll)
      walkPoll = setTimeout(() => {
        walkPoll = undefined;
        refreshStatus();
      }, 1000);
    if (walking) progress.setAttribute('aria-valuetext', walk ?? '');
    // a figure when the walk's total is settled, or a re-walk expects the last walk's size: the words' fraction
    const fraction = walking ? walkWords(s).fraction : null;
    const pct = fraction === null ? null : Math.floor(fraction * 100);
    progress.classList.toggle('known', pct !== null);
    if (pct === null) {
      progress.removeAttribute('aria-valuenow');
      bar.style.removeProperty('width');
    } else {
      progress.setAttribute('aria-valuenow', String(pct));
      bar.style.width = `${pct}%`;
    }
    const n = toResolve(s);
    const tab = tabs.get('conflicts');
    if (tab) replace(tab, 'Conflicts', n > 0 ? el('span', { class: 'count', id: 'conflict-count' }, n) : null);
    if (prev && (prev.conflicts !== s.conflicts || prev.heldDeletes !== s.heldDeletes || prev.uploads.held !== s.uploads.held))
      views.conflicts.refresh?.('conflicts');
    if (currentView === 'search') views.search.refresh?.('status');
  };

  client.on('status', renderStatus);
  client.on('changed', ({ what }) => {
    if (what === 'settings') checkSetUp();
    for (const id of VIEW_IDS) if (id === currentView || what === 'settings') views[id].refresh?.(what);
  });
  client.on('notice', ({ level, message }) => ctx.toast(message, level === 'error' ? 'error' : 'info'));

  document.addEventListener('keydown', (ev) => {
    if (settingUp) return;
    if (ev.altKey && /^[1-7]$/.test(ev.key)) {
      ev.preventDefault();
      const id = VIEW_IDS[Number(ev.key) - 1]!;
      show(id);
      focusView(id);
    } else if (
      ev.key === '/' &&
      !(ev.target instanceof HTMLInputElement || ev.target instanceof HTMLTextAreaElement || ev.target instanceof HTMLSelectElement)
    ) {
      ev.preventDefault();
      show('search');
    }
  });

  // "checked 5s ago" stays true between status events
  setInterval(() => {
    if (status) renderStatus(status);
  }, 5000);
  function refreshStatus(): void {
    client.call('status', {}).then(renderStatus).catch(ignore('the status comes again with the next event or the link coming back'));
  }
  main.hidden = nav.hidden = welcomeMain.hidden = syncBtn.hidden = pauseBtn.hidden = true;
  document.body.dataset['setup'] = 'pending';
  checkSetUp();
  refreshStatus();
  const hash = location.hash.replace(/^#/, '') as ViewId;
  show(VIEW_IDS.includes(hash) ? hash : 'search');
  return {
    setLink(link) {
      const up = link === 'up';
      linkBanner.hidden = up;
      linkBanner.textContent = LINK_WORDS[link];
      // a set-up may have finished (or a mirror been swapped) while the link was down
      if (up) {
        checkSetUp();
        refreshStatus();
        views[currentView].activate();
      }
    },
  };
}
