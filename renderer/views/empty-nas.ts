/**
 * The panel for a NAS that suddenly lists nothing (a held row with cause 'nas-looks-empty'):
 * said in plain words, apart from the ordinary held deletes, with what the user can do. Keep
 * = the placeholders stay (asked again at the next check that finds the NAS empty); remove =
 * after a confirmation, the next check removes the placeholders here. Neither deletes
 * anything on the NAS; files the user filled are kept in the local-only area.
 */
import type { HeldDelete } from '../../app/contract/shapes.js';
import type { Confirm } from '../confirm.js';
import { button, el, replace } from '../dom.js';
import { formatDate, plural } from '../format.js';

export interface EmptyNasPanel {
  root: HTMLElement;
  render(row: HeldDelete | undefined): void;
}

export function emptyNasPanel(confirm: Confirm, resolve: (id: string, action: 'approve' | 'reject') => Promise<void>): EmptyNasPanel {
  const body = el('div', {});
  const root = el(
    'section',
    { class: 'panel empty-nas', id: 'empty-nas', role: 'alert', 'aria-labelledby': 'empty-nas-h' },
    el('h2', { id: 'empty-nas-h' }, 'Your NAS now looks empty'),
    body,
  );
  root.hidden = true;
  return {
    root,
    render(row) {
      root.hidden = row === undefined;
      if (!row) {
        replace(body);
        return;
      }
      const n = plural(row.objects, 'item', 'items');
      const keep = button('Keep my placeholders', () => void resolve(row.id, 'reject'), { id: 'empty-nas-keep' });
      const remove = button(
        'Remove the placeholders here',
        () =>
          void (async () => {
            const ok = await confirm.ask(
              `Remove the ${n} placeholders from this computer?`,
              'The next check of the NAS removes them here. Nothing is deleted on the NAS, and files you filled yourself are kept in the local-only area.',
              'Remove the placeholders',
            );
            if (ok) await resolve(row.id, 'approve');
          })(),
        { id: 'empty-nas-remove', class: 'secondary' },
      );
      replace(
        body,
        el(
          'p',
          { class: 'intro' },
          `The NAS lists nothing any more, but this mirror holds ${n}. Nothing has been removed here, and nothing is deleted on the NAS.`,
        ),
        el(
          'p',
          {},
          'If you emptied the NAS on purpose, remove the placeholders here. If not (another account, a NAS being restored, a disk that is not mounted), keep them and check the NAS: you are asked again at the next check that finds it empty.',
        ),
        el('div', { class: 'bulk-bar' }, keep, remove),
        el('p', { class: 'entry-path' }, 'Since ', el('time', { datetime: row.at }, formatDate(row.at))),
      );
    },
  };
}
