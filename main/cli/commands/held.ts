/**
 * `nas-mirror held --state DIR [approve|reject ID|all]`: lists deletes held for confirmation,
 * or queues a decision; the running engine (or the next `run`) carries it out.
 */
import { LocalStore } from '../../local/local-store.js';
import { need, parseArgs, UsageError } from '../args.js';
import type { Command } from '../io.js';
import { openExistingState } from '../state.js';

export const run: Command = async (argv, io) => {
  const p = parseArgs(argv, ['state'], ['json']);
  const { db } = openExistingState(need(p, 'state'));
  try {
    const local = new LocalStore(db);
    const [action, ...ids] = p.positionals;
    const held = local.held();
    if (action === undefined) {
      if (p.flags.has('json')) io.stdout.write(`${JSON.stringify(held, null, 2)}\n`);
      else if (held.length === 0) io.stdout.write('no held deletes\n');
      else for (const h of held) io.stdout.write(`${h.id}\t${h.folder ? 'folder' : 'file'}\t${h.objects} object(s)\t${h.path}\t(${h.reason})\n`);
      return 0;
    }
    if (action !== 'approve' && action !== 'reject') throw new UsageError(`unknown action "${action}" (approve or reject)`);
    if (ids.length === 0) throw new UsageError('give the held ids, or "all"');
    const unknown = ids.filter((i) => i !== 'all' && !held.some((h) => h.id === i));
    if (unknown.length) {
      io.stderr.write(`nas-mirror held: no held delete ${unknown.join(', ')} (see "nas-mirror held")\n`);
      return 1;
    }
    local.request(action, ids);
    const n = ids.includes('all') ? held.length : ids.length;
    io.stdout.write(`${action} queued for ${ids.includes('all') ? 'all ' : ''}${n === 1 ? '1 held delete' : `${n} held deletes`}; the engine carries it out\n`);
    return 0;
  } finally {
    db.close();
  }
};
