/**
 * `nas-mirror conflicts --state DIR [reapply|drop ID...|all] [--json]`: lists local intents
 * the NAS did not take (`--json`: the contract's ConflictEntry list), or queues re-applying /
 * dropping them for the engine.
 */
import type { ConflictEntry } from '../../../app/contract/shapes.js';
import { conflictEntries } from '../../local/decision-views.js';
import { decisionCommand } from './decisions.js';

export const run = decisionCommand<ConflictEntry>({
  name: 'conflicts',
  noun: ['conflict', 'conflicts'],
  actions: ['reapply', 'drop'],
  list: conflictEntries,
  line: (c) => `${c.id}\t${c.path}\tyou: ${c.intent}\tNAS: ${c.remote}\t(${c.reason})`,
});
