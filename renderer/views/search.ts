/**
 * Search, the default view: results as you type from the offline index, highlighted
 * fragments, completion of the word being typed (Tab accepts), "did you mean" when nothing
 * matches, arrow keys to move, Enter to open, Shift+Enter to reveal in the file manager.
 * Each row has a tick (Space on the list, or a click) to pick objects for "Organize selected…";
 * "Select all" (or Ctrl+A on the list) ticks every loaded result, and unticks them when all
 * are ticked; the picks survive "More results" and clear on a new query. "On this device
 * only" (and the empty search's "Show what is on this device") adds `on:device` in one click.
 */
import type { SearchHit } from '../../app/contract/shapes.js';
import { isFolder } from '../../app/model/remote-object.js';
import { foldCase } from '../../app/search/fold.js';
import { button, el, perFrame, replace } from '../dom.js';
import { formatCount, formatSize, iconClass, joinPath, plural, whenOf } from '../format.js';
import { highlighted } from '../highlight.js';
import { statusWords } from '../status-words.js';
import { messageOf, type UiContext, type View } from '../context.js';
import { handOff } from '../selection.js';
import { FILTER_HELP, filterChips, hasOnFilter, onDeviceQuery } from './filter-chips.js';
import { deviceMark, fillMarks, keepAction } from '../device-marks.js';
import { ignore } from '../../app/util/ignore.js';

const PAGE = 50;
/** Result rows put on screen at once (a window's height of them); the others follow, as many a frame. */
const FIRST_ROWS = 16;
/** A search not back after this long (ms) no longer holds the next keystroke's. */
const STUCK_MS = 1000;

/** A row's Open / Reveal for the mouse (the keyboard has Enter / Shift+Enter on the list). */
function mouseAction(label: string, onClick: () => void): HTMLElement {
  const a = el('span', { class: 'act', title: label }, label);
  a.addEventListener('click', onClick);
  return a;
}
const items = (n: number): string => plural(n, 'item', 'items');

/**
 * The fragments worth a line under the name: a camera make the model repeats ("Canon" and
 * "Canon EOS R6") once, as the model.
 */
export function shownFragments<F extends { text: string }>(
  fragments: readonly F[],
  image: { cameraMake?: unknown; cameraModel?: unknown } | undefined,
): F[] {
  const make = typeof image?.cameraMake === 'string' ? foldCase(image.cameraMake.trim()) : '';
  const model = typeof image?.cameraModel === 'string' ? foldCase(image.cameraModel.trim()) : '';
  const repeated = make !== '' && model.startsWith(make) && fragments.some((fr) => foldCase(fr.text.trim()) === model);
  return repeated ? fragments.filter((fr) => foldCase(fr.text.trim()) !== make) : [...fragments];
}

/**
 * The words offered for Tab: true completions of the word being typed first; a fuzzy
 * neighbour ("home" for "rome") only when the query found nothing, so Tab never swaps a
 * word that matches for another one.
 */
export function completions(suggested: readonly string[], typed: string, hasResults: boolean): string[] {
  const t = foldCase(typed);
  const others = suggested.filter((w) => foldCase(w) !== t);
  const extensions = others.filter((w) => foldCase(w).startsWith(t));
  return extensions.length > 0 || hasResults ? extensions : others;
}

export function searchView(ctx: UiContext): View {
  const input = el('input', {
    type: 'search',
    id: 'search-input',
    placeholder: 'Search the NAS (works offline)…',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-label': 'Search',
    'aria-controls': 'results',
    'aria-autocomplete': 'list',
  });
  const completion = el('div', { class: 'completion', id: 'completion', role: 'listbox', 'aria-label': 'Word completion' });
  const meta = el('div', { class: 'search-meta', id: 'search-meta', 'aria-live': 'polite' });
  const keysHint = el(
    'span',
    { class: 'sr-only', id: 'results-keys' },
    'Enter opens the selected item, Shift+Enter shows it in the file manager, Space ticks it for Organize.',
  );
  // the selected row is said through aria-activedescendant, on the list and on the field (which drives it)
  const results = el('ul', {
    class: 'results',
    id: 'results',
    role: 'listbox',
    'aria-label': 'Results',
    'aria-describedby': 'results-keys',
    tabindex: '0',
  });
  const more = button('More results', () => void load(true), { class: 'more', hidden: true });
  const chips = el('div', { class: 'chips', id: 'filter-chips', 'aria-label': 'Filters' });
  const organize = button('Organize these…', () => ctx.show('organize', input.value.trim()), {
    class: 'small',
    id: 'organize-results',
    hidden: true,
  });
  const pickedCount = el('span', { id: 'picked-count', 'aria-live': 'polite' });
  const organizePicked = button(
    'Organize selected…',
    () => ctx.show('organize', handOff({ ids: [...picked.keys()], names: [...picked.values()] })),
    { class: 'small primary', id: 'organize-picked' },
  );
  const clearPicked = button(
    'Clear',
    () => {
      picked.clear();
      showPicked();
    },
    { class: 'small', id: 'clear-picked' },
  );
  const pickBar = el('div', { class: 'pick-bar', id: 'pick-bar', hidden: true }, pickedCount, organizePicked, clearPicked);
  // for the mouse, like the ticks: not a Tab stop between the field and the list (one Tab
  // reaches the results); the keyboard has Ctrl+A on the list, said by its description
  const pickAll = button('Select all', () => tickAll(), { class: 'small', id: 'pick-all', hidden: true, tabindex: '-1' });
  // likewise for the mouse: the keyboard types on:device (the hint lists the operators)
  const onlyHere = button('On this device only', () => narrowToDevice(), {
    class: 'small',
    id: 'only-on-device',
    hidden: true,
    tabindex: '-1',
    title: 'Adds on:device: only what is downloaded, changed or kept on this device',
  });
  const root = el(
    'section',
    { class: 'view search-view', 'aria-label': 'Search' },
    el('div', { class: 'search-box' }, input, completion),
    chips,
    el('div', { class: 'meta-row' }, meta, onlyHere, pickAll),
    pickBar,
    keysHint,
    results,
    more,
    organize,
  );

  let hits: SearchHit[] = [];
  let selected = -1;
  let pageToken = '';
  let seq = 0;
  let words: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Ticked objects, id -> name, in the order ticked; for the query they were ticked under. */
  const picked = new Map<string, string>();
  let pickedFor = '';

  const allTicked = (): boolean => hits.length > 0 && hits.every((h) => picked.has(h.file.id));
  const showPicked = (): void => {
    pickBar.hidden = picked.size === 0;
    pickAll.hidden = hits.length === 0;
    pickAll.textContent = allTicked() ? 'Unselect all' : `Select all ${formatCount(hits.length)}`;
    pickedCount.textContent = `${formatCount(picked.size)} selected`;
    results.querySelectorAll('li').forEach((li) => {
      const on = picked.has(li.dataset.id ?? '');
      li.setAttribute('aria-checked', String(on));
      li.querySelector('.pick')?.setAttribute('aria-checked', String(on));
    });
  };
  const toggle = (hit: SearchHit | undefined): void => {
    if (!hit) return;
    if (picked.has(hit.file.id)) picked.delete(hit.file.id);
    else picked.set(hit.file.id, hit.file.name);
    showPicked();
  };

  /** Every loaded result ticked (in list order after those ticked before), or all unticked when they all were. */
  const tickAll = (): void => {
    if (allTicked()) for (const h of hits) picked.delete(h.file.id);
    else for (const h of hits) if (!picked.has(h.file.id)) picked.set(h.file.id, h.file.name);
    showPicked();
  };

  const select = (i: number): void => {
    selected = Math.max(-1, Math.min(hits.length - 1, i));
    results.querySelectorAll('li').forEach((li, n) => {
      li.classList.toggle('selected', n === selected);
      li.setAttribute('aria-selected', String(n === selected));
      if (n === selected) li.scrollIntoView({ block: 'nearest' });
    });
    for (const owner of [results, input]) {
      if (selected >= 0) owner.setAttribute('aria-activedescendant', `hit-${selected}`);
      else owner.removeAttribute('aria-activedescendant');
    }
  };

  /** Words each result's mark (placeholder, on this device, kept) from the engine. */
  const marks = (): void => {
    void fillMarks(
      ctx.client,
      results,
      hits.map((h) => h.file.id),
    ).catch(ignore('the marks are a hint: the results stay usable without them'));
  };

  const act = async (what: 'open' | 'reveal', hit: SearchHit | undefined): Promise<void> => {
    if (!hit) return;
    if (what === 'open' && isFolder(hit.file)) return ctx.show('browse', hit.file.id);
    if (what === 'open') return ctx.openFile(hit.file.id, hit.here?.name ?? hit.file.name);
    try {
      await ctx.client.call(what, { id: hit.file.id });
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };

  const row = (hit: SearchHit, i: number): HTMLElement => {
    const f = hit.file;
    const byField = new Map(hit.fragments.map((fr) => [fr.text, fr]));
    const nameFrag = byField.get(f.name);
    const others = shownFragments(hit.fragments, f.image).filter((fr) => fr !== nameFrag);
    const when = whenOf(f);
    // renamed or moved here and not on the NAS yet: shown where the user put it (the NAS's name in the pending words)
    const name = hit.here?.name ?? f.name;
    const path = hit.here ? joinPath(hit.here.path, hit.here.name) : joinPath(hit.path, f.name);
    // the tick: not focusable (an option holds no controls); Space on the list ticks the
    // selected row, and the option itself says aria-checked
    const tick = el('span', {
      class: 'pick',
      role: 'checkbox',
      'aria-checked': String(picked.has(f.id)),
      'aria-label': `Select ${name}`,
      title: `Select ${name}`,
    });
    tick.addEventListener('click', (ev) => {
      ev.stopPropagation();
      select(i);
      toggle(hit);
    });
    const li = el(
      'li',
      {
        role: 'option',
        id: `hit-${i}`,
        'aria-selected': 'false',
        'aria-checked': String(picked.has(f.id)),
        'data-id': f.id,
        class: isFolder(f) ? 'hit folder' : 'hit file',
      },
      tick,
      el('span', { class: iconClass(f, isFolder(f)), 'aria-hidden': 'true' }),
      el(
        'div',
        { class: 'hit-main' },
        el('div', { class: 'hit-name', title: name }, nameFrag && name === f.name ? highlighted(f.name, nameFrag.locations) : name),
        el('div', { class: 'hit-path', title: path }, path),
        hit.pending ? el('div', { class: 'hit-pending' }, hit.pending) : null,
        others.length
          ? el('div', { class: 'hit-frags' }, ...others.map((fr) => el('span', { class: 'frag' }, highlighted(fr.text, fr.locations))))
          : null,
      ),
      el(
        'div',
        { class: 'hit-side' },
        el('span', {}, isFolder(f) ? items(f.childCount ?? 0) : formatSize(f.size)),
        when
          ? el(
              'time',
              {
                class: `hit-date ${when.taken ? 'taken' : 'modified'}`,
                datetime: when.iso,
                title: when.taken ? 'The date the photo was taken' : 'Last modified',
              },
              when.text,
            )
          : null,
        deviceMark(f.id),
      ),
      // one Tab stop for the whole list (Enter opens, Shift+Enter reveals, said by the list's
      // description): these are for the mouse. Not buttons: an option holds no controls (axe
      // nested-interactive), so assistive technology hears one option with its two keys.
      el(
        'div',
        { class: 'hit-actions', 'aria-hidden': 'true' },
        mouseAction(isFolder(f) ? 'Browse' : 'Open', () => void act('open', hit)),
        mouseAction('Reveal', () => void act('reveal', hit)),
        mouseAction('Keep', () => void keepAction(ctx.client, 'pin', f.id, name, ctx.toast).then(marks)),
        mouseAction('Free up space', () => void keepAction(ctx.client, 'free', f.id, name, ctx.toast).then(marks)),
      ),
    );
    li.addEventListener('click', (ev) => {
      if (!(ev.target as HTMLElement).classList.contains('act')) select(i);
    });
    li.addEventListener('dblclick', () => void act('open', hit));
    return li;
  };

  const showCompletion = (): void => {
    replace(
      completion,
      ...words.map((w, i) => {
        const b = button(w, () => accept(w), { class: 'word', role: 'option', tabindex: '-1', 'data-word': w });
        if (i === 0) b.classList.add('first');
        return b;
      }),
    );
    completion.hidden = words.length === 0;
  };

  const accept = (word: string): void => {
    const v = input.value;
    const cut = v.search(/\S*$/);
    input.value = `${v.slice(0, cut)}${word} `;
    words = [];
    showCompletion();
    input.focus();
    schedule(0);
  };

  /** The query with `on:device` added (a query that already says where stays as it is). */
  const narrowToDevice = (): void => {
    const next = onDeviceQuery(input.value);
    if (next === undefined) return;
    input.value = next;
    schedule(0);
    input.focus();
  };

  /** The word being typed: the text's last word, none after a space. */
  const wordTyped = (): string | undefined => /(\S+)$/.exec(input.value)?.[1];

  const load = async (append: boolean): Promise<void> => {
    const q = input.value.trim();
    const my = ++seq;
    replace(
      chips,
      ...filterChips(q, (next) => {
        input.value = next;
        schedule(0);
        input.focus();
      }),
    );
    onlyHere.hidden = q === '' || onDeviceQuery(q) === undefined;
    if (q !== pickedFor) {
      picked.clear();
      pickedFor = q;
      showPicked();
    }
    if (!q) {
      hits = [];
      pageToken = '';
      replace(results);
      more.hidden = true;
      organize.hidden = true;
      words = [];
      showCompletion();
      showPicked();
      hint();
      return;
    }
    const last = wordTyped();
    // the completions are asked beside the search, but the results never wait for them: the
    // first one after a start loads the word list (a second at a million names)
    // (the search goes first: the engine answers in the order asked)
    const searched = ctx.client.call('search', append && pageToken ? { q, limit: PAGE, pageToken } : { q, limit: PAGE });
    let suggested: { words: string[] } | undefined;
    const sugg = (
      !append && last && !last.includes('"')
        ? ctx.client.call('suggest', { prefix: last, limit: 6 }).catch(() => ({ words: [] }))
        : Promise.resolve({ words: [] })
    ).then((s) => (suggested = s));
    try {
      const page = await searched;
      if (my !== seq) return;
      const from = append ? hits.length : 0;
      hits = append ? [...hits, ...page.matches] : page.matches;
      pageToken = page.pageToken;
      // the rows a window shows first go now, the others over the next frames: 50 new rows at
      // once were one task of ~30 ms of the window's thread (their style and layout), ~50 ms
      // while a transfer kept the machine busy; the marks once every row is there
      const rows = hits.slice(from).map((h, k) => row(h, from + k));
      if (!append) replace(results);
      results.append(...rows.slice(0, FIRST_ROWS));
      void perFrame(rows.slice(FIRST_ROWS), FIRST_ROWS, (li) => {
        if (my !== seq) return;
        const i = Number(li.id.slice('hit-'.length));
        li.classList.toggle('selected', i === selected);
        li.setAttribute('aria-selected', String(i === selected));
        results.append(li);
      }).then(() => {
        if (my === seq) marks();
      });
      more.hidden = pageToken === '';
      organize.hidden = hits.length === 0;
      showPicked();
      const count = `${formatCount(hits.length)}${pageToken ? '+' : ''} result${hits.length === 1 && !pageToken ? '' : 's'}`;
      replace(meta, el('span', { id: 'result-count' }, count));
      if (!append) {
        const fill = (sg: { words: string[] }): void => {
          words = completions(sg.words, last ?? '', page.matches.length > 0);
          showCompletion();
        };
        // answered with the search as a rule (shown before the next frame either way); else when it comes
        if (suggested) fill(suggested);
        else {
          words = [];
          showCompletion();
          void sugg.then((sg) => {
            if (my === seq) fill(sg);
          });
        }
      }
      if (hits.length === 0 && !page.offlineOnly) {
        const dym = await ctx.client.call('didYouMean', { q });
        if (my !== seq) return;
        if (dym.suggestion) {
          const link = button(
            dym.suggestion,
            () => {
              input.value = dym.suggestion ?? '';
              schedule(0);
            },
            { class: 'link', id: 'did-you-mean' },
          );
          replace(meta, el('span', {}, 'No results. Did you mean '), link, el('span', {}, '?'));
        } else replace(meta, el('span', { id: 'result-count' }, 'No results'));
      }
      select(append ? selected : hits.length > 0 ? 0 : -1);
    } catch (e) {
      if (my !== seq) return;
      // what was shown belongs to another query: it goes, and the reason is said in words
      hits = [];
      pageToken = '';
      replace(results);
      more.hidden = true;
      organize.hidden = true;
      showPicked();
      replace(meta, el('span', { class: 'error', id: 'search-error' }, searchError(messageOf(e))));
    }
  };

  /** With no query: what can be searched, and that it works offline. */
  const hint = (): void => {
    const st = ctx.status();
    if (!st) return replace(meta);
    const n = st.indexed;
    const items = plural(n, 'file or folder', 'files and folders');
    if (n === 0 && !st.walk.running) {
      // nothing to search yet: say why, and where to put it right
      const w = statusWords(st);
      return replace(
        meta,
        el(
          'span',
          { class: 'hint', id: 'search-hint' },
          `Nothing is mirrored yet. ${w.line} `,
          w.fix === 'settings' ? button('Open Settings', () => ctx.show('settings'), { class: 'link', id: 'search-to-settings' }) : null,
        ),
      );
    }
    replace(
      meta,
      el(
        'span',
        { class: 'hint', id: 'search-hint' },
        st.walk.running && st.lastCompleteWalk === null
          ? // the header says how far the walk is (its own count); this, what search covers already
            `Search already works on the ${items} read so far.`
          : `Type to search ${items}. Works offline; ↑ ↓ to move, Enter to open, Shift+Enter to reveal, Tab to complete, Space on the list to tick a result for Organize. ${FILTER_HELP} `,
        st.walk.running && st.lastCompleteWalk === null
          ? null
          : button('Show what is on this device', () => narrowToDevice(), { class: 'link', id: 'search-on-device' }),
      ),
    );
  };

  const schedule = (ms: number): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void load(false), ms);
  };

  /**
   * As you type, no pause: each keystroke asks at once when no search is on its way, else
   * the newest text is asked once that one is back (one in flight, the latest wins; the
   * engine answers in a millisecond, so a pause only made every keystroke wait). A search
   * not back within STUCK_MS (an app switching its mirror) does not hold the next one: that
   * one is asked at once, and the late answer is dropped (`seq`).
   */
  let asking: { at: number } | undefined;
  let askAgain = false;
  const searchNow = (): void => {
    if (timer) clearTimeout(timer);
    // the completions shown were for the text before this keystroke: only those that still
    // complete the word now typed stay (Tab pressed before this text's own arrive must not put
    // back a word of the last query: a Tab right after typing "rome" took the one of "img")
    const last = wordTyped();
    const kept = last ? completions(words, last, true) : [];
    if (kept.length !== words.length) {
      words = kept;
      showCompletion();
    }
    if (asking && performance.now() - asking.at < STUCK_MS) {
      askAgain = true;
      return;
    }
    const mine = { at: performance.now() };
    asking = mine;
    askAgain = false;
    void load(false).finally(() => {
      if (asking !== mine) return;
      asking = undefined;
      if (askAgain) searchNow();
    });
  };

  input.addEventListener('input', searchNow);
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown') {
      ev.preventDefault();
      select(selected + 1);
    } else if (ev.key === 'ArrowUp') {
      ev.preventDefault();
      select(selected - 1);
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      void act(ev.shiftKey ? 'reveal' : 'open', hits[selected]);
    } else if (ev.key === 'Tab' && words.length > 0 && !ev.shiftKey) {
      ev.preventDefault();
      accept(words[0]!);
    } else if (ev.key === 'Escape') {
      input.value = '';
      schedule(0);
    }
  });
  results.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown') {
      ev.preventDefault();
      select(selected + 1);
    } else if (ev.key === 'ArrowUp') {
      ev.preventDefault();
      select(selected - 1);
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      void act(ev.shiftKey ? 'reveal' : 'open', hits[selected]);
    } else if (ev.key === ' ') {
      ev.preventDefault();
      toggle(hits[selected]);
    } else if (ev.key.toLowerCase() === 'a' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      tickAll();
    }
  });

  return {
    id: 'search',
    title: 'Search',
    root,
    activate(arg) {
      if (arg !== undefined) {
        input.value = arg;
        schedule(0);
      } else if (!input.value.trim()) hint();
      input.focus();
    },
    refresh(what) {
      if (!input.value.trim()) hint();
      else if (what === 'index') schedule(200);
      // what is on this device changed: a search narrowed by it (on:) answers again
      else if (what === 'content' && hasOnFilter(input.value)) schedule(200);
      else if (what === 'content') marks();
    },
  };
}

/** A search the engine refused, in words (the contract's checks speak of `args.q`). */
function searchError(message: string): string {
  const long = /^args\.q: longer than (\d+)/.exec(message);
  if (long) return `The search is too long: at most ${formatCount(Number(long[1]))} characters. Shorten it to search.`;
  if (/^args\.q\b/.test(message)) return 'This search cannot be run as typed: check its quotes and operators.';
  return `The search did not run: ${message}`;
}
