/**
 * A file changed here and on the NAS (a content conflict): both are kept (creates.ts
 * `keepBoth`: the NAS's version at the name, the user's beside it as a conflicted copy) and
 * the row waits in Conflicts for the user's choice, carried out here:
 *
 * - keep both: the row goes; both files stay as they are;
 * - keep mine: the copy's bytes go up as a new version of the ORIGINAL object, guarded by
 *   If-Match the NAS version the row shows (412: the row shows the NAS's new version, choose
 *   again); then the copy takes the original's place on disk (it holds that NAS version now)
 *   and the copy's own NAS object, if it has one, is deleted through the outbox (If-Match
 *   like any delete); an upload of the copy not started yet is cancelled;
 * - keep the NAS's: the copy goes, from the disk and (through the outbox) from the NAS.
 *
 * `putAside` keeps both and lists the row; `ContentChoices` carries out the choice.
 * Nothing of either version is lost at any step: each check fails before anything is removed,
 * and a failed step leaves the row with why (`note`). A copy that changed since the row was
 * listed is shown as it is now and the user chooses again.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { formatDate } from '../../app/model/dates.js';
import type { ContentConflict } from '../../app/model/intent.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { formatSize } from '../../app/util/human.js';
import type { ServiceClient } from '../client/service-client.js';
import { lstatBig } from '../local/analyse.js';
import { contentConflictRemote as nasWords, contentConflictRow } from '../local/conflict-rows.js';
import { asDownloaded, type LocalEntry } from '../local/model.js';
import { absOf } from '../local/placeholders.js';
import { aspectsOf } from '../mirror/changes.js';
import { pathFor, type Core, type Lock } from './core.js';

export type ContentChoice = 'keep-mine' | 'keep-nas' | 'keep-both';

export interface ContentChoicePort {
  core: Core;
  lock: Lock;
  client: Pick<ServiceClient, 'startVersion' | 'putContent' | 'get'>;
  signal: AbortSignal;
  /** Bytes per upload request (the creator's, creates.ts CHUNK_BYTES). */
  chunkBytes: number;
  /** The creator's journal rows a choice works on: kept from the creator meanwhile (false: it is sending that row now). */
  uploads: { reserve(seq: number): boolean; release(seq: number): void };
  /** The NAS version of `id` changed by us: a walk begun before must not bring the old one back. */
  settled(id: string): void;
}

/**
 * Both kept (under the lock, after the NAS answered 412 to the user's new version of `e`): the
 * user's file (`file`, what the disk shows at its place) renamed beside it as its conflicted
 * copy, then in one transaction the NAS's version `nas` at the name (placed again as a
 * placeholder by the next reconcile; the store takes it), the journal row `seq` done, the
 * conflict listed.
 */
export function putAside(
  core: Pick<Core, 'model' | 'store' | 'applier' | 'local' | 'creates' | 'disk' | 'db' | 'activity'>,
  seq: number,
  e: LocalEntry,
  file: { abs: string; size: number; mtimeMs: number; ino: string },
  nas: RemoteObject,
): void {
  const dir = file.abs.slice(0, file.abs.length - e.lname.length);
  const copy = conflictedName(e.lname, new Date(), (n) => core.disk.exists(`${dir}${n}`));
  core.disk.rename(file.abs, `${dir}${copy}`);
  const path = pathFor(core, e.id);
  const rec: ContentConflict = {
    op: 'content',
    id: e.id,
    copyParent: e.lparent,
    copyName: copy,
    copyIno: file.ino,
    mine: { size: file.size, mtime: formatDate(file.mtimeMs) },
    nas: versionOf(nas),
  };
  core.db.transaction(() => {
    core.model.update(e.id, { ino: null, filled: false, content: undefined, setag: '' });
    const before = core.store.get(e.id);
    if (before && before.eTag !== nas.eTag)
      core.applier.applyOwn([{ kind: 'updated', before, after: nas, aspects: aspectsOf(before, nas) }]);
    core.creates.finish(seq, 'done', `the NAS changed it too: your version is kept as ${copy}`);
    core.local.addConflict(contentConflictRow(path, rec));
    core.local.flush(core.model);
  })();
  core.activity({
    kind: 'conflict',
    path,
    summary: `both kept: your version is now "${copy}" beside it`,
    reason:
      'the NAS changed this file while you changed it here (its version moved); ' +
      'nothing of either is lost: your copy goes to the NAS as a new file; choose in Conflicts which to keep',
  });
}

/** The conflicted copy as a choice found it: where it is, what the disk shows, its NAS id when it has one, its journal rows. */
interface Copy {
  abs: string;
  size: number;
  mtimeMs: number;
  ino: string;
  /** Its folder (NAS id) and name. */
  parent: string;
  name: string;
  /** The copy's NAS object, when the creator made one (known to the model). */
  id: string | undefined;
  /** Open or held journal rows for it (an upload not started, or waiting to be tried again): reserved, cancelled when it goes. */
  rows: number[];
}

/** Why a choice could not be carried out, and what the row shows from now on. */
interface Refusal {
  why: string;
  nas?: ContentConflict['nas'];
  mine?: ContentConflict['mine'];
}

type Prepared = { seq: number; rec: ContentConflict; path: string; copy: Copy };

export class ContentChoices {
  constructor(private readonly p: ContentChoicePort) {}

  /** Carries out the user's choice on content conflict `seq`: undefined when done, else why not (the row stays and says it). */
  async choose(seq: number, choice: ContentChoice): Promise<string | undefined> {
    let refused: Refusal | undefined;
    try {
      refused = choice === 'keep-both' ? await this.p.lock.run(() => this.keepBoth(seq)) : await this.replaceOrDrop(seq, choice);
    } catch (e) {
      const err = toAppError(e);
      this.p.core.log.warn('a choice on a content conflict failed', { seq, choice, code: err.code, message: err.message });
      refused = { why: `it could not be done: ${err.message}` };
    }
    if (refused === undefined) return undefined;
    const r = refused;
    // (the engine stopping: the row stays as it was, the choice can be made again)
    if (!this.p.signal.aborted) await this.p.lock.run(() => this.note(seq, r));
    return r.why;
  }

  /** Keep mine or keep the NAS's: the copy found and reserved, the choice carried out, the reservations released. */
  private async replaceOrDrop(seq: number, choice: 'keep-mine' | 'keep-nas'): Promise<Refusal | undefined> {
    const prep = await this.p.lock.run(() => this.prepare(seq, choice));
    if ('why' in prep) return prep;
    try {
      if (choice === 'keep-nas') return await this.p.lock.run(() => this.commitNas(prep));
      const sent = await this.sendMine(prep);
      if (sent !== undefined) return sent;
      const o = await this.p.client.get(prep.rec.id, { signal: this.p.signal });
      return await this.p.lock.run(() => this.commitMine(prep, o));
    } finally {
      for (const s of prep.copy.rows) this.p.uploads.release(s);
    }
  }

  /** Keep both: both are on disk already; the row goes. */
  private keepBoth(seq: number): Refusal | undefined {
    const { core } = this.p;
    const k = core.local.conflict(seq);
    if (k?.op.op !== 'content') return { why: 'no such conflict' };
    core.local.removeConflict(seq);
    core.activity({
      kind: 'kept-both',
      path: k.path,
      summary: `both kept: your version stays as ${JSON.stringify(k.op.copyName)} beside it`,
      reason: 'you chose to keep both versions',
    });
    return undefined;
  }

  /** Under the lock: the row, the original and the copy as they are now; why not when a check fails. */
  private prepare(seq: number, choice: 'keep-mine' | 'keep-nas'): Prepared | Refusal {
    const { core } = this.p;
    const k = core.local.conflict(seq);
    if (k?.op.op !== 'content') return { why: 'no such conflict' };
    const rec = k.op;
    const e = core.model.get(rec.id);
    if (!e || e.state !== 'ok' || e.kind !== 'file') return { why: 'the file is no longer on the NAS: "keep both" keeps your copy' };
    if (choice === 'keep-mine' && (e.filled || core.creates.openFor(rec.id).length > 0))
      return {
        why: `${JSON.stringify(e.lname)} was changed here again since: its own new version goes to the NAS first; choose again after`,
      };
    const copy = this.findCopy(rec);
    if (copy === undefined)
      return {
        why: `your copy ${JSON.stringify(rec.copyName)} is no longer where it was put (moved, renamed or deleted): "keep both" closes this`,
      };
    const mine = { size: copy.size, mtime: formatDate(copy.mtimeMs) };
    if (mine.size !== rec.mine.size || mine.mtime !== rec.mine.mtime)
      return { why: 'your copy changed since this was listed: it is shown as it is now; choose again', mine };
    const reserved: number[] = [];
    for (const s of copy.rows) {
      if (!this.p.uploads.reserve(s)) {
        for (const r of reserved) this.p.uploads.release(r);
        return { why: 'your copy is being uploaded to the NAS right now: choose again in a moment' };
      }
      reserved.push(s);
    }
    return { seq, rec, path: k.path, copy };
  }

  /** The conflicted copy: the NAS object the model knows at its place (or by its inode), else the file at its place; none: gone. */
  private findCopy(rec: ContentConflict): Copy | undefined {
    const { core } = this.p;
    const { model } = core;
    const named = model.children(rec.copyParent).find((c) => {
      const x = model.get(c);
      return x?.kind === 'file' && x.state === 'ok' && x.lname === rec.copyName;
    });
    const bound = named ?? (rec.copyIno !== '' ? model.byIno(rec.copyIno)?.id : undefined);
    const b = bound === undefined ? undefined : model.get(bound);
    if (b && b.kind === 'file' && b.state === 'ok' && b.ino !== null) {
      const abs = absOf(core.root, model, b.id, undefined, core.disk);
      const st = abs === undefined ? undefined : lstatBig(abs, core.disk);
      if (abs === undefined || !st?.isFile() || st.ino.toString() !== b.ino) return undefined;
      const rows = core.creates.openFor(b.id).map((r) => r.seq);
      return { abs, ...statOf(st), parent: b.lparent, name: b.lname, id: b.id, rows };
    }
    const dir = absOf(core.root, model, rec.copyParent, undefined, core.disk);
    const abs = dir === undefined ? undefined : `${dir}/${rec.copyName}`;
    const st = abs === undefined ? undefined : lstatBig(abs, core.disk);
    // (its inode tells it from another file of that name, where inodes survive a remount)
    const other = rec.copyIno !== '' && core.identity.stableIds && st?.ino.toString() !== rec.copyIno;
    if (abs === undefined || !st?.isFile() || other) return undefined;
    const rows = core.creates.openAt(rec.copyParent, rec.copyName).map((r) => r.seq);
    return { abs, ...statOf(st), parent: rec.copyParent, name: rec.copyName, id: undefined, rows };
  }

  /**
   * Keep mine, step 1 (no lock): the copy's bytes as a new version of the original, If-Match the
   * NAS version the row shows. Undefined once the NAS holds all of it; else why not.
   */
  private async sendMine(prep: Prepared): Promise<Refusal | undefined> {
    const { client, signal, core } = this.p;
    const { rec, copy } = prep;
    try {
      await client.startVersion(rec.id, { ifMatch: rec.nas.eTag, mTime: formatDate(copy.mtimeMs), signal });
    } catch (e) {
      if (e instanceof AppError && e.status === 412) return this.changedAgain(prep);
      if (e instanceof AppError && e.status === 404) return { why: 'the file is no longer on the NAS: "keep both" keeps your copy' };
      throw e;
    }
    for (let offset = 0; ;) {
      const st = lstatBig(copy.abs, core.disk);
      if (!st?.isFile() || !same(statOf(st), copy)) return { why: 'your copy changed while it was sent: choose again' };
      const n = Math.min(this.p.chunkBytes, copy.size - offset);
      const bytes = n > 0 ? core.disk.readChunk(copy.abs, offset, n) : Buffer.alloc(0);
      if (bytes.length !== n) return { why: 'your copy changed while it was sent: choose again' };
      const last = offset + n >= copy.size;
      await client.putContent(rec.id, offset, bytes, last, { signal });
      offset += n;
      if (last) return undefined;
    }
  }

  /** The NAS's version moved since the row was listed (412): the row shows the NAS's version now (the store follows it too). */
  private async changedAgain(prep: Prepared): Promise<Refusal> {
    const why = "the NAS's version changed again since this was listed: it is shown as it is now; choose again";
    let o: RemoteObject;
    try {
      o = await this.p.client.get(prep.rec.id, { signal: this.p.signal });
    } catch (e) {
      if (e instanceof AppError && e.status === 404) return { why: 'the file is no longer on the NAS: "keep both" keeps your copy' };
      throw e;
    }
    await this.p.lock.run(() => this.follow(o));
    return { why, nas: { eTag: o.eTag, size: o.size ?? 0, mtime: o.mTime } };
  }

  /** The mirror store takes the NAS's version `o` we just read (the placeholder follows at the reconcile). */
  private follow(o: RemoteObject): void {
    const { core } = this.p;
    const before = core.store.get(o.id);
    if (before && before.eTag !== o.eTag) {
      core.db.transaction(() => core.applier.applyOwn([{ kind: 'updated', before, after: o, aspects: aspectsOf(before, o) }]))();
      this.p.settled(o.id);
    }
  }

  /**
   * Keep mine, step 2 (under the lock): the NAS holds the copy's bytes as version `o` of the
   * original; the copy takes the original's place on disk (over its placeholder or the NAS's
   * old version, never over content of the user's), then the copy goes.
   */
  private commitMine(prep: Prepared, o: RemoteObject): Refusal | undefined {
    const { core } = this.p;
    const { rec, copy } = prep;
    const e = core.model.get(rec.id);
    const st = lstatBig(copy.abs, core.disk);
    if (!st?.isFile() || !same(statOf(st), copy)) return { why: 'your copy changed while it was sent: choose again', nas: versionOf(o) };
    const to = e && e.state === 'ok' ? absOf(core.root, core.model, rec.id, undefined, core.disk) : undefined;
    if (!e || to === undefined)
      return { why: 'the file is no longer in the mirror folder: "keep both" keeps your copy', nas: versionOf(o) };
    if (!replaceable(e, lstatBig(to, core.disk)))
      return { why: `${JSON.stringify(e.lname)} was changed here meanwhile: your copy stays beside it; choose again`, nas: versionOf(o) };
    core.disk.rename(copy.abs, to);
    core.db.transaction(() => {
      core.model.update(rec.id, {
        ino: copy.ino,
        filled: false,
        content: { etag: o.eTag, nasMtime: o.mTime, size: copy.size, mtimeMs: copy.mtimeMs, ino: copy.ino },
        etag: o.eTag,
        setag: o.eTag,
        mtime: o.mTime,
      });
      const before = core.store.get(rec.id);
      if (before) core.applier.applyOwn([{ kind: 'updated', before, after: o, aspects: aspectsOf(before, o) }]);
      this.dropCopy(copy, 'you kept your version: it replaced the NAS version of the file');
      core.local.removeConflict(prep.seq);
      core.local.flush(core.model);
    })();
    this.p.settled(rec.id);
    core.activity({
      kind: 'reapplied',
      path: prep.path,
      summary: `kept mine: your version (${formatSize(copy.size)}) is the NAS version now; ${JSON.stringify(copy.name)} goes`,
      reason: `you chose your version over the NAS's (sent with If-Match ${rec.nas.eTag}; now ${o.eTag})`,
    });
    return undefined;
  }

  /** Keep the NAS's (under the lock, with its checks): the copy goes from the disk, and from the NAS through the outbox. */
  private commitNas(prep: Prepared): Refusal | undefined {
    const { core } = this.p;
    const { copy } = prep;
    const st = lstatBig(copy.abs, core.disk);
    if (!st?.isFile() || !same(statOf(st), copy)) return { why: 'your copy changed since this was listed: choose again' };
    core.disk.unlink(copy.abs);
    core.db.transaction(() => {
      this.dropCopy(copy, "you kept the NAS's version: your conflicted copy goes");
      core.local.removeConflict(prep.seq);
      core.local.flush(core.model);
    })();
    core.activity({
      kind: 'dropped',
      path: prep.path,
      summary: `kept the NAS's version: your copy ${JSON.stringify(copy.name)} removed`,
      reason: `you chose the NAS's version${copy.id !== undefined ? '; the copy is deleted on the NAS too, If-Match like any delete' : ''}`,
    });
    return undefined;
  }

  /** In the caller's transaction: the copy (off the disk already) leaves the model, the NAS (a queued delete) and the journal. */
  private dropCopy(copy: Copy, reason: string): void {
    const { core } = this.p;
    if (copy.id !== undefined) {
      const ce = core.model.get(copy.id)!;
      const path = pathFor(core, copy.id);
      core.model.update(copy.id, { ino: null, filled: false, content: undefined, state: 'deleting' });
      core.outbox.enqueue([
        { intent: { op: 'delete', id: copy.id, fromName: ce.rname, fromParent: ce.rparent }, origin: 'approve', path, reason },
      ]);
    }
    for (const s of copy.rows) core.creates.finish(s, 'gone', reason);
    core.local.removeLocalOnly({ parent: copy.parent, name: copy.name });
  }

  /** The row stays and says why; it shows the versions as they are now. */
  private note(seq: number, r: Refusal): void {
    const { core } = this.p;
    const k = core.local.conflict(seq);
    if (k?.op.op !== 'content') return;
    const rec: ContentConflict = { ...k.op, ...(r.nas ? { nas: r.nas } : {}), ...(r.mine ? { mine: r.mine } : {}), note: r.why };
    core.local.updateConflict(seq, rec, nasWords(rec.nas));
  }
}

const statOf = (st: { size: bigint; mtimeMs: bigint; ino: bigint }): Pick<Copy, 'size' | 'mtimeMs' | 'ino'> => ({
  size: Number(st.size),
  mtimeMs: Number(st.mtimeMs),
  ino: st.ino.toString(),
});

const same = (a: Pick<Copy, 'size' | 'mtimeMs' | 'ino'>, b: Pick<Copy, 'size' | 'mtimeMs' | 'ino'>): boolean =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

const versionOf = (o: RemoteObject): ContentConflict['nas'] => ({ eTag: o.eTag, size: o.size ?? 0, mtime: o.mTime });

/**
 * What the disk shows at the original's place may be replaced by the user's version: nothing,
 * its placeholder (empty), or the NAS version downloaded there, untouched; never content of
 * the user's.
 */
function replaceable(e: LocalEntry, st: ReturnType<typeof lstatBig>): boolean {
  if (st === undefined) return true;
  if (!st.isFile() || e.ino === null || st.ino.toString() !== e.ino || e.filled) return false;
  const d = statOf(st);
  return e.content === undefined ? d.size === 0 : asDownloaded(e, d);
}

/** "name (conflicted copy 2026-11-27 0143).ext", with " 2", " 3"... when taken. */
export function conflictedName(name: string, at: Date, taken: (n: string) => boolean): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}-${p(at.getMonth() + 1)}-${p(at.getDate())} ${p(at.getHours())}${p(at.getMinutes())}`;
  for (let i = 1; ; i++) {
    const n = `${stem} (conflicted copy ${stamp}${i > 1 ? ` ${i}` : ''})${ext}`;
    if (!taken(n)) return n;
  }
}
