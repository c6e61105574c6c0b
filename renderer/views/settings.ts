/**
 * Settings: where the NAS is (embedded demo, base URL or device record), "Sign in" (the
 * NAS's login page in the browser; the engine keeps the sign-in), the token (sent once to the
 * engine, which keeps it in the keychain or, without one, in memory; it is never read back),
 * mirror folder (a change MOVES it), sync interval, pause, delete threshold,
 * start at login, theme; and "Start a new mirror" for another NAS. Each field is checked
 * here in words before Save, and an engine refusal lands next to its field; "Saved." says
 * when it worked.
 */
import type { SettingsPatch, SettingsView } from '../../app/contract/shapes.js';
import { toResolve, toSendCount } from '../../app/tray/tray-state.js';
import { button, el, field, replace } from '../dom.js';
import { fieldErrors, fieldOf, sentence } from '../field-errors.js';
import { plural } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';
import { moveProgress } from '../move-progress.js';
import { previousMirrorsList } from '../previous-mirrors.js';

export function applyTheme(theme: SettingsView['theme']): void {
  if (theme === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', theme);
}

/** Whole numbers in a range, with the words to say when not. */
const NUMBERS = {
  syncIntervalSec: { min: 10, max: 86_400, words: 'Check the NAS every 10 to 86,400 seconds (10 s to one day).' },
  deleteThresholdCount: { min: 1, max: 1_000_000, words: 'Hold deletes above 1 to 1,000,000 items.' },
  deleteThresholdPercent: { min: 1, max: 100, words: 'Hold deletes above 1 to 100 % of the mirror.' },
} as const;

export function settingsView(ctx: UiContext): View {
  const errors = fieldErrors();
  const source = el(
    'select',
    { id: 'set-source', name: 'source' },
    el('option', { value: 'embedded' }, 'Built-in demo NAS'),
    el('option', { value: 'url' }, 'NAS base URL'),
    el('option', { value: 'device-record' }, 'Device record (file or URL)'),
  );
  const location = el('input', {
    id: 'set-location',
    type: 'text',
    name: 'location',
    placeholder: 'http://nas.local:8080 or /path/to/device.json',
  });
  const bound = el(
    'div',
    { id: 'set-bound', class: 'hint', hidden: true },
    'This mirror belongs to this NAS. To mirror another NAS, use "Start a new mirror" below.',
  );
  const token = el('input', {
    id: 'set-token',
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    placeholder: 'Paste a new access token',
  });
  const tokenState = el('div', { id: 'token-state', class: 'hint', 'aria-live': 'polite' });
  const saveToken = button('Store token', () => void storeToken(), { id: 'store-token' });
  const forget = button('Forget token', () => void clearToken(), { id: 'forget-token', class: 'secondary' });
  const signInButton = button('Sign in', () => void signIn(), { id: 'sign-in' });
  const signInState = el('div', { id: 'sign-in-state', class: 'hint', 'aria-live': 'polite' });
  const mirror = el('input', { id: 'set-mirror', type: 'text', name: 'mirrorFolder' });
  const openMirror = button(
    'Open mirror folder',
    () => {
      ctx.client.call('openMirrorFolder', {}).catch((e: unknown) => ctx.toast(sentence(messageOf(e)), 'error'));
    },
    { id: 'open-mirror', class: 'small' },
  );
  const interval = el('input', { id: 'set-interval', type: 'number', min: '10', max: '86400', step: '1', name: 'syncIntervalSec' });
  const paused = el('input', { id: 'set-paused', type: 'checkbox', name: 'paused' });
  const thrCount = el('input', { id: 'set-thr-count', type: 'number', min: '1', name: 'deleteThresholdCount' });
  const thrPct = el('input', { id: 'set-thr-pct', type: 'number', min: '1', max: '100', name: 'deleteThresholdPercent' });
  const login = el('input', { id: 'set-login', type: 'checkbox', name: 'startAtLogin' });
  const theme = el(
    'select',
    { id: 'set-theme', name: 'theme' },
    el('option', { value: 'system' }, 'Follow the system'),
    el('option', { value: 'light' }, 'Light'),
    el('option', { value: 'dark' }, 'Dark'),
  );
  const save = button('Save settings', () => void submit(), { id: 'save-settings', class: 'primary' });
  const saved = el('span', { id: 'settings-saved', class: 'hint', role: 'status' });
  const newMirror = button('Start a new mirror…', () => confirmNewMirror(), { id: 'new-mirror' });
  const dialog = newMirrorDialog(ctx);
  const previous = previousMirrorsList(ctx, 'settings-previous');

  const check = (c: HTMLInputElement, text: string): HTMLElement =>
    el('div', { class: 'field check' }, c, el('label', { for: c.id }, text));
  const root = el(
    'section',
    { class: 'view settings-view', 'aria-label': 'Settings' },
    el(
      'form',
      { class: 'settings', id: 'settings-form', novalidate: true },
      el(
        'fieldset',
        {},
        el('legend', {}, 'NAS'),
        field('Connect to', source),
        field(
          'Address',
          location,
          'A base URL, or a device record (file path or URL): its LAN address is tried first, then the proxy URL.',
        ),
        errors.slot(location),
        bound,
        el('div', { class: 'row' }, signInButton),
        signInState,
        field('Or paste an access token', token, tokenState),
        errors.slot(token),
        el('div', { class: 'row' }, saveToken, forget),
      ),
      el(
        'fieldset',
        {},
        el('legend', {}, 'Mirror'),
        field(
          'Mirror folder',
          mirror,
          'Changing it moves the folder, with every placeholder and file in it, to the new place (an empty or new folder; on another disk it is copied, checked, then the old one removed).',
        ),
        errors.slot(mirror),
        moveProgress(ctx.client),
        el('div', { class: 'row' }, openMirror),
        field('Check the NAS every (seconds)', interval),
        errors.slot(interval),
        check(paused, 'Pause sync'),
        el(
          'div',
          { class: 'row two' },
          el('div', {}, field('Hold deletes above (items)', thrCount), errors.slot(thrCount)),
          el('div', {}, field('or above (% of the mirror)', thrPct), errors.slot(thrPct)),
        ),
      ),
      el('fieldset', {}, el('legend', {}, 'App'), check(login, 'Start at login'), field('Theme', theme)),
      el('div', { class: 'row' }, save, saved),
      el(
        'fieldset',
        {},
        el('legend', {}, 'Another NAS'),
        el(
          'p',
          { class: 'hint' },
          'Mirror another NAS (or go from the demo to your own): the current mirror is put aside, nothing is lost.',
        ),
        el('div', { class: 'row' }, newMirror),
        previous.root,
      ),
    ),
    dialog.root,
  );
  root.querySelector('form')?.addEventListener('submit', (e) => {
    e.preventDefault();
    void submit();
  });

  let current: SettingsView | null = null;
  const show = (s: SettingsView): void => {
    current = s;
    previous.show(s);
    save.disabled = false;
    source.value = s.source === 'none' ? 'embedded' : s.source;
    location.value = s.location;
    location.disabled = s.source === 'embedded';
    mirror.value = s.mirrorFolder;
    interval.value = String(s.syncIntervalSec);
    paused.checked = s.paused;
    thrCount.value = String(s.deleteThresholdCount);
    thrPct.value = String(s.deleteThresholdPercent);
    login.checked = s.startAtLogin;
    login.disabled = !s.startAtLoginSupported;
    theme.value = s.theme;
    applyTheme(s.theme);
    showToken(s);
  };

  /** The token's state: refreshed even while the user is editing the form. */
  const showToken = (s: SettingsView): void => {
    const where =
      s.source === 'embedded'
        ? 'The built-in demo NAS uses a token made at each start and held in memory only.'
        : s.signedIn && s.token === 'keychain'
          ? 'Signed in: the sign-in is kept in the system keychain and renewed by itself.'
          : s.signedIn
            ? 'Signed in for this session only: no keychain is available, you will sign in again after a restart.'
            : s.token === 'keychain'
              ? 'A token is stored in the system keychain.'
              : s.token === 'memory'
                ? s.keychainAvailable
                  ? 'A token is held in memory for this session only.'
                  : 'No keychain is available: the token is kept in memory only and will be asked for again after a restart.'
                : s.keychainAvailable
                  ? 'No token stored.'
                  : 'No token stored. No keychain is available: a token you enter is kept in memory only.';
    replace(tokenState, where);
    forget.disabled = s.token === 'none';
    forget.textContent = s.signedIn ? 'Sign out' : 'Forget token';
    signInButton.disabled = s.source === 'embedded' || s.source === 'none';
    signInButton.textContent = s.signedIn ? 'Sign in again' : 'Sign in';
    if (s.signedIn) replace(signInState, '');
    const isBound = (ctx.status()?.indexed ?? 0) > 0 && s.source !== 'none';
    bound.hidden = !isBound;
  };

  // Edits in progress win over a background reload: a reload that lands while the user is
  // typing (or after they typed, before Save) refreshes only the token state.
  let dirty = false;
  const form = root.querySelector('form');
  form?.addEventListener('input', () => {
    dirty = true;
    replace(saved, '');
  });
  form?.addEventListener('change', () => {
    dirty = true;
  });

  const load = async (): Promise<void> => {
    try {
      const s = await ctx.client.call('getSettings', {});
      if (dirty) {
        save.disabled = false;
        showToken(s);
        current = s;
      } else show(s);
    } catch (e) {
      ctx.toast(sentence(messageOf(e)), 'error');
    }
  };

  source.addEventListener('change', () => {
    location.disabled = source.value === 'embedded';
  });

  /** The window's own checks, in words; null when a field is wrong (shown next to it). */
  const readPatch = (): SettingsPatch | null => {
    let ok = true;
    const num = (i: HTMLInputElement): number => {
      const rule = NUMBERS[i.name as keyof typeof NUMBERS];
      const v = Number(i.value.trim());
      if (i.value.trim() === '' || !Number.isInteger(v) || v < rule.min || v > rule.max) {
        errors.show(i.name, rule.words);
        ok = false;
      }
      return v;
    };
    const patch: SettingsPatch = {
      source: source.value as 'embedded' | 'url' | 'device-record',
      location: location.value.trim(),
      syncIntervalSec: num(interval),
      paused: paused.checked,
      deleteThresholdCount: num(thrCount),
      deleteThresholdPercent: num(thrPct),
      theme: theme.value as SettingsView['theme'],
      ...(login.disabled ? {} : { startAtLogin: login.checked }),
    };
    const m = mirror.value.trim();
    if (!m) {
      errors.show('mirrorFolder', 'Choose a mirror folder.');
      ok = false;
    } else patch.mirrorFolder = m;
    if (patch.source !== 'embedded' && !patch.location) {
      errors.show('location', 'Enter the NAS address or the path of its device record.');
      ok = false;
    }
    return ok ? patch : null;
  };

  const submit = async (): Promise<void> => {
    errors.clear();
    replace(saved, '');
    const patch = readPatch();
    if (!patch) return void root.querySelector<HTMLElement>('[aria-invalid=true]')?.focus();
    const moving = current !== null && patch.mirrorFolder !== current.mirrorFolder;
    save.disabled = true;
    if (moving) replace(saved, 'Moving the mirror folder…');
    try {
      const after = await ctx.client.call('updateSettings', { patch });
      dirty = false;
      show(after);
      replace(saved, moving ? `Saved. The mirror folder is now ${after.mirrorFolder}.` : 'Saved.');
    } catch (e) {
      replace(saved, '');
      const f = fieldOf(e);
      if (f === undefined || !errors.show(f, sentence(messageOf(e))))
        replace(saved, el('span', { class: 'error', role: 'alert' }, `Not saved: ${sentence(messageOf(e))}`));
    } finally {
      save.disabled = false;
    }
  };

  const storeToken = async (): Promise<void> => {
    errors.clear();
    const t = token.value.trim();
    if (!t) {
      errors.show('token', 'Paste a token first.');
      return;
    }
    if (/\s/.test(t)) {
      errors.show('token', 'A token has no spaces: paste it again.');
      return;
    }
    try {
      show(await ctx.client.call('setToken', { token: t }));
      token.value = '';
      replace(saved, 'Token stored.');
    } catch (e) {
      if (!errors.show(fieldOf(e) ?? 'token', sentence(messageOf(e)))) ctx.toast(sentence(messageOf(e)), 'error');
    }
  };
  /** Opens the NAS's login page (Electron opens it; in browser mode this page does). */
  const signIn = async (): Promise<void> => {
    try {
      const { url, opened } = await ctx.client.call('signIn', {});
      if (!opened) window.open(url, '_blank', 'noopener');
      const link = el('a', { href: url, target: '_blank', rel: 'noopener' }, 'open it again');
      replace(signInState, el('span', {}, "Sign in on the NAS's page in your browser, then come back here (", link, ').'));
    } catch (e) {
      // why (the NAS does not answer at that address...) stays beside the button, not only in a toast
      replace(signInState, sentence(messageOf(e)));
      ctx.toast(sentence(messageOf(e)), 'error');
    }
  };
  const clearToken = async (): Promise<void> => {
    try {
      const was = current?.signedIn === true;
      show(await ctx.client.call('clearToken', {}));
      replace(saved, was ? 'Signed out.' : 'Token forgotten.');
    } catch (e) {
      ctx.toast(sentence(messageOf(e)), 'error');
    }
  };

  const confirmNewMirror = (): void => {
    const st = ctx.status();
    dialog.open(current, st ? toSendCount(st) : 0, st ? toResolve(st) : 0);
  };

  return {
    id: 'settings',
    title: 'Settings',
    root,
    activate() {
      replace(saved, '');
      errors.clear();
      save.disabled = true;
      dirty = false;
      void load();
    },
    refresh(what) {
      if (what === 'settings' && !root.hidden) void load();
    },
  };
}

/** "Start a new mirror": says plainly what happens to the current one before doing it. */
function newMirrorDialog(ctx: UiContext): {
  root: HTMLDialogElement;
  open(s: SettingsView | null, pending: number, waiting: number): void;
} {
  const body = el('div', { id: 'new-mirror-body' });
  const go = button('Put this mirror aside and start a new one', () => void confirm(), { id: 'new-mirror-confirm', class: 'primary' });
  const cancel = button('Cancel', () => root.close(), { id: 'new-mirror-cancel' });
  const root = el(
    'dialog',
    { id: 'new-mirror-dialog', 'aria-labelledby': 'new-mirror-title' },
    el('h2', { id: 'new-mirror-title' }, 'Start a new mirror?'),
    body,
    el('div', { class: 'row' }, go, cancel),
  );
  const confirm = async (): Promise<void> => {
    go.disabled = true;
    try {
      await ctx.client.call('startNewMirror', {});
      root.close();
    } catch (e) {
      ctx.toast(sentence(messageOf(e)), 'error');
    } finally {
      go.disabled = false;
    }
  };
  return {
    root,
    open(s, pending, waiting) {
      const folder = s?.mirrorFolder ?? 'the mirror folder';
      replace(
        body,
        el(
          'ul',
          {},
          el(
            'li',
            {},
            'The folder ',
            el('code', {}, folder),
            ' stays where it is, with every placeholder and any file you added. Nothing is deleted, here or on the NAS.',
          ),
          el(
            'li',
            {},
            "This mirror's history (activity, ",
            pending > 0 ? plural(pending, 'change not yet sent', 'changes not yet sent') : 'no change waiting',
            waiting > 0 ? `, ${plural(waiting, 'item', 'items')} in Conflicts` : '',
            ') is kept in the app\'s data folder, under "previous"; the command line can carry on with it (nas-mirror run --state <that folder>).',
          ),
          el('li', {}, 'Then you choose: connect a NAS, or the demo, with a new mirror folder.'),
        ),
      );
      root.showModal();
      cancel.focus();
    },
  };
}
