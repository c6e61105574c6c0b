/**
 * `nas-mirror search QUERY --state DIR [--limit N] [--page-token T] [--json]`: answers from
 * the offline index, no network. `--json` prints exactly the service's response shape.
 * Operators (`ext:jpg kind:photo in:"Photos/2019" size:>100mb date:2019 camera:canon on:device`)
 * narrow the answer offline; such a query says it is offline-only. `on:` reads what is on this
 * device from the state folder (as the engine last stored it).
 */
import { describeFilter } from '../../../app/filters/filters.js';
import { searchFiltered } from '../../index/filtered-search.js';
import { openOfflineIndex } from '../../index/open-index.js';
import { UsageError } from '../args.js';
import type { CommandOf } from '../io.js';
import type { search as spec } from '../specs.js';
import { matchCells, table } from '../render.js';
import { openExistingState, storedDeviceView } from '../state.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const q = args.positionals[0]!;
  if (q.trim() === '') throw new UsageError('the QUERY is empty: give at least one word to search for');
  const limit = args.int('limit');
  const { db, store, dir } = openExistingState(args.str('state'), io.env);
  try {
    const { index } = await openOfflineIndex(store, dir);
    const { offlineOnly, filters, ...page } = searchFiltered(index, q, {
      ...(limit !== undefined ? { limit } : {}),
      pageToken: args.str('page-token') ?? '',
      device: () => storedDeviceView(db, store),
    });
    if (args.flag('json')) {
      io.stdout.write(JSON.stringify(offlineOnly ? { ...page, offlineOnly } : page) + '\n');
      return 0;
    }
    const tty = io.stdout.isTTY === true;
    if (offlineOnly) io.stdout.write(`offline-only (the NAS has no operators): ${filters.map(describeFilter).join(', ')}\n`);
    if (page.matches.length === 0) {
      const alt = offlineOnly ? undefined : index.didYouMean(q);
      io.stdout.write(`no match for ${JSON.stringify(q)}${alt ? `; did you mean ${JSON.stringify(alt)}?` : ''}\n`);
      return 0;
    }
    const rows = [
      ['NAME', 'SIZE', 'FOLDER', 'ALSO MATCHED'],
      ...page.matches.map((m) => {
        const path = store.pathOf(m.file.parentID);
        return matchCells(m.file, m.fragments, path ? '/' + path.join('/') : '?', tty);
      }),
    ];
    io.stdout.write(table(rows));
    if (page.pageToken) io.stdout.write(`more: --page-token ${page.pageToken}\n`);
    return 0;
  } finally {
    db.close();
  }
};
