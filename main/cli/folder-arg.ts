/** A folder named on the command line: a path in the mirror (`Photos/2019`, `/`) or an id. */
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import type { MirrorStore } from '../mirror/store.js';

/** The folder a user named: an id the mirror has (or `root`), else a path from the top. */
export function folderId(store: MirrorStore, arg: string): string {
  if (arg === 'root' || store.get(arg)?.mimeType === FOLDER_MIME) return arg;
  let cur = store.root()?.id;
  for (const seg of arg.split('/').filter((x) => x !== '')) cur = cur === undefined ? undefined : store.childByName(cur, seg)?.id;
  return cur ?? arg;
}
