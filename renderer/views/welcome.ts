/**
 * The first start (and a new mirror after "Start a new mirror"): "Connect your NAS" (its
 * address or device record, then "Sign in" on the NAS's page or a pasted token) or "Try the demo", with the mirror folder
 * both use. The engine checks everything before it saves anything (`setUp`); its errors
 * land next to the field they are about. Shown instead of the views until a choice works.
 */
import type { SettingsView } from '../../app/contract/shapes.js';
import { button, el, field, replace } from '../dom.js';
import { fieldErrors, fieldOf, sentence, type FieldErrors } from '../field-errors.js';
import { messageOf, type UiContext } from '../context.js';
import { previousMirrorsList } from '../previous-mirrors.js';

/**
 * "Sign in" (OAuth, issue 9): opens the NAS's login page for the NAS at `location()` (the
 * sign-in goes to the keychain on the engine's side, never here); when the engine says it
 * worked (`changed: settings`, seen by the welcome as `signedIn`), `signedIn()` runs the
 * set-up without a pasted token. Errors land next to the address field.
 */
function signInControl(
  ctx: UiContext,
  location: () => string,
  errors: FieldErrors,
): { root: HTMLElement; pending(): boolean; done(): void } {
  const state = el('div', { id: 'setup-sign-in-state', class: 'hint', 'aria-live': 'polite' });
  let waiting = false;
  const start = async (): Promise<void> => {
    errors.clear();
    const where = location();
    if (!where) {
      errors.show('location', 'Enter the NAS address or the path of its device record.');
      return;
    }
    try {
      const { url, opened } = await ctx.client.call('signIn', { location: where });
      if (!opened) window.open(url, '_blank', 'noopener');
      waiting = true;
      const link = el('a', { href: url, target: '_blank', rel: 'noopener' }, 'open it again');
      replace(state, el('span', {}, "Sign in on the NAS's page in your browser; this window goes on by itself (", link, ').'));
    } catch (e) {
      replace(state, '');
      if (!errors.show(fieldOf(e) ?? 'location', sentence(messageOf(e)))) ctx.toast(sentence(messageOf(e)), 'error');
    }
  };
  const btn = button('Sign in', () => void start(), { id: 'setup-sign-in' });
  return {
    root: el(
      'div',
      {},
      el('div', { class: 'row' }, btn),
      el('p', { class: 'hint' }, "Sign in on the NAS's own page: nothing to paste."),
      state,
    ),
    pending: () => waiting,
    done() {
      waiting = false;
      replace(state, '');
    },
  };
}

export interface Welcome {
  readonly root: HTMLElement;
  /** `entering`: the welcome was not shown before (the suggested mirror folder is filled in afresh). */
  show(s: SettingsView, entering: boolean): void;
}

export function welcomeView(ctx: UiContext, done: () => void): Welcome {
  const errors = fieldErrors();
  const location = el('input', {
    id: 'setup-location',
    type: 'text',
    name: 'location',
    autocomplete: 'off',
    placeholder: 'http://nas.local:8080 or /path/to/device.json',
  });
  const token = el('input', {
    id: 'setup-token',
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    placeholder: 'Paste the access token',
  });
  const mirror = el('input', { id: 'setup-mirror', type: 'text', name: 'mirrorFolder', autocomplete: 'off' });
  const connectBtn = button('Connect', () => void run('nas'), { id: 'setup-connect', class: 'primary' });
  const demoBtn = button('Try the demo', () => void run('demo'), { id: 'setup-demo', class: 'primary' });
  const busy = el('p', { id: 'setup-busy', class: 'hint', 'aria-live': 'polite' });
  const previous = previousMirrorsList(ctx, 'setup-previous');
  const signIn = signInControl(ctx, () => location.value.trim(), errors);

  const root = el(
    'section',
    { class: 'welcome', id: 'welcome', 'aria-labelledby': 'welcome-title', hidden: true },
    el('h2', { id: 'welcome-title' }, 'Welcome to NAS Mirror'),
    el(
      'p',
      { class: 'intro' },
      'NAS Mirror keeps a folder on this computer with a placeholder for every file on your NAS, searches it instantly, even offline, and sends your renames, moves and deletes back to the NAS.',
    ),
    el(
      'div',
      { class: 'choices' },
      el(
        'form',
        { class: 'choice', id: 'setup-nas', 'aria-labelledby': 'setup-nas-title' },
        el('h3', { id: 'setup-nas-title' }, 'Connect your NAS'),
        field(
          'NAS address or device record',
          location,
          'The address your NAS shows (http://…), or the device record file (device.json) it gave you: its home-network address is tried first, then its remote one.',
        ),
        errors.slot(location),
        signIn.root,
        field('Or an access token', token, 'Made on the NAS for this app. It is kept in the system keychain, never in a file.'),
        errors.slot(token),
        el('div', { class: 'row' }, connectBtn),
      ),
      el(
        'div',
        { class: 'choice', id: 'setup-demo-card', role: 'group', 'aria-labelledby': 'setup-demo-title' },
        el('h3', { id: 'setup-demo-title' }, 'Try the demo'),
        el(
          'p',
          {},
          'A demo NAS with about two thousand sample photos, videos and documents runs on this computer: try search, renames and moves without touching a real NAS. Nothing leaves this machine.',
        ),
        el('p', { class: 'hint' }, 'Later, Settings → "Start a new mirror" connects your own NAS; the demo mirror stays where it is.'),
        el('div', { class: 'row' }, demoBtn),
      ),
    ),
    el(
      'div',
      { class: 'mirror-choice' },
      field('Mirror folder', mirror, 'Where the placeholders go: an empty or new folder. You can move it later in Settings.'),
      errors.slot(mirror),
    ),
    busy,
    previous.root,
  );
  root.querySelector('form')?.addEventListener('submit', (e) => {
    e.preventDefault();
    void run('nas');
  });

  const run = async (choice: 'demo' | 'nas'): Promise<void> => {
    errors.clear();
    if (choice === 'nas' && !location.value.trim()) {
      errors.show('location', 'Enter the NAS address or the path of its device record.');
      location.focus();
      return;
    }
    connectBtn.disabled = demoBtn.disabled = true;
    replace(busy, choice === 'demo' ? 'Starting the demo NAS…' : 'Checking the NAS and the token…');
    try {
      await ctx.client.call('setUp', {
        choice,
        ...(choice === 'nas' ? { location: location.value.trim(), ...(token.value.trim() ? { token: token.value.trim() } : {}) } : {}),
        ...(mirror.value.trim() ? { mirrorFolder: mirror.value.trim() } : {}),
      });
      token.value = '';
      replace(busy, '');
      done();
    } catch (e) {
      replace(busy, '');
      const f = fieldOf(e);
      const shown = f !== undefined && errors.show(f, sentence(messageOf(e)));
      if (!shown) replace(busy, el('span', { class: 'error', role: 'alert' }, sentence(messageOf(e))));
      const bad = f === 'token' ? token : f === 'mirrorFolder' ? mirror : f === 'location' ? location : null;
      bad?.focus();
    } finally {
      connectBtn.disabled = demoBtn.disabled = false;
    }
  };

  return {
    root,
    show(s, entering) {
      // the engine stored a sign-in for the NAS typed here (it says so with `changed: settings`)
      if (signIn.pending()) {
        signIn.done();
        void run('nas');
      }
      if (entering || !mirror.value) {
        mirror.value = s.newMirrorFolder;
        errors.clear();
        replace(busy, '');
      }
      previous.show(s);
    },
  };
}
