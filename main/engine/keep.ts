/**
 * "Keep on this device" and "Free up space", the engine's side. A pin (file or folder, by
 * object id, `local_pins`) is recorded under the lock; then the keeper downloads what the
 * pins cover and lacks (placeholders, older NAS versions) through `Downloads.get`, a few at a
 * time, each download outside the lock (only its check and its commit take it). The keeper
 * runs after a pin and after every walk or reconcile, so a new version, or a file added under
 * a pinned folder, comes down at the next walk. Free empties, in place, only files still
 * exactly as the engine downloaded them; the user's content is never touched.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { lstatBig } from '../local/analyse.js';
import { emptyIfUnchanged, followHeldContent } from '../local/held-content.js';
import { asDownloaded } from '../local/model.js';
import { pinOf, subtreeOf, wantedFiles } from '../local/pins.js';
import { absOf } from '../local/placeholders.js';
import { parseDate } from '../../app/model/dates.js';
import type { ActivityInput, Core, Lock } from './core.js';
import { pathFor } from './core.js';
import type { GetResult } from './downloads.js';
import { Rerun } from './rerun.js';
import type { DeviceState } from '../../app/contract/shapes.js';

/** How many pinned files download at once. */
export const KEEP_CONCURRENCY = 4;

/** What a file or folder is on this device (the window's indicator). */
export type { DeviceState };

export interface FreeResult {
  /** Files turned back into placeholders, and the bytes that took. */
  freed: number;
  bytes: number;
  /** Files left as they are, and why (the user's content is never emptied). */
  kept: { path: string; reason: string }[];
}

export interface KeepPort {
  core: Pick<Core, 'root' | 'model' | 'store' | 'local' | 'disk' | 'activity' | 'log'>;
  lock: Lock;
  get: (id: string) => Promise<GetResult>;
  stopped: () => boolean;
  /** After pins or content changed (the window refreshes its indicators). */
  changed: () => void;
}

export class Keeper {
  private readonly runs = new Rerun(
    () => this.once(),
    () => this.p.stopped(),
    (e) => {
      const err = toAppError(e);
      this.p.core.log.error('keep on this device failed', { code: err.code, message: err.message });
    },
  );
  /** The last pass's failures, as said (the same ones again at the next walk are not said twice). */
  private lastFailed = '';

  constructor(private readonly p: KeepPort) {}

  /** Pins a file or folder: downloaded now (in the background), kept current at every walk. */
  async pin(id: string): Promise<{ files: number }> {
    const files = await this.p.lock.run(() => {
      const { core } = this.p;
      const e = core.model.get(id);
      if (!e || e.state !== 'ok') throw new AppError('NotFound', 'this object is not in the mirror folder (yet): sync first');
      core.local.addPin(id);
      const n = wantedFiles(core.model, new Set([id]), (x) => core.store.get(x)).length;
      core.activity({
        kind: 'pinned',
        path: pathFor(core, id),
        summary: `kept on this device: ${n} file(s) to download`,
        reason: 'you asked to keep it on this device',
      });
      return n;
    });
    this.p.changed();
    this.kick();
    return { files };
  }

  /** Unpins: what is here stays here (until freed), but is no longer kept current. */
  async unpin(id: string): Promise<void> {
    await this.p.lock.run(() => {
      const { core } = this.p;
      const pins = core.local.pins();
      this.refuseInsidePin(id, pins, 'unpin that folder');
      const under = subtreeOf(core.model, id).filter((x) => pins.has(x));
      if (!under.length) throw new AppError('BadRequest', `${pathFor(core, id)} is not kept on this device`);
      core.local.removePins(under);
      // a kept file holding an older version (its new one not downloaded yet) becomes what any
      // download does on a new NAS version: a placeholder of it when untouched
      const object = (x: string): ReturnType<typeof core.store.get> => core.store.get(x);
      const follow = { root: core.root, model: core.model, disk: core.disk, object, activity: (a: ActivityInput) => core.activity(a) };
      followHeldContent(follow, new Set(subtreeOf(core.model, id)));
      core.local.flush(core.model);
      const summary = 'no longer kept on this device (what is here stays until you free it)';
      core.activity({ kind: 'unpinned', path: pathFor(core, id), summary, reason: 'you asked' });
    });
    this.p.changed();
  }

  /** Free up space: the files below `id` still exactly as downloaded become placeholders again, in place; unpins them. */
  async free(id: string): Promise<FreeResult> {
    const r = await this.p.lock.run(() => this.freeLocked(id));
    this.p.changed();
    return r;
  }

  private freeLocked(id: string): FreeResult {
    const { core } = this.p;
    const e = core.model.get(id);
    if (!e || e.state !== 'ok') throw new AppError('NotFound', 'this object is not in the mirror folder');
    const pins = core.local.pins();
    this.refuseInsidePin(id, pins, 'unpin that folder first');
    const ids = subtreeOf(core.model, id);
    core.local.removePins(ids.filter((x) => pins.has(x)));
    const out: FreeResult = { freed: 0, bytes: 0, kept: [] };
    for (const x of ids) this.freeOne(x, out);
    core.local.flush(core.model);
    const n = out.kept.length;
    const names = `${out.kept
      .slice(0, 5)
      .map((k) => k.path)
      .join(', ')}${n > 5 ? ', ...' : ''}`;
    const summary = `freed ${out.bytes} bytes: ${out.freed} file(s) are placeholders again`;
    const reason = 'you asked to free up space; the NAS keeps every file, nothing was sent to it';
    core.activity({
      kind: 'freed',
      path: pathFor(core, id),
      summary: n ? `${summary}; ${n} file(s) you changed kept as they are` : summary,
      reason: n ? `${reason}; kept as they are (changed on this computer): ${names}` : reason,
    });
    return out;
  }

  /** A file or folder kept through a pinned folder above it is unpinned or freed with that folder only. */
  private refuseInsidePin(id: string, pins: ReadonlySet<string>, what: string): void {
    const { core } = this.p;
    const by = pinOf(core.model, pins, id);
    if (by !== undefined && by !== id) {
      throw new AppError('Conflict', `${pathFor(core, id)} is kept on this device through the folder ${pathFor(core, by)}: ${what}`);
    }
  }

  private freeOne(id: string, out: FreeResult): void {
    const { core } = this.p;
    const e = core.model.get(id);
    if (!e || e.kind !== 'file') return;
    const path = pathFor(core, id);
    if (e.filled) {
      out.kept.push({ path, reason: 'you changed it on this computer: it is yours, not a copy of the NAS (local only)' });
      return;
    }
    if (!e.content) return; // a placeholder already
    const abs = e.ino === null ? undefined : absOf(core.root, core.model, id, undefined, core.disk);
    const st = abs === undefined ? undefined : lstatBig(abs, core.disk);
    const asLeft = st?.isFile() === true && asDownloaded(e, { size: Number(st.size), mtimeMs: Number(st.mtimeMs), ino: st.ino.toString() });
    const ino = asLeft && abs !== undefined ? emptyIfUnchanged(abs, e, parseDate(e.content.nasMtime)) : undefined;
    if (ino === undefined) {
      out.kept.push({ path, reason: 'it changed on this computer since it was downloaded: it is kept as it is' });
      return;
    }
    out.freed++;
    out.bytes += e.content.size;
    core.model.update(id, { ino, filled: false, content: undefined });
  }

  /** What each id is on this device (unknown ids are left out). */
  states(ids: readonly string[]): Map<string, DeviceState> {
    const { model } = this.p.core;
    const pins = this.p.core.local.pins();
    const out = new Map<string, DeviceState>();
    for (const id of ids) {
      const e = model.get(id);
      if (!e) continue;
      if (pinOf(model, pins, id) !== undefined) out.set(id, 'pinned');
      else if (e.kind === 'dir') out.set(id, 'folder');
      else out.set(id, e.filled ? 'edited' : e.content ? 'here' : 'placeholder');
    }
    return out;
  }

  /** The NAS content held on this device below `under` (the whole mirror when absent): downloaded files and their bytes. */
  space(under?: string): { files: number; bytes: number } {
    const { model } = this.p.core;
    let files = 0;
    let bytes = 0;
    for (const id of model.withContent) {
      const e = model.get(id);
      if (!e?.content || (under !== undefined && !model.isUnder(id, under))) continue;
      files++;
      bytes += e.content.size;
    }
    return { files, bytes };
  }

  /** Downloads what the pins cover and lack, soon (a run in progress runs once more after). */
  kick(): void {
    this.runs.kick();
  }

  /** Resolves once no keeper run is in progress. */
  async idle(): Promise<void> {
    await this.runs.idle();
  }

  /** One pass: the files to download, read under the lock, then fetched a few at a time. */
  private async once(): Promise<void> {
    const { core } = this.p;
    const todo = await this.p.lock.run(() => {
      const pins = core.local.pins();
      return pins.size ? wantedFiles(core.model, pins, (x) => core.store.get(x)) : [];
    });
    if (!todo.length) return;
    let done = 0;
    const failed: string[] = [];
    let next = 0;
    // a NAS without the content interface: said once as a notice by Downloads; the pass stops
    let noInterface = false;
    const worker = async (): Promise<void> => {
      while (next < todo.length && !this.p.stopped() && !noInterface) {
        const id = todo[next++]!;
        // unpinned or freed meanwhile: left as it is
        if (pinOf(core.model, core.local.pins(), id) === undefined) continue;
        try {
          if ((await this.p.get(id)).downloaded) done++;
        } catch (e) {
          const err = toAppError(e);
          if (err.code === 'NoContentInterface') noInterface = true;
          else failed.push(`${pathFor(core, id)}: ${err.message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(KEEP_CONCURRENCY, todo.length) }, worker));
    if (this.p.stopped()) return;
    if (done > 0) {
      const reason = 'pinned files and folders are downloaded and kept current at every walk';
      core.activity({ kind: 'kept', path: '', summary: `kept on this device: downloaded ${done} file(s)`, reason });
    }
    const said = failed.length ? `${failed.length}:${failed.slice(0, 3).join(';')}` : '';
    if (failed.length && said !== this.lastFailed) {
      const reason = `${failed.slice(0, 3).join('; ')}${failed.length > 3 ? '; ...' : ''} (tried again at the next walk)`;
      core.activity({ kind: 'error', path: '', summary: `keep on this device: ${failed.length} download(s) failed`, reason });
    }
    this.lastFailed = said;
    this.p.changed();
  }
}
