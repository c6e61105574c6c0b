/**
 * Progress of a move of the mirror folder to another disk (event `mirrorMove`): a bar and a
 * line in words under the mirror folder field, shown only while a copy runs. The engine is
 * stopped meanwhile; the old folder stays the mirror until the copy is complete and checked.
 */
import type { ContractClient, EventPayload } from '../app/contract/methods.js';
import { el, replace } from './dom.js';
import { formatCount, formatSize, plural } from './format.js';

const WORDS: Record<EventPayload<'mirrorMove'>['phase'], string> = {
  counting: 'Counting what the mirror holds…',
  copying: 'Copying to the other disk',
  verifying: 'Checking the copy against the original…',
  switching: 'Switching to the new folder…',
  'removing-old': 'Removing the old folder…',
  done: 'Moved.',
};

export function moveProgress(client: ContractClient): HTMLElement {
  const bar = el('progress', { id: 'move-progress-bar', max: 1, value: 0, 'aria-label': 'Moving the mirror folder' });
  const line = el('span', { id: 'move-progress-text' });
  const root = el('div', { id: 'move-progress', class: 'move-progress hint', role: 'status', hidden: true }, bar, ' ', line);
  client.on('mirrorMove', (p) => {
    root.hidden = p.phase === 'done';
    bar.max = Math.max(1, p.total);
    bar.value = p.phase === 'copying' ? p.done : p.phase === 'counting' ? 0 : bar.max;
    replace(
      line,
      p.phase === 'copying'
        ? `${WORDS.copying}: ${formatCount(p.done)} of ${plural(p.total, 'item', 'items')} (${formatSize(p.bytes)} of ${formatSize(p.totalBytes)}). The old folder stays the mirror until the copy is complete.`
        : WORDS[p.phase],
    );
  });
  return root;
}
