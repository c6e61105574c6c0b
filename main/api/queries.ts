/**
 * Read-only answers for the window from the offline index: search results (operators
 * included) with the NAS path of each match's folder, and a folder's listing with its
 * breadcrumbs. No network.
 */
import type { ListResult, SearchResult } from '../../app/contract/shapes.js';
import { AppError } from '../../app/errors.js';
import { isFolder } from '../../app/model/remote-object.js';
import { filtersReady, searchFiltered, type DeviceSource } from '../index/filtered-search.js';
import type { OfflineIndex } from '../index/offline-index.js';
import type { MirrorStore } from '../mirror/store.js';

const BROWSE_PAGE = 500;

/** "/" for the root, "/a/b" below it, "(unknown)" for a detached object. */
export function folderPath(store: MirrorStore, folderId: string): string {
  const names = store.pathOf(folderId);
  return names === undefined ? '(unknown)' : `/${names.join('/')}`;
}

/** A change of the user's to an object not yet on the NAS: in words, and where it is here now (renamed or moved). */
export type PendingOf = (id: string) => { pending: string; here?: { name: string; path: string } } | undefined;

export async function searchWithPaths(
  index: OfflineIndex,
  store: MirrorStore,
  q: string,
  limit?: number,
  pageToken?: string,
  pendingOf: PendingOf = () => undefined,
  device?: DeviceSource,
): Promise<SearchResult> {
  // operators (ext:, kind:, in:, size:, date:, camera:, on:) narrow the service's answer offline
  await filtersReady(index, q, device); // the first one builds the object facts in chunks, never blocking the loop
  const page = searchFiltered(index, q, { limit, pageToken, device });
  const paths = new Map<string, string>();
  return {
    pageToken: page.pageToken,
    ...(page.offlineOnly ? { offlineOnly: true } : {}),
    matches: page.matches.map((m) => {
      let path = paths.get(m.file.parentID);
      if (path === undefined) paths.set(m.file.parentID, (path = folderPath(store, m.file.parentID)));
      return { file: m.file, fragments: m.fragments, path, ...pendingOf(m.file.id) };
    }),
  };
}

export function browse(index: OfflineIndex, store: MirrorStore, folderId: string, pageToken?: string): ListResult {
  const root = store.root();
  if (!root) throw new AppError('Unavailable', 'nothing is mirrored yet: the first walk of the NAS has not finished');
  const folder = store.get(folderId);
  if (!folder) throw new AppError('NotFound', 'this folder is not in the mirror (any more)');
  if (!isFolder(folder)) throw new AppError('BadRequest', 'not a folder');
  const page = index.list(folder.id, { limit: BROWSE_PAGE, pageToken });
  // Folders first, then files; each group keeps the service's order (name by code point).
  const files = [...page.files.filter(isFolder), ...page.files.filter((f) => !isFolder(f))];
  const crumbs: { id: string; name: string }[] = [];
  let cur = folder;
  for (let guard = 0; guard < 1024; guard++) {
    const top = cur.id === root.id;
    crumbs.unshift({ id: cur.id, name: top ? 'NAS' : cur.name });
    if (top) break;
    const parent = store.get(cur.parentID);
    if (!parent) break;
    cur = parent;
  }
  return {
    folder: { id: folder.id, name: folder.id === root.id ? 'NAS' : folder.name, path: folderPath(store, folder.id) },
    crumbs,
    files,
    pageToken: page.pageToken,
  };
}
