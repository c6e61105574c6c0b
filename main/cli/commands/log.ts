/** `nas-mirror log --state DIR [--limit N] [--json]`: the activity log, newest first: every decision with its reason. */
import { realPlurals } from '../../../app/util/human.js';
import { LocalStore } from '../../local/local-store.js';
import { OutboxStore } from '../../outbox/outbox-store.js';
import type { CommandOf } from '../io.js';
import type { log as spec } from '../specs.js';
import { openExistingState } from '../state.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const { db } = openExistingState(args.str('state'), io.env);
  try {
    const outbox = new OutboxStore(db);
    const rows = new LocalStore(db).activity(args.int('limit') ?? 100).map((a) => ({
      ...a,
      undoable:
        a.outboxSeq !== null && !a.undone && (a.kind === 'renamed' || a.kind === 'moved') && outbox.get(a.outboxSeq)?.state === 'done',
    }));
    if (args.flag('json')) {
      io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    for (const a of rows)
      io.stdout.write(
        `${a.seq}\t${a.at}\t${a.kind}${a.undoable ? ' (undoable)' : ''}\t${a.path}\t${realPlurals(a.summary)}\t-- ${a.reason}\n`,
      );
    return 0;
  } finally {
    db.close();
  }
};
