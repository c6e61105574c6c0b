/**
 * A folder named on the command line (`ls`, `find`, `du`), as a user names it: a path from the
 * top of the mirror (`Photos/2019`, `/Photos`, `/` for the top), a path in the mirror folder
 * (`~/NAS/Photos`, or `2019` typed in ~/NAS/Photos: as `get` and `pin` take it), or an id (a
 * pasted one, or `root`).
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { LocalStore } from '../local/local-store.js';
import type { MirrorStore } from '../mirror/store.js';
import type { Db } from '../state/db.js';

/** The mirror folder this state folder was run with (`run`, or the app); undefined for a state only synced. */
export const mirrorDirOf = (db: Db): string | undefined => new LocalStore(db).meta('mirrorDir');

/** The folder a user named (its id), or undefined when the mirror has no such folder. */
export function folderId(store: MirrorStore, arg: string, mirrorDir?: string, cwd = process.cwd()): string | undefined {
  const root = store.root()?.id;
  if (arg === 'root') return root ?? arg;
  if (store.get(arg)?.mimeType === FOLDER_MIME) return arg;
  const at = (names: readonly string[]): string | undefined => {
    let cur = root;
    for (const name of names) cur = cur === undefined ? undefined : store.childByName(cur, name)?.id;
    return cur !== undefined && (cur === root || store.get(cur)?.mimeType === FOLDER_MIME) ? cur : undefined;
  };
  const inMirror = mirrorDir === undefined ? undefined : inFolder(mirrorDir, resolve(cwd, arg));
  return (inMirror === undefined ? undefined : at(inMirror)) ?? at(namesOf(arg));
}

/** The names of `path` below `dir` ([] for `dir` itself), or undefined when it is not in it. */
function inFolder(dir: string, path: string): string[] | undefined {
  const rel = relative(dir, path);
  if (rel === '') return [];
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : namesOf(rel);
}

const namesOf = (path: string): string[] => path.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');

/** What a command says when the folder is not there. */
export const noFolder = (arg: string): string =>
  `no folder ${JSON.stringify(arg)} in this mirror (a path such as Photos/2019, or an id from the last column of "nas-mirror ls /")`;
