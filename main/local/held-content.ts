/**
 * What a NAS change does to a file holding a downloaded version (runs in the reconcile, under
 * the engine's lock, before the placeholders follow the store). The eTag moves for a rename as
 * for new content, so the version is told by size and mTime: the same ones are the same
 * content (the record follows the new eTag). A new version turns a file still exactly as
 * downloaded (inode, size, mtime) back into a placeholder of it, in place (same inode, zero
 * bytes, the NAS time), unless it is pinned (then it stays until the new version is downloaded
 * over it); a file the user changed is kept as it is and becomes the user's
 * content (local only). Nothing the user wrote is ever truncated.
 */
import { closeSync, fstatSync, ftruncateSync, futimesSync, openSync } from 'node:fs';
import { parseDate } from '../../app/model/dates.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { ActivityInput } from './local-store.js';
import { lstatBig } from './analyse.js';
import { asDownloaded, pathOrId, type HeldContent, type LocalEntry, type LocalModel } from './model.js';
import { absOf } from './placeholders.js';
import type { Disk } from './disk.js';

export interface FollowPort {
  root: string;
  model: LocalModel;
  disk: Disk;
  /** The store's current version of an id (undefined: gone from the NAS; the placeholders step handles that). */
  object: (id: string) => RemoteObject | undefined;
  activity: (a: ActivityInput) => void;
  /** Whether a file is kept on this device (pinned): a new version of it is downloaded over it, never emptied. */
  pinned?: (id: string) => boolean;
  /**
   * The user changed a downloaded file that the NAS changed too: with uploads on, its version
   * goes up guarded by `baseEtag` (the one downloaded), and the NAS's answer (412) keeps both
   * (engine/creates.ts). True when it was taken (then it is not "kept here, local only").
   */
  edited?: (id: string, baseEtag: string) => boolean;
}

/** What happened to one file (tests, logs). */
export type FollowOutcome = 'same' | 'renamed' | 'emptied' | 'kept-edit' | 'refresh';

/** Follows the NAS for every file holding a downloaded version among `ids` (all of them when absent). */
export function followHeldContent(p: FollowPort, ids?: ReadonlySet<string>): Map<string, FollowOutcome> {
  const out = new Map<string, FollowOutcome>();
  for (const id of [...p.model.withContent]) {
    if (ids && !ids.has(id)) continue;
    const e = p.model.get(id);
    const o = p.object(id);
    if (!e?.content || !o) continue;
    out.set(id, followOne(p, e, e.content, o));
  }
  return out;
}

function followOne(p: FollowPort, e: LocalEntry, c: HeldContent, o: RemoteObject): FollowOutcome {
  const path = pathOrId(p.model, e.id);
  if (e.filled) {
    p.model.update(e.id, { content: undefined }); // the user's content now: no NAS version is held
    return 'kept-edit';
  }
  if (o.eTag === c.etag) return 'same';
  if ((o.size ?? 0) === c.size && o.mTime === c.nasMtime) {
    p.model.update(e.id, { content: { ...c, etag: o.eTag } });
    return 'renamed';
  }
  const abs = absOf(p.root, p.model, e.id, undefined, p.disk);
  const st = abs === undefined ? undefined : lstatBig(abs, p.disk);
  const asLeft =
    st !== undefined && st.isFile() && asDownloaded(e, { size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() });
  // kept on this device: the old version stays until the new one is downloaded over it (engine/keep.ts)
  if (asLeft && (o.size ?? 0) > 0 && p.pinned?.(e.id)) return 'refresh';
  const emptied = asLeft && abs !== undefined ? emptyIfUnchanged(abs, e, parseDate(o.mTime)) : undefined;
  if (emptied === undefined) {
    p.model.update(e.id, { filled: true, content: undefined });
    if (p.edited?.(e.id, c.etag) === true) {
      p.activity({
        kind: 'local-only',
        path,
        summary: 'changed on the NAS and on this computer: both are kept',
        reason: `NAS eTag ${c.etag} -> ${o.eTag}; your version goes to the NAS beside it as a conflicted copy`,
      });
      return 'kept-edit';
    }
    p.activity({
      kind: 'local-only',
      path,
      summary: 'changed on the NAS and on this computer: your version is kept here (local only)',
      reason: `NAS eTag ${c.etag} -> ${o.eTag}; the file is not as downloaded`,
    });
    return 'kept-edit';
  }
  p.model.update(e.id, { ino: emptied, filled: false, content: undefined });
  p.activity({
    kind: 'remote-content',
    path,
    summary: 'a new version on the NAS: the downloaded file is a placeholder again',
    reason: `NAS eTag ${c.etag} -> ${o.eTag} (size ${c.size} -> ${o.size ?? 0}); the file was as downloaded`,
  });
  return 'emptied';
}

/**
 * Empties a downloaded file in place when the open file is still the download (checked on the
 * descriptor itself: same inode, size, time): its inode, or undefined when it is not (then
 * nothing was written).
 */
export function emptyIfUnchanged(abs: string, e: Pick<LocalEntry, 'kind' | 'content'>, nasMs: number | undefined): string | undefined {
  let fd: number;
  try {
    fd = openSync(abs, 'r+');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (!asDownloaded(e, { size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() })) return undefined;
    ftruncateSync(fd, 0);
    try {
      if (nasMs !== undefined) futimesSync(fd, nasMs / 1000, nasMs / 1000);
    } catch {
      // empty already: the placeholders step sets the NAS time again
    }
    return st.ino.toString();
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
