/**
 * `nas-mirror conflicts --state DIR [reapply|drop ID|all]`: lists local intents the NAS did
 * not take, or queues re-applying / dropping them for the engine.
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
    const all = local.conflicts();
    if (action === undefined) {
      if (p.flags.has('json')) io.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
      else if (all.length === 0) io.stdout.write('no conflicts\n');
      else for (const c of all) io.stdout.write(`${c.seq}\t${c.path}\tyou: ${c.intent}\tNAS: ${c.remote}\t(${c.reason})\n`);
      return 0;
    }
    if (action !== 'reapply' && action !== 'drop') throw new UsageError(`unknown action "${action}" (reapply or drop)`);
    if (ids.length === 0) throw new UsageError('give the conflict ids, or "all"');
    const unknown = ids.filter((i) => i !== 'all' && !all.some((c) => String(c.seq) === i));
    if (unknown.length) {
      io.stderr.write(`nas-mirror conflicts: no conflict ${unknown.join(', ')} (see "nas-mirror conflicts")\n`);
      return 1;
    }
    local.request(action, ids);
    io.stdout.write(`${action} queued; the engine carries it out\n`);
    return 0;
  } finally {
    db.close();
  }
};
