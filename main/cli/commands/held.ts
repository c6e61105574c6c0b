/**
 * `nas-mirror held --state DIR [approve|reject ID...|all] [--json]`: lists deletes held for
 * confirmation (`--json`: the contract's HeldDelete list), or queues a decision; the running
 * engine (or the next `run`) carries it out. `held renamed ID PATH`: a held "renamed or
 * deleted?" was renamed to PATH (one of the places its line lists).
 */
import type { HeldDelete } from '../../../app/contract/shapes.js';
import { heldDeletes } from '../../local/decision-views.js';
import { LocalStore } from '../../local/local-store.js';
import { MirrorStore } from '../../mirror/store.js';
import type { CommandOf } from '../io.js';
import type { held as spec } from '../specs.js';
import { openExistingState } from '../state.js';
import { decisionCommand } from './decisions.js';

// the root held = the NAS suddenly looks empty
const list = (local: LocalStore): HeldDelete[] => heldDeletes(local, new MirrorStore(local.db).root()?.id ?? '');

const decisions = decisionCommand<HeldDelete>({
  name: 'held',
  noun: ['held delete', 'held deletes'],
  actions: ['approve', 'reject'],
  list,
  line: (h) =>
    `${h.id}\t${h.folder ? 'folder' : 'file'}\t${h.objects} ${h.objects === 1 ? 'object' : 'objects'}\t${h.path}\t(${h.reason})` +
    (h.candidates ? `\n\trenamed? nas-mirror held renamed ${h.id} ${h.candidates.map((c) => JSON.stringify(c)).join(' | ')}` : ''),
});

export const run: CommandOf<typeof spec> = async (args, io) => {
  if (args.sub !== 'renamed') return decisions(args, io);
  const [id, to] = args.positionals as [string, string];
  const { db } = openExistingState(args.str('state'), io.env);
  try {
    const local = new LocalStore(db);
    const h = list(local).find((x) => x.id === id);
    if (!h?.candidates) {
      io.stderr.write(`nas-mirror held: no "renamed or deleted?" ${id} (see "nas-mirror held")\n`);
      return 1;
    }
    if (!h.candidates.includes(to)) {
      io.stderr.write(`nas-mirror held: ${to} is not one of the places ${h.path} may have gone: ${h.candidates.join(', ')}\n`);
      return 1;
    }
    local.request('renamed', [id, to]);
    io.stdout.write(`renamed queued: ${h.path} -> ${to}; the engine carries it out\n`);
    return 0;
  } finally {
    db.close();
  }
};
