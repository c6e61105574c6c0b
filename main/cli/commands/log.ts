/**
 * `nas-mirror log --state DIR [--limit N] [--details] [--json]`: the activity log, newest first,
 * each decision in the window's plain words (app/activity/words.ts); `--details` adds the path
 * and the technical reason the app recorded (request numbers, versions: the words of the protocol).
 */
import { activityText } from '../../../app/activity/words.js';
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
    const details = args.flag('details');
    for (const a of rows) {
      const when = new Date(a.at).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
      const undo = a.undoable ? `  (undo: nas-mirror undo ${a.seq})` : a.undone ? '  (undone)' : '';
      io.stdout.write(`#${a.seq}  ${when}  ${activityText(a)}${undo}\n`);
      if (details) io.stdout.write(`      ${a.path ? `${a.path}: ` : ''}${realPlurals(a.summary)}${a.reason ? ` (${a.reason})` : ''}\n`);
    }
    return 0;
  } finally {
    db.close();
  }
};
