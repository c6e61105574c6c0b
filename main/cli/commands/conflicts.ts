/**
 * `nas-mirror conflicts --state DIR [reapply|drop|keep-mine|keep-nas|keep-both ID...|all] [--json]`:
 * lists what waits for a choice (`--json`: the contract's ConflictEntry list), or queues the
 * choice for the engine. A change the NAS did not take: reapply or drop. A file changed here
 * and on the NAS (both kept, yours as a conflicted copy): keep-mine, keep-nas or keep-both.
 * `all` covers the conflicts the choice fits.
 */
import type { ConflictEntry } from '../../../app/contract/shapes.js';
import { CONFLICT_ACTIONS, conflictActions, type ConflictAction } from '../../../app/model/intent.js';
import { formatSize } from '../../../app/util/human.js';
import { conflictEntries } from '../../local/decision-views.js';
import { decisionCommand } from './decisions.js';

const fits = (c: ConflictEntry, action: string): boolean => conflictActions(c.kind).includes(action as ConflictAction);

/** A time for people, in the terminal's locale ("Nov 27, 01:43"). */
const when = (iso: string): string =>
  new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** One line: a file changed on both sides in words (both versions, the choices), else the change the NAS did not take. */
function line(c: ConflictEntry): string {
  const v = c.versions;
  if (v === undefined) return `${c.id}\t${c.path}\tyou: ${c.intent}\tNAS: ${c.remote}\t(${c.reason})`;
  const yours = `your version: “${v.yours.name}”, ${formatSize(v.yours.size)}, changed ${when(v.yours.modified)}`;
  const nas = `NAS version: ${formatSize(v.nas.size)}, changed ${when(v.nas.modified)}`;
  const note = c.note !== undefined ? `\n\tyour last choice was not carried out: ${c.note}` : '';
  return `${c.id}\t${c.path}\tchanged here and on the NAS, both kept\t${yours}\t${nas}\t(keep-mine, keep-nas or keep-both)${note}`;
}

export const run = decisionCommand<ConflictEntry>({
  name: 'conflicts',
  noun: ['conflict', 'conflicts'],
  actions: CONFLICT_ACTIONS,
  list: conflictEntries,
  line,
  fits,
  misfit: (c) =>
    c.kind === 'content'
      ? 'a file changed here and on the NAS: choose keep-mine, keep-nas or keep-both'
      : 'a change the NAS did not take: choose reapply or drop',
});
