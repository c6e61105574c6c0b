/**
 * Mirrors put aside by "Start a new mirror" (settings `previousMirrors`): what NAS and what
 * folder each was, when it was put aside, where its state is kept, and "Reopen", which asks
 * first and then puts the current mirror aside the same way (nothing deleted) and brings
 * that one back (`reopenMirror`). Shown in Settings and on the first-start welcome.
 */
import type { SettingsView } from '../app/contract/shapes.js';
import { confirmDialog } from './confirm.js';
import type { UiContext } from './context.js';
import { button, el, replace } from './dom.js';
import { sentence } from './field-errors.js';
import { formatDate } from './format.js';
import { messageOf } from './context.js';

export function previousMirrorsList(ctx: UiContext, id: string): { root: HTMLElement; show(s: SettingsView): void } {
  const ask = confirmDialog(`${id}-confirm`, 'primary');
  const list = el('ul', { class: 'previous-list' });
  const root = el('div', { id, class: 'previous', hidden: true }, el('h3', {}, 'Earlier mirrors (kept)'), list, ask.root);
  const reopen = async (p: SettingsView['previousMirrors'][number], current: SettingsView, b: HTMLButtonElement): Promise<void> => {
    const now =
      current.source === 'none'
        ? 'Nothing is mirrored now, so nothing needs putting aside.'
        : `The current mirror (${current.mirrorFolder}) is put aside first, like "Start a new mirror": its folder stays where it is and its state is kept under "previous". Nothing is deleted, here or on the NAS.`;
    if (
      !(await ask.ask(
        `Reopen the mirror of ${p.nas} in ${p.mirrorFolder}?`,
        `${now} Then this mirror carries on where it stopped, with its changes waiting, conflicts and activity.`,
        'Reopen',
      ))
    )
      return;
    b.disabled = true;
    try {
      await ctx.client.call('reopenMirror', { keptIn: p.keptIn });
      ctx.toast(`Reopened the mirror of ${p.nas} in ${p.mirrorFolder}.`);
    } catch (e) {
      ctx.toast(sentence(messageOf(e)), 'error');
    } finally {
      b.disabled = false;
    }
  };
  return {
    root,
    show(s) {
      root.hidden = s.previousMirrors.length === 0;
      replace(
        list,
        ...s.previousMirrors.map((p) => {
          const b = button('Reopen', () => void reopen(p, s, b), {
            class: 'small',
            'aria-label': `Reopen the mirror of ${p.nas} in ${p.mirrorFolder}`,
          });
          return el(
            'li',
            { 'data-kept-in': p.keptIn },
            el('div', {}, el('span', { class: 'entry-path' }, p.mirrorFolder), ` — ${p.nas}, put aside ${formatDate(p.at)}.`),
            el('div', { class: 'hint' }, 'Its state is kept in ', el('code', {}, p.keptIn), '.'),
            b,
          );
        }),
      );
    },
  };
}
