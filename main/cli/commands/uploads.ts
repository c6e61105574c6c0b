/**
 * `nas-mirror uploads --state DIR [approve|reject ID...|all] [--json]`: lists the new files
 * and folders that wait for your word before they upload (many at once: a mass upload;
 * `--json`: the contract's HeldUpload list), or queues the decision: approve uploads them,
 * reject keeps them on this computer only (listed as local only).
 */
import type { HeldUpload } from '../../../app/contract/shapes.js';
import { CreatesStore } from '../../local/creates-store.js';
import { heldUploads } from '../../local/decision-views.js';
import type { LocalStore } from '../../local/local-store.js';
import { decisionCommand } from './decisions.js';

const list = (local: LocalStore): HeldUpload[] => heldUploads(new CreatesStore(local.db), (id) => local.pathOfStored(id));

export const run = decisionCommand<HeldUpload>({
  name: 'uploads',
  noun: ['held upload', 'held uploads'],
  actions: ['approve', 'reject'],
  requests: ['upload', 'keep-here'],
  list,
  line: (u) => `${u.id}\t${u.folder ? 'folder (and what it holds)' : 'file'}\t${u.path}`,
});
