/**
 * `nas-mirror du [FOLDER] --state DIR [--depth N] [--json]`: where the space goes, offline,
 * from the mirrored sizes: the folder's total, its sub-folders by size down to N levels
 * (default 1), totals by kind and by year, the largest files and duplicates by name + size.
 * FOLDER as `ls` takes it: a path, the folder in the mirror folder, or an id (folder-arg.ts).
 */
import type { StorageView } from '../../../app/contract/organize-shapes.js';
import { human } from '../../../app/filters/filters.js';
import { AppError } from '../../../app/errors.js';
import { storageOf } from '../../api/organize-handlers.js';
import { openOfflineIndex } from '../../index/open-index.js';
import type { CommandOf } from '../io.js';
import type { du as spec } from '../specs.js';
import { clean, table } from '../render.js';
import { openExistingState } from '../state.js';
import { folderId, mirrorDirOf, noFolder } from '../folder-arg.js';

interface Node {
  path: string;
  bytes: number;
  files: number;
  folders?: Node[];
}

export const run: CommandOf<typeof spec> = async (args, io) => {
  const depth = args.int('depth') ?? 1;
  const { db, store, dir } = openExistingState(args.str('state'), io.env);
  try {
    const { index } = await openOfflineIndex(store, dir);
    const folder = args.positionals[0] ?? '/';
    const id = folderId(store, folder, mirrorDirOf(db));
    const facts = index.facts();
    if (id === undefined || (id !== facts.rootId && facts.get(id) === undefined)) throw new AppError('NotFound', noFolder(folder));
    const agg = storageOf(index);
    const tree = (v: StorageView, left: number): Node => ({
      path: v.folder.path,
      bytes: v.bytes,
      files: v.files,
      ...(left > 0 ? { folders: v.children.filter((c) => c.folder).map((c) => tree(agg.view(c.id), left - 1)) } : {}),
    });
    const top = agg.view(id);
    const root = tree(top, depth);
    if (args.flag('json')) {
      io.stdout.write(
        JSON.stringify({ ...root, byKind: top.byKind, byYear: top.byYear, largest: top.largest, duplicates: top.duplicates }) + '\n',
      );
      return 0;
    }
    const rows: string[][] = [['SIZE', 'FILES', 'FOLDER']];
    const walk = (n: Node, indent: number): void => {
      rows.push([human(n.bytes), n.files.toLocaleString('en'), '  '.repeat(indent) + clean(n.path)]);
      for (const c of n.folders ?? []) walk(c, indent + 1);
    };
    walk(root, 0);
    io.stdout.write(table(rows));
    io.stdout.write(
      `\nby kind: ${
        top.byKind
          .filter((k) => k.files > 0)
          .map((k) => `${k.key} ${human(k.bytes)} (${k.files})`)
          .join(', ') || 'nothing'
      }\n`,
    );
    io.stdout.write(`by year: ${top.byYear.map((y) => `${y.key} ${human(y.bytes)}`).join(', ') || 'nothing'}\n`);
    if (top.largest.length)
      io.stdout.write(
        `largest: ${top.largest
          .slice(0, 5)
          .map((l) => `${clean(l.path)} ${human(l.bytes)}`)
          .join(', ')}\n`,
      );
    if (top.duplicates.length)
      io.stdout.write(
        `duplicates (name + size): ${top.duplicates
          .slice(0, 5)
          .map((d) => `${clean(d.name)} ${human(d.bytes)} x${d.count}`)
          .join(', ')}\n`,
      );
    return 0;
  } finally {
    db.close();
  }
};
