/**
 * `nas-mirror organize (QUERY | --ids ID,ID,... | --ids-from FILE) --state DIR [--rename PATTERN]
 * [--move PATTERN] [--dry-run] [--json]`: bulk rename and/or move what QUERY finds (operators
 * allowed), or the objects picked by id (in that order; FILE has one id a line, `-` is stdin). The plan is computed offline
 * and printed (every change, with collisions, invalid names and missing folders flagged).
 * Without --dry-run the batch is queued for the running engine (`nas-mirror run`, the app),
 * which sends it through the outbox: ONE entry in `nas-mirror log`, undone with `nas-mirror undo`.
 */
import { readFileSync } from 'node:fs';
import { MAX_ORGANIZE, sourceOf } from '../../../app/contract/organize-shapes.js';
import { TOKEN_HELP } from '../../../app/organize/pattern.js';
import { LocalStore } from '../../local/local-store.js';
import { openOfflineIndex } from '../../index/open-index.js';
import { itemsOf } from '../../organize/apply.js';
import { OrganizeStore } from '../../organize/batch-store.js';
import { buildPlan } from '../../organize/plan.js';
import type { OptionsOf } from '../../../app/cli/command-spec.js';
import { UsageError, type Args } from '../args.js';
import type { CommandOf } from '../io.js';
import type { organize as spec } from '../specs.js';
import { clean, table } from '../render.js';
import { openExistingState, storedDeviceView } from '../state.js';

/** The ids of --ids (commas) and --ids-from (one a line), in order; undefined when neither. */
function idsOf(args: Args<OptionsOf<typeof spec>>): string[] | undefined {
  const list = args.str('ids'),
    file = args.str('ids-from');
  if (list === undefined && file === undefined) return undefined;
  const ids: string[] = [];
  if (list !== undefined) ids.push(...list.split(','));
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (e) {
      throw new UsageError(`--ids-from ${file}: ${(e as Error).message}`);
    }
    ids.push(...text.split(/\r?\n/));
  }
  const out = ids.map((s) => s.trim()).filter((s) => s !== '');
  if (out.length === 0) throw new UsageError('--ids/--ids-from name no object');
  if (out.length > MAX_ORGANIZE) throw new UsageError(`at most ${MAX_ORGANIZE} ids in one batch (got ${out.length})`);
  return out;
}

export const run: CommandOf<typeof spec> = async (args, io) => {
  const ids = idsOf(args);
  const query = args.positionals[0];
  if (ids !== undefined && query !== undefined) throw new UsageError('give either a QUERY or --ids/--ids-from, not both');
  if (ids === undefined && (query === undefined || query.trim() === ''))
    throw new UsageError(
      'give exactly one QUERY saying what to organize (operators allowed: ext: kind: in: size: date: camera: on:), ' +
        'or --ids ID,ID,... / --ids-from FILE',
    );
  const rename = args.str('rename');
  const move = args.str('move');
  if (rename === undefined && move === undefined)
    throw new UsageError(`give --rename PATTERN and/or --move PATTERN (tokens: ${TOKEN_HELP})`);
  const what = ids !== undefined ? { ids } : { q: query ?? '' };
  const { db, store, dir } = openExistingState(args.str('state'), io.env);
  try {
    const { index } = await openOfflineIndex(store, dir);
    const patterns = { ...(rename !== undefined ? { rename } : {}), ...(move !== undefined ? { move } : {}) };
    const plan = buildPlan(index, { ...what, ...patterns }, () => storedDeviceView(db, store));
    const items = itemsOf(index, plan);
    let batch: number | undefined;
    if (!args.flag('dry-run') && items.length > 0) {
      const os = new OrganizeStore(db);
      batch = db.transaction(() => {
        const id = os.create({ state: 'planned', q: sourceOf(what), rename: rename ?? null, move: move ?? null }, items);
        new LocalStore(db).request('organize', [String(id)]);
        return id;
      })();
    }
    if (args.flag('json')) {
      io.stdout.write(JSON.stringify({ ...plan, ...(batch !== undefined ? { queuedBatch: batch } : {}) }) + '\n');
      return 0;
    }
    const flagged = plan.items.filter((i) => i.status !== 'ok' && i.status !== 'unchanged');
    io.stdout.write(
      table([
        ['FROM', 'TO', 'STATUS'],
        ...plan.items.map((i) => [
          i.from === '' ? clean(`id ${i.id}`) : clean('/' + i.from),
          i.from === '' ? '' : clean('/' + i.to),
          i.status + (i.problem ? `: ${clean(i.problem)}` : ''),
        ]),
      ]),
    );
    const c = plan.counts;
    io.stdout.write(
      `${plan.items.length} selected${plan.truncated ? ' (more matched: one batch takes 10,000)' : ''}: ` +
        `${c.ok} to change, ${c.unchanged} unchanged, ${c.collision} collisions, ${c.invalid} invalid names, ` +
        `${c.missingFolder} in missing folders\n`,
    );
    if (plan.missingFolders.length)
      io.stdout.write(
        'missing target folders (create them on the NAS first; the interface cannot):\n' +
          `${plan.missingFolders.map((f) => `  ${clean(f)}`).join('\n')}\n`,
      );
    if (args.flag('dry-run')) io.stdout.write('dry run: nothing was queued\n');
    else if (batch === undefined) io.stdout.write('nothing to change: nothing was queued\n');
    else
      io.stdout.write(
        `queued as organize batch ${batch}: the running engine (nas-mirror run, or the app) ` +
          `sends ${items.length} change${items.length === 1 ? '' : 's'}` +
          `${flagged.length ? ` (the ${flagged.length} flagged are left out)` : ''}; ` +
          'see "nas-mirror log", undo with "nas-mirror undo"\n',
      );
    return 0;
  } finally {
    db.close();
  }
};
