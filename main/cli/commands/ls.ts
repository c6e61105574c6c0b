/**
 * `nas-mirror ls FOLDER --state DIR [--json] [--limit N] [--page-token T] [--order-by F]
 * [--order asc|desc]`: a folder's listing from the mirror, the service's shape with --json.
 * FOLDER is a path in the mirror (`Photos/2019`, `/` for the top, or its path in the mirror
 * folder) like `du` and `find` take, or an id (a pasted one, or `root`): folder-arg.ts.
 */
import { NaiveEngine } from '../../../app/search/naive.js';
import { OfflineIndex } from '../../index/offline-index.js';
import type { CommandOf } from '../io.js';
import type { ls as spec } from '../specs.js';
import { clean, kindOf, table } from '../render.js';
import { openExistingState } from '../state.js';
import { folderId, mirrorDirOf, noFolder } from '../folder-arg.js';
import { AppError } from '../../../app/errors.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const folder = args.positionals[0]!;
  const { db, store } = openExistingState(args.str('state'), io.env);
  try {
    // listing and lookup read the store only: no text index needed
    const index = new OfflineIndex(store, new NaiveEngine());
    const limit = args.int('limit');
    const id = folderId(store, folder, mirrorDirOf(db));
    if (id === undefined) throw new AppError('NotFound', noFolder(folder));
    let page;
    try {
      page = index.list(id, {
        ...(limit !== undefined ? { limit } : {}),
        pageToken: args.str('page-token') ?? '',
        orderBy: args.str('order-by'),
        order: args.str('order'),
      });
    } catch (e) {
      if (e instanceof AppError && e.code === 'NotFound') throw new AppError('NotFound', noFolder(folder));
      throw e;
    }
    if (args.flag('json')) {
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
