/**
 * `nas-mirror status --state DIR [--json]`: state, counts, outbox, conflicts, held deletes, local
 * only, last complete walk, and the running engine's walk in the window's words.
 */
import { walkLine } from '../../../app/tray/walk-words.js';
import { plural } from '../../../app/util/human.js';
import { readStatus } from '../../engine/status.js';
import type { CommandOf } from '../io.js';
import type { status as spec } from '../specs.js';
import { openExistingState } from '../state.js';

const count = (n: number, word: string): string => plural(n, word, `${word}s`);

export const run: CommandOf<typeof spec> = async (args, io) => {
  const { db, store, dir: stateDir } = openExistingState(args.str('state'), io.env);
  try {
    const s = readStatus(db, stateDir);
    if (args.flag('json')) {
      io.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(
      [
        `state:               ${s.notAnswering ? 'not answering' : s.state}${s.paused ? ' (paused)' : ''}` +
          `${s.mirrorMissing ? ` -- ${s.mirrorMissing}; nothing is deleted` : ''}` +
          `${s.connectionProblem ? ` -- ${s.connectionProblem}` : ''}`,
        `engine:              ${s.engineRunning ? `running (pid ${s.engineRunning})` : 'not running'}`,
        `mirror folder:       ${s.mirrorFolder ?? '(none: this state folder was only synced, never run with --dir)'}`,
        `mirrored:            ${count(store.count(), 'object')}` +
          `${s.mirrorFolder ? ` (${plural(s.objects, 'entry', 'entries')} in the mirror folder)` : ''}`,
        `last complete walk:  ${s.lastCompleteWalk ?? 'never'}`,
        ...(s.walk.running
          ? [`walk:                ${walkLine({ walk: s.walk, lastCompleteWalk: s.lastCompleteWalk, indexed: store.count() })}`]
          : []),
        ...(s.indexingPercent !== null
          ? [`search:              catching up with the newest items (indexing: ${s.indexingPercent} %)`]
          : []),
        // conflicts are counted once, from the conflicts list (the outbox keeps its settled history)
        `changes to send:     ${s.outbox.pending} (${s.outbox.done} sent so far)`,
        `conflicts:           ${s.conflicts}`,
        `held deletes:        ${s.heldDeletes} (${s.heldObjects} objects)`,
        `new to upload:       ${s.uploads.waiting}` +
          `${s.uploads.held ? ` (and ${s.uploads.held} waiting for your word: nas-mirror uploads)` : ''}`,
        `local only:          ${s.localOnly} (${s.filledPlaceholders} filled placeholders)`,
        ...(s.pendingRequests ? [`requests waiting:    ${s.pendingRequests} (the engine carries them out when it runs)`] : []),
      ].join('\n') + '\n',
    );
    return 0;
  } finally {
    db.close();
  }
};
