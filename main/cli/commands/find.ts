/**
 * `nas-mirror find PARENT NAME --state DIR [--json]`: exact, case-sensitive lookup of a name
 * in a folder from the mirror (the service's parentAndName); PARENT a path (`Photos/2019`, `/`,
 * or its path in the mirror folder) or an id (folder-arg.ts). Not found: exit 1.
 */
import { AppError } from '../../../app/errors.js';
import { NaiveEngine } from '../../../app/search/naive.js';
import { OfflineIndex } from '../../index/offline-index.js';
import type { CommandOf } from '../io.js';
import type { find as spec } from '../specs.js';
import { clean, kindOf, table } from '../render.js';
import { openExistingState } from '../state.js';
import { folderId, mirrorDirOf, noFolder } from '../folder-arg.js';

export const run: CommandOf<typeof spec> = async (args, io) => {
  const [folder, name] = args.positionals as [string, string];
  const { db, store } = openExistingState(args.str('state'), io.env);
  try {
    // listing and lookup read the store only: no text index needed
    const index = new OfflineIndex(store, new NaiveEngine());
    const parent = folderId(store, folder, mirrorDirOf(db));
    if (parent === undefined) throw new AppError('NotFound', noFolder(folder));
    let o;
    try {
      o = index.parentAndName(parent, name);
    } catch (e) {
      if (e instanceof AppError && e.code === 'NotFound')
        throw new AppError(
          'NotFound',
          `no object named "${name}" in ${parent === store.root()?.id ? 'the root folder' : `folder ${folder}`} ` +
            '(names are exact and case-sensitive)',
        );
      throw e;
    }
    if (args.flag('json')) {
      io.stdout.write(JSON.stringify(o) + '\n');
      return 0;
    }
    io.stdout.write(
      table([
        ['NAME', 'SIZE', 'MODIFIED', 'ID'],
        [clean(o.name), kindOf(o), o.mTime, o.id],
      ]),
    );
    return 0;
  } finally {
    db.close();
  }
};
