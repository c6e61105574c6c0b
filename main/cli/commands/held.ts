/**
 * `nas-mirror held --state DIR [approve|reject ID...|all] [--json]`: lists deletes held for
 * confirmation (`--json`: the contract's HeldDelete list), or queues a decision; the running
 * engine (or the next `run`) carries it out.
 */
import type { HeldDelete } from '../../../app/contract/shapes.js';
import { heldDeletes } from '../../local/decision-views.js';
import { MirrorStore } from '../../mirror/store.js';
import { decisionCommand } from './decisions.js';

export const run = decisionCommand<HeldDelete>({
  name: 'held',
  noun: ['held delete', 'held deletes'],
  actions: ['approve', 'reject'],
  // the root held = the NAS suddenly looks empty
  list: (local) => heldDeletes(local, new MirrorStore(local.db).root()?.id ?? ''),
  line: (h) => `${h.id}\t${h.folder ? 'folder' : 'file'}\t${h.objects} object(s)\t${h.path}\t(${h.reason})`,
});
