/**
 * `nas-mirror undo OPERATION --state DIR`: undoes a rename or move, or a whole organize batch
 * (an activity id from `log`), with inverse patches.
 */
import { LocalStore } from '../../local/local-store.js';
import { batchUndoable } from '../../organize/undo.js';
import { OutboxStore } from '../../outbox/outbox-store.js';
import { UsageError } from '../args.js';
import type { CommandOf } from '../io.js';
import type { undo as spec } from '../specs.js';
import { openExistingState } from '../state.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const op = args.positionals[0]!;
  if (!/^\d+$/.test(op)) throw new UsageError('give the OPERATION id shown by "nas-mirror log"');
  const { db } = openExistingState(args.str('state'), io.env);
  try {
    const local = new LocalStore(db);
    const a = local.activityBySeq(Number(op));
    const ent = a?.outboxSeq != null ? new OutboxStore(db).get(a.outboxSeq) : undefined;
    if (!a) {
      io.stderr.write(`nas-mirror undo: no operation ${op} in the activity log (see "nas-mirror log")\n`);
      return 1;
    }
    if (a.kind === 'organized') {
      if (!batchUndoable(db, a)) {
        io.stderr.write(
          `nas-mirror undo: organize batch ${op} ${a.undone ? 'was already undone' : 'is still being sent, or none of it was applied'}\n`,
        );
        return 1;
      }
      local.request('undo', [op]);
      io.stdout.write(`undo of "${a.summary}" queued; the engine sends the inverse patches\n`);
      return 0;
    }
    if (!ent || ent.intent.op !== 'patch' || (a.kind !== 'renamed' && a.kind !== 'moved')) {
      io.stderr.write(`nas-mirror undo: operation ${op} is a "${a.kind}", not a rename or move: only those can be undone\n`);
      return 1;
    }
    if (a.undone) {
      io.stderr.write(`nas-mirror undo: operation ${op} was already undone\n`);
      return 1;
    }
    if (ent.state !== 'done') {
      io.stderr.write(`nas-mirror undo: operation ${op} is not applied on the NAS yet (${ent.state})\n`);
      return 1;
    }
    local.request('undo', [op]);
    io.stdout.write(`undo of "${a.summary}" queued; the engine sends the inverse patch\n`);
    return 0;
  } finally {
    db.close();
  }
};
