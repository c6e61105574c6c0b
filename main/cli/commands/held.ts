/**
 * `nas-mirror held --state DIR [approve|reject ID...|all] [--json]`: lists deletes held for
 * confirmation (`--json`: the contract's HeldDelete list), or queues a decision; the running
 * engine (or the next `run`) carries it out.
 */
import type { HeldDelete } from '../../../app/contract/shapes.js';
import { heldDeletes } from '../../local/decision-views.js';
import { decisionCommand } from './decisions.js';

export const run = decisionCommand<HeldDelete>({
  name: 'held',
  noun: ['held delete', 'held deletes'],
  actions: ['approve', 'reject'],
  list: heldDeletes,
  line: (h) => `${h.id}\t${h.folder ? 'folder' : 'file'}\t${h.objects} object(s)\t${h.path}\t(${h.reason})`,
});
