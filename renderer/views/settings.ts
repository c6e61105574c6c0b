/**
 * Settings: where the NAS is (embedded demo, base URL or device record), "Sign in" (the
 * NAS's login page in the browser; the engine keeps the sign-in), the token (sent once to the
 * engine, which keeps it in the keychain or, without one, in memory; it is never read back), mirror folder, sync interval, pause, delete threshold, start at login, theme.
 */
import type { SettingsPatch, SettingsView } from '../../app/contract/shapes.js';
import { button, el, field, replace } from '../dom.js';
import { messageOf, type UiContext, type View } from '../context.js';

export function applyTheme(theme: SettingsView['theme']): void {
  if (theme === 'system') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', theme);
}

export function settingsView(ctx: UiContext): View {
  const source = el('select', { id: 'set-source', name: 'source' },
    el('option', { value: 'embedded' }, 'Built-in demo NAS'),
    el('option', { value: 'url' }, 'NAS base URL'),
    el('option', { value: 'device-record' }, 'Device record (file or URL)'));
  const location = el('input', { id: 'set-location', type: 'text', name: 'location', placeholder: 'http://nas.local:8080 or /path/to/device.json' });
  const token = el('input', { id: 'set-token', type: 'password', name: 'token', autocomplete: 'off', placeholder: 'Paste a new access token' });
  const tokenState = el('div', { id: 'token-state', class: 'hint', 'aria-live': 'polite' });
  const saveToken = button('Store token', () => void storeToken(), { id: 'store-token' });
  const forget = button('Forget token', () => void clearToken(), { id: 'forget-token', class: 'secondary' });
  const signInButton = button('Sign in', () => void signIn(), { id: 'sign-in' });
  const signInState = el('div', { id: 'sign-in-state', class: 'hint', 'aria-live': 'polite' });
  const mirror = el('input', { id: 'set-mirror', type: 'text', name: 'mirrorFolder' });
  const interval = el('input', { id: 'set-interval', type: 'number', min: '10', max: '86400', step: '10', name: 'syncIntervalSec' });
  const paused = el('input', { id: 'set-paused', type: 'checkbox', name: 'paused' });
  const thrCount = el('input', { id: 'set-thr-count', type: 'number', min: '1', name: 'deleteThresholdCount' });
  const thrPct = el('input', { id: 'set-thr-pct', type: 'number', min: '1', max: '100', name: 'deleteThresholdPercent' });
  const login = el('input', { id: 'set-login', type: 'checkbox', name: 'startAtLogin' });
  const theme = el('select', { id: 'set-theme', name: 'theme' }, el('option', { value: 'system' }, 'Follow the system'), el('option', { value: 'light' }, 'Light'), el('option', { value: 'dark' }, 'Dark'));
  const save = button('Save settings', () => void submit(), { id: 'save-settings', class: 'primary' });
  const saved = el('span', { id: 'settings-saved', class: 'hint', 'aria-live': 'polite' });

  const check = (c: HTMLInputElement, text: string): HTMLElement => el('div', { class: 'field check' }, c, el('label', { for: c.id }, text));
  const root = el('section', { class: 'view settings-view', 'aria-label': 'Settings' },
    el('form', { class: 'settings', id: 'settings-form' },
      el('fieldset', {}, el('legend', {}, 'NAS'),
        field('Connect to', source), field('Address', location, 'A base URL, or a device record (file path or URL): its LAN address is tried first, then the proxy URL.'),
        el('div', { class: 'row' }, signInButton), signInState,
        field('Or paste an access token', token, tokenState), el('div', { class: 'row' }, saveToken, forget)),
      el('fieldset', {}, el('legend', {}, 'Mirror'),
        field('Mirror folder', mirror), field('Sync interval (seconds)', interval), check(paused, 'Pause sync'),
        el('div', { class: 'row two' }, field('Hold deletes above (objects)', thrCount), field('or above (% of the mirror)', thrPct))),
      el('fieldset', {}, el('legend', {}, 'App'),
        check(login, 'Start at login'), field('Theme', theme)),
      el('div', { class: 'row' }, save, saved)));
  root.querySelector('form')?.addEventListener('submit', (e) => { e.preventDefault(); void submit(); });

  const show = (s: SettingsView): void => {
    save.disabled = false;
    source.value = s.source;
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
    const where = s.source === 'embedded' ? 'The built-in demo NAS uses a token minted at each start and held in memory only.'
      : s.signedIn && s.token === 'keychain' ? 'Signed in: the sign-in is kept in the system keychain and renewed by itself.'
      : s.signedIn ? 'Signed in for this session only: no keychain is available, you will sign in again after a restart.'
      : s.token === 'keychain' ? 'A token is stored in the system keychain.'
      : s.token === 'memory' ? (s.keychainAvailable ? 'A token is held in memory for this session only.' : 'No keychain is available: the token is kept in memory only and will be asked for again after a restart.')
      : s.keychainAvailable ? 'No token stored.' : 'No token stored. No keychain is available: a token you enter is kept in memory only.';
    replace(tokenState, where);
    forget.disabled = s.token === 'none';
    forget.textContent = s.signedIn ? 'Sign out' : 'Forget token';
    signInButton.disabled = s.source === 'embedded';
    signInButton.textContent = s.signedIn ? 'Sign in again' : 'Sign in';
    if (s.signedIn) replace(signInState, '');
  };

  // Edits in progress win over a background reload: a reload that lands while the user is
  // typing (or after they typed, before Save) refreshes only the token state.
  let dirty = false;
  const form = root.querySelector('form');
  form?.addEventListener('input', () => { dirty = true; });
  form?.addEventListener('change', () => { dirty = true; });

  const load = async (): Promise<void> => {
    try {
      const s = await ctx.client.call('getSettings', {});
      if (dirty) { save.disabled = false; showToken(s); } else show(s);
    } catch (e) { ctx.toast(messageOf(e), 'error'); }
  };

  source.addEventListener('change', () => { location.disabled = source.value === 'embedded'; });

  const num = (i: HTMLInputElement): number => Number.parseInt(i.value, 10);
  const submit = async (): Promise<void> => {
    const patch: SettingsPatch = {
      source: source.value as SettingsView['source'],
      location: location.value.trim(),
      mirrorFolder: mirror.value.trim(),
      syncIntervalSec: num(interval),
      paused: paused.checked,
      deleteThresholdCount: num(thrCount),
      deleteThresholdPercent: num(thrPct),
      theme: theme.value as SettingsView['theme'],
      ...(login.disabled ? {} : { startAtLogin: login.checked }),
    };
    try {
      const after = await ctx.client.call('updateSettings', { patch });
      dirty = false;
      show(after);
      replace(saved, 'Saved.');
    } catch (e) {
      replace(saved, '');
      ctx.toast(messageOf(e), 'error');
    }
  };

  const storeToken = async (): Promise<void> => {
    const t = token.value.trim();
    if (!t) return ctx.toast('Paste a token first.', 'error');
    try {
      show(await ctx.client.call('setToken', { token: t }));
      token.value = '';
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
    }
  };
  /** Opens the NAS's login page (Electron opens it; in browser mode this page does). */
  const signIn = async (): Promise<void> => {
    try {
      const { url, opened } = await ctx.client.call('signIn', {});
      if (!opened) window.open(url, '_blank', 'noopener');
      const link = el('a', { href: url, target: '_blank', rel: 'noopener' }, 'open it again');
      replace(signInState, el('span', {}, 'Sign in on the NAS\'s page in your browser, then come back here (', link, ').'));
    } catch (e) {
      replace(signInState, '');
      ctx.toast(messageOf(e), 'error');
    }
  };
  const clearToken = async (): Promise<void> => {
    try { show(await ctx.client.call('clearToken', {})); } catch (e) { ctx.toast(messageOf(e), 'error'); }
  };

  return {
    id: 'settings', title: 'Settings', root,
    activate() { replace(saved, ''); save.disabled = true; dirty = false; void load(); },
    refresh(what) { if (what === 'settings' && !root.hidden) void load(); },
  };
}
