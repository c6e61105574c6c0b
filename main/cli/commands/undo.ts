/**
 * `nas-mirror undo OPERATION --state DIR`: undoes a rename or move, or a whole organize batch
 * (an activity id from `log`): queued for the engine, which sends each change back to the NAS.
 * Said in the window's words (app/activity/words.ts); the technical record stays in
 * `nas-mirror log --details`.
 */
import { activityText } from '../../../app/activity/words.js';
import { plural } from '../../../app/util/human.js';
import { enginePid } from '../../engine/instance-lock.js';
import { LocalStore } from '../../local/local-store.js';
import { OrganizeStore } from '../../organize/batch-store.js';
import { batchUndoable } from '../../organize/undo.js';
import { OutboxStore } from '../../outbox/outbox-store.js';
import { UsageError } from '../args.js';
import type { CommandOf } from '../io.js';
import type { undo as spec } from '../specs.js';
import { openExistingState } from '../state.js';

/** When the undo reaches the NAS: now (an engine runs on this state folder) or at its next run. */
const whenSent = (stateDir: string): string =>
  enginePid(stateDir) !== null
    ? 'now, by the running engine ("nas-mirror log" says when it is done)'
    : 'when the engine runs next (the app, or "nas-mirror run"; "nas-mirror log" says when it is done)';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const op = args.positionals[0]!;
  if (!/^\d+$/.test(op)) throw new UsageError('give the OPERATION id shown by "nas-mirror log"');
  const { db, dir } = openExistingState(args.str('state'), io.env);
  try {
    const local = new LocalStore(db);
    const a = local.activityBySeq(Number(op));
    const ent = a?.outboxSeq != null ? new OutboxStore(db).get(a.outboxSeq) : undefined;
    if (!a) {
      io.stderr.write(`nas-mirror undo: no operation ${op} in the activity log (see "nas-mirror log")\n`);
      return 1;
    }
    const what = `#${op} (${activityText(a)})`;
    if (a.kind === 'organized') {
      if (!batchUndoable(db, a)) {
        io.stderr.write(`nas-mirror undo: ${what} ${a.undone ? 'was already undone' : 'is still being sent, or none of it was applied'}\n`);
        return 1;
      }
      const batch = new OrganizeStore(db).byActivity(a.seq);
      const n = batch ? (new OrganizeStore(db).progress(batch.id)['done'] ?? 0) : 0;
      local.request('undo', [op]);
      io.stdout.write(
        `Undo of ${what} queued: the ${plural(n, 'item goes back as it was', 'items go back as they were')} ${whenSent(dir)}\n`,
      );
      return 0;
    }
    if (!ent || ent.intent.op !== 'patch' || (a.kind !== 'renamed' && a.kind !== 'moved')) {
      io.stderr.write(`nas-mirror undo: ${what} is not a rename, a move or an organize batch: only those can be undone\n`);
      return 1;
    }
    if (a.undone) {
      io.stderr.write(`nas-mirror undo: ${what} was already undone\n`);
      return 1;
    }
    if (ent.state !== 'done') {
      const why = ent.state === 'conflict' ? 'the NAS did not take it (see "nas-mirror conflicts")' : 'it is not on the NAS yet';
      io.stderr.write(`nas-mirror undo: ${what} cannot be undone: ${why}\n`);
      return 1;
    }
    local.request('undo', [op]);
    io.stdout.write(`Undo of ${what} queued: it goes back as it was ${whenSent(dir)}\n`);
    return 0;
  } finally {
    db.close();
  }
};
