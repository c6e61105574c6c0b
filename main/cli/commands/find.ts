/**
 * `nas-mirror find PARENT NAME --state DIR [--json]`: exact, case-sensitive lookup of a name
 * in a folder from the mirror (the service's parentAndName); PARENT a path (`Photos/2019`, `/`)
 * or an id. Not found: exit 1.
 */
import { AppError } from '../../../app/errors.js';
import { NaiveEngine } from '../../../app/search/naive.js';
import { OfflineIndex } from '../../index/offline-index.js';
import { need, parseArgs, UsageError } from '../args.js';
import type { Command } from '../io.js';
import { clean, kindOf, table } from '../render.js';
import { openExistingState } from '../state.js';
import { folderId } from '../folder-arg.js';

export const run: Command = async (argv, io) => {
  const p = parseArgs(argv, ['state'], ['json']);
  if (p.positionals.length !== 2) throw new UsageError('give a PARENT folder (a path such as Photos/2019, / for the top, or an id) and a NAME');
  const { db, store } = openExistingState(need(p, 'state'));
  try {
    // listing and lookup read the store only: no text index needed
    const index = new OfflineIndex(store, new NaiveEngine());
    const [parent, name] = [folderId(store, p.positionals[0]!), p.positionals[1]!];
    let o;
    try {
      o = index.parentAndName(parent, name);
    } catch (e) {
      if (e instanceof AppError && e.code === 'NotFound') throw new AppError('NotFound', `no object named "${name}" in ${parent === 'root' || p.positionals[0] === '/' ? 'the root folder' : `folder ${p.positionals[0]}`} (names are exact and case-sensitive)`);
      throw e;
    }
    if (p.flags.has('json')) {
      io.stdout.write(JSON.stringify(o) + '\n');
      return 0;
    }
    io.stdout.write(table([['NAME', 'SIZE', 'MODIFIED', 'ID'], [clean(o.name), kindOf(o), o.mTime, o.id]]));
    return 0;
  } finally {
    db.close();
  }
};
