/**
 * "Open" for a file: the engine opens it when its content is on this computer; for a
 * placeholder (an empty file standing for one on the NAS) it says so, and this dialog
 * offers what can be done: show it in its folder, copy its NAS path. (No "NAS's web page":
 * neither the device record nor the NAS interface names one; see docs/app.md.)
 */
import type { ContractClient } from '../app/contract/methods.js';
import type { OpenResult } from '../app/contract/shapes.js';
import { button, el, replace } from './dom.js';
import { formatSize } from './format.js';

export interface FileOpener {
  readonly root: HTMLDialogElement;
  open(id: string, name: string): Promise<void>;
}

export function fileOpener(client: ContractClient, toast: (m: string, level?: 'info' | 'error') => void): FileOpener {
  const title = el('h2', { id: 'on-nas-title' });
  const body = el('div', { id: 'on-nas-body' });
  const actions = el('div', { class: 'row', id: 'on-nas-actions' });
  const root = el('dialog', { id: 'on-nas-dialog', 'aria-labelledby': 'on-nas-title' }, title, body, actions);
  const fail = (e: unknown): void => toast(e instanceof Error ? e.message : String(e), 'error');

  const explain = (id: string, name: string, onNas: NonNullable<OpenResult['onNas']>): void => {
    replace(title, `“${name}” is on the NAS`);
    replace(body,
      el('p', {}, `This computer holds a placeholder for it: an empty file with its name and date, standing for the real one${onNas.size !== undefined ? ` (${formatSize(onNas.size)})` : ''}, which stays on the NAS. It cannot be opened from here.`),
      el('p', {}, 'On the NAS: ', el('code', { id: 'on-nas-path' }, onNas.path)),
      el('p', { class: 'hint' }, 'You can still rename, move or delete the placeholder: the change is made on the NAS.'));
    const close = button('Close', () => root.close(), { id: 'on-nas-close' });
    replace(actions,
      button('Show in folder', () => { root.close(); client.call('reveal', { id }).catch(fail); }, { id: 'on-nas-reveal', class: 'primary' }),
      button('Copy NAS path', () => {
        navigator.clipboard.writeText(onNas.path).then(() => toast('NAS path copied.'), () => toast(`Could not copy; the path is ${onNas.path}`, 'error'));
      }, { id: 'on-nas-copy' }),
      close);
    root.showModal();
    close.focus();
  };

  return {
    root,
    async open(id, name) {
      try {
        const r = await client.call('open', { id });
        if (!r.opened && r.onNas) explain(id, name, r.onNas);
      } catch (e) { fail(e); }
    },
  };
}
