/**
 * `nas-service import PATH --user NAME [--into ID]`: copies a real folder tree into a user's
 * library: names, sizes, times, mimeType from the extension, EXIF image metadata, and each
 * file's content (copied into the data folder, flushed and renamed into place before its row
 * names it). Idempotent: an existing sibling with the same name and kind is updated in place
 * (its content copied again when it changed), so running it twice adds nothing twice.
 * Symbolic links are skipped.
 */
import { lstat, readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { AppError } from '../../app/errors.js';
import type { Hidden, ImageMeta } from '../../app/model/remote-object.js';
import { nameProblem } from '../../app/model/names.js';
import { mimeForName } from '../store/mime.js';
import type { Store } from '../store/store.js';
import { ContentStore } from '../content/content-store.js';
import { silentLogger } from '../log.js';
import { userByName } from '../store/users.js';
import { readImageMeta } from './exif.js';
import { ignore } from '../../app/util/ignore.js';

export interface ImportResult {
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
}

const EXIF_MIMES = /^image\/(jpeg|tiff|heic|heif|png|webp|x-)/;

/** hidden: `.DS_Store`/`._*` on mac, `Thumbs.db`/`desktop.ini` on windows, other dot names on linux. */
export function hiddenFor(name: string): Hidden {
  if (name === '.DS_Store' || name.startsWith('._')) return 'mac';
  if (name === 'Thumbs.db' || name === 'desktop.ini') return 'windows';
  if (name.startsWith('.')) return 'linux';
  return 'none';
}

export async function importTree(store: Store, path: string, userName: string, intoId?: string): Promise<ImportResult> {
  const user = userByName(store, userName);
  if (!user) throw new AppError('NotFound', `no user "${userName}"`);
  let target = user.root;
  if (intoId !== undefined) {
    const r = store.byId(intoId);
    if (!r || r.deleting || !store.index.isDir(r.row) || store.index.access(user.id, r.row) < 2)
      throw new AppError('NotFound', `no folder ${intoId} that ${userName} may write to`);
    target = r.row;
  }
  const abs = resolve(path);
  const st = await lstat(abs).catch(ignore('absent or unreadable: said just below'));
  if (!st || !st.isDirectory()) throw new AppError('BadConfig', `${path} is not a folder`);
  const result: ImportResult = { added: 0, updated: 0, unchanged: 0, skipped: 0 };
  await importDir(store, new ContentStore(store, silentLogger), abs, target, result);
  void basename;
  return result;
}

async function importDir(store: Store, content: ContentStore, dir: string, parent: number, res: ImportResult): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const full = join(dir, e.name);
    if (nameProblem(e.name) || !(e.isDirectory() || e.isFile())) {
      res.skipped++;
      continue;
    }
    const st = await lstat(full);
    const isDir = st.isDirectory();
    const mtime = Math.floor(st.mtimeMs);
    const ctime = Math.floor(st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs);
    const mime = isDir ? undefined : mimeForName(e.name);
    const image: ImageMeta | undefined = mime && EXIF_MIMES.test(mime) ? await readImageMeta(full) : undefined;
    const existing = store.child(parent, e.name);
    let row: number;
    if (existing) {
      if ((existing.dir === 1) !== isDir) {
        res.skipped++;
        continue;
      }
      row = existing.row;
      const img = image ? JSON.stringify(image) : null;
      const size = isDir ? 0 : st.size;
      const noContent = !isDir && existing.content === null;
      if (existing.mtime !== mtime || existing.size !== size || existing.image !== img || noContent) {
        const copy = isDir ? undefined : await content.copyIn(full);
        store.db
          .prepare('UPDATE objects SET mtime = ?, size = ?, image = ?, content = ?, version = version + 1 WHERE row = ?')
          .run(mtime, copy?.size ?? size, img, copy?.stem ?? existing.content, row);
        content.forget(copy ? existing.content : null);
        store.indexRow(store.get(row)!);
        res.updated++;
      } else {
        res.unchanged++;
      }
    } else {
      const copy = isDir ? undefined : await content.copyIn(full);
      row = store.create(parent, {
        name: e.name,
        dir: isDir,
        mime,
        size: copy?.size ?? 0,
        mtime,
        ctime,
        hidden: hiddenFor(e.name),
        image,
        source: full,
        content: copy?.stem,
      }).row;
      res.added++;
    }
    if (isDir) await importDir(store, content, full, row, res);
  }
}
