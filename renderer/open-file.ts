/**
 * "Open" for a file: the engine downloads a placeholder's content (progress shown here, from
 * the `download` events), then opens the file in its app; a file already here opens at once.
 * When the NAS cannot send content, this dialog says why and offers what can be done: show
 * it in its folder, copy its NAS path. (No "NAS's web page": neither the device record nor
 * the NAS interface names one; see docs/app.md.)
 */
import type { ContractClient } from '../app/contract/methods.js';
import type { OpenResult } from '../app/contract/shapes.js';
import { button, el, replace } from './dom.js';
import { formatSize } from './format.js';

export interface FileOpener {
  readonly root: HTMLDialogElement;
  /** The line that shows a download in progress (placed with the toasts). */
  readonly status: HTMLElement;
  open(id: string, name: string): Promise<void>;
}

export function fileOpener(client: ContractClient, toast: (m: string, level?: 'info' | 'error') => void): FileOpener {
  const title = el('h2', { id: 'on-nas-title' });
  const body = el('div', { id: 'on-nas-body' });
  const actions = el('div', { class: 'row', id: 'on-nas-actions' });
  const root = el('dialog', { id: 'on-nas-dialog', 'aria-labelledby': 'on-nas-title' }, title, body, actions);
  const fail = (e: unknown): void => toast(e instanceof Error ? e.message : String(e), 'error');
  const status = el('div', { class: 'progress-note', id: 'download-status', role: 'status', hidden: true });
  /** Names of the files being opened, by id (several Opens may be under way). */
  const opening = new Map<string, string>();
  client.on('download', (p) => {
    const name = opening.get(p.id);
    if (name === undefined) return;
    if (p.state !== 'downloading') {
      status.hidden = true;
      return;
    }
    const pct = p.total > 0 ? Math.floor((p.bytes / p.total) * 100) : 0;
    replace(status, `Downloading “${name}”… ${pct}% of ${formatSize(p.total)}`);
    status.hidden = false;
  });

  const explain = (id: string, name: string, onNas: NonNullable<OpenResult['onNas']>): void => {
    replace(title, `“${name}” is on the NAS`);
    replace(
      body,
      el(
        'p',
        {},
        `This computer holds a placeholder for it: an empty file with its name and date, standing for the real one${onNas.size !== undefined ? ` (${formatSize(onNas.size)})` : ''}, which stays on the NAS. It cannot be downloaded: ${onNas.reason ?? 'the NAS did not send it'}.`,
      ),
      el('p', {}, 'On the NAS: ', el('code', { id: 'on-nas-path' }, onNas.path)),
      el('p', { class: 'hint' }, 'You can still rename, move or delete the placeholder: the change is made on the NAS.'),
    );
    const close = button('Close', () => root.close(), { id: 'on-nas-close' });
    replace(
      actions,
      button(
        'Show in folder',
        () => {
          root.close();
          client.call('reveal', { id }).catch(fail);
        },
        { id: 'on-nas-reveal', class: 'primary' },
      ),
      button(
        'Copy NAS path',
        () => {
          navigator.clipboard.writeText(onNas.path).then(
            () => toast('NAS path copied.'),
            () => toast(`Could not copy; the path is ${onNas.path}`, 'error'),
          );
        },
        { id: 'on-nas-copy' },
      ),
      close,
    );
    root.showModal();
    close.focus();
  };

  return {
    root,
    status,
    async open(id, name) {
      opening.set(id, name);
      try {
        const r = await client.call('open', { id });
        if (!r.opened && r.onNas) explain(id, name, r.onNas);
        else if (r.downloaded) toast(`Downloaded “${name}” and opened it.`);
      } catch (e) {
        fail(e);
      } finally {
        opening.delete(id);
        if (opening.size === 0) status.hidden = true;
      }
    },
  };
}
