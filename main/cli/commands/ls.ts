/**
 * `nas-mirror ls FOLDER --state DIR [--json] [--limit N] [--page-token T] [--order-by F]
 * [--order asc|desc]`: a folder's listing from the mirror, the service's shape with --json.
 * FOLDER is a path in the mirror (`Photos/2019`, `/` for the top) like `du` and `organize`
 * take, or an id (a pasted one, or `root`).
 */
import { NaiveEngine } from '../../../app/search/naive.js';
import { OfflineIndex } from '../../index/offline-index.js';
import { intOption, need, parseArgs, UsageError } from '../args.js';
import type { Command } from '../io.js';
import { clean, kindOf, table } from '../render.js';
import { openExistingState } from '../state.js';
import { folderId } from '../folder-arg.js';
import { AppError } from '../../../app/errors.js';

export const run: Command = async (argv, io) => {
  const p = parseArgs(argv, ['state', 'limit', 'page-token', 'order-by', 'order'], ['json']);
  if (p.positionals.length !== 1) throw new UsageError('give exactly one FOLDER: a path such as Photos/2019 (/ for the top), or an id');
  const { db, store } = openExistingState(need(p, 'state'));
  try {
    // listing and lookup read the store only: no text index needed
    const index = new OfflineIndex(store, new NaiveEngine());
    const limit = intOption(p, 'limit');
    const id = folderId(store, p.positionals[0]!);
    let page;
    try {
      page = index.list(id, {
        ...(limit !== undefined ? { limit } : {}),
        pageToken: p.options.get('page-token') ?? '',
        orderBy: p.options.get('order-by'),
        order: p.options.get('order'),
      });
    } catch (e) {
      if (e instanceof AppError && e.code === 'NotFound') throw new AppError('NotFound', `no folder ${JSON.stringify(p.positionals[0])} in this mirror (a path such as Photos/2019, or an id from the last column of "nas-mirror ls /")`);
      throw e;
    }
    if (p.flags.has('json')) {
      io.stdout.write(JSON.stringify(page) + '\n');
      return 0;
    }
    io.stdout.write(table([['NAME', 'SIZE', 'MODIFIED', 'ID'], ...page.files.map((f) => [clean(f.name), kindOf(f), f.mTime, f.id])]));
    if (page.pageToken) io.stdout.write(`more: --page-token ${page.pageToken}\n`);
    return 0;
  } finally {
    db.close();
  }
};
