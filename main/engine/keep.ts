/**
 * "Keep on this device" and "Free up space", the engine's side. A pin (file or folder, by
 * object id, `local_pins`) is recorded under the lock; then the keeper downloads what the
 * pins cover and lacks (placeholders, older NAS versions) through `Downloads.get`, a few
 * requests at a time (the next goes once an answer is in, while the file before is fsync'd and
 * put in place), each download outside the lock (only its check and its commit take it). The keeper
 * runs after a pin and after every walk or reconcile, so a new version, or a file added under
 * a pinned folder, comes down at the next walk. Free empties, in place, only files still
 * exactly as the engine downloaded them; the user's content is never touched.
 */
import { AppError, toAppError } from '../../app/errors.js';
import { lstatBig } from '../local/analyse.js';
import { emptyIfUnchanged, followHeldContent } from '../local/held-content.js';
import { asDownloaded, type LocalModel } from '../local/model.js';
import { deviceStateOf, deviceView, pinOf, subtreeOf, WantedWalk } from '../local/pins.js';
import { absOf } from '../local/placeholders.js';
import { freedSummary } from '../../app/activity/words.js';
import { parseDate } from '../../app/model/dates.js';
import { plural } from '../../app/util/human.js';
import type { ActivityInput, Core, Lock } from './core.js';
import { pathFor } from './core.js';
import type { GetResult, PendingGet } from './downloads.js';
import { Rerun } from './rerun.js';
import type { DeviceState } from '../../app/contract/shapes.js';
import type { DeviceView } from '../../app/filters/on-device.js';

/** How many pinned files download at once (requests in flight). */
export const KEEP_CONCURRENCY = 4;
/** How many downloaded files may wait for their fsync and their place while the next requests go. */
export const KEEP_UNSETTLED = 256;
/** Entries the keeper reads in one turn of the lock when it looks for files to download (~10 ms). */
const WANTED_STEP = 1000;

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
  core: Pick<Core, 'root' | 'db' | 'model' | 'store' | 'local' | 'disk' | 'activity' | 'log'>;
  lock: Lock;
  /** A download (`Downloads.get`); with `fetched`, the keeper sends its next request once that one's answer is in. */
  get: (id: string) => Promise<GetResult> | PendingGet;
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
  /** The pins as stored (only this class changes them: dropped at each change), read once, not once per file. */
  private pinned: ReadonlySet<string> | undefined;
  /** The search's last device view, and the model (at its version) and the pins it was built from. */
  private view: { model: LocalModel; version: number; pins: ReadonlySet<string>; view: DeviceView } | undefined;
  private views = 0;

  constructor(private readonly p: KeepPort) {}

  /** Pins a file or folder: downloaded now (in the background), kept current at every walk. */
  async pin(id: string): Promise<{ files: number }> {
    const { core } = this.p;
    await this.p.lock.run(() => {
      const e = core.model.get(id);
      if (!e || e.state !== 'ok') throw new AppError('NotFound', 'this object is not in the mirror folder (yet): sync first');
      core.local.addPin(id);
      this.pinned = undefined;
    });
    const files = (await this.wanted(new Set([id]))).length;
    core.activity({
      kind: 'pinned',
      path: pathFor(core, id),
      summary: `kept on this device: ${plural(files, 'file', 'files')} to download`,
      reason: 'you asked to keep it on this device',
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
      this.pinned = undefined;
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
    this.pinned = undefined;
    const out: FreeResult = { freed: 0, bytes: 0, kept: [] };
    for (const x of ids) this.freeOne(x, out);
    core.local.flush(core.model);
    const n = out.kept.length;
    const names = `${out.kept
      .slice(0, 5)
      .map((k) => k.path)
      .join(', ')}${n > 5 ? ', ...' : ''}`;
    const reason = 'you asked to free up space; the NAS keeps every file, nothing was sent to it';
    core.activity({
      kind: 'freed',
      path: pathFor(core, id),
      summary: freedSummary(out.bytes, out.freed, n),
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
    const pins = this.pins();
    const out = new Map<string, DeviceState>();
    for (const id of ids) {
      const st = deviceStateOf(model, pins, id);
      if (st !== undefined) out.set(id, st);
    }
    return out;
  }

  /** The same states as one snapshot for the search's `on:` operator: built again once the model or the pins changed. */
  deviceView(): DeviceView {
    const { model } = this.p.core;
    const pins = this.pins();
    const v = this.view;
    if (v && v.model === model && v.version === model.version && v.pins === pins) return v.view;
    const view = deviceView(model, pins, `engine:${++this.views}`);
    this.view = { model, version: model.version, pins, view };
    return view;
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

  /**
   * The files `pins` cover that need a download, read in turns of the lock of WANTED_STEP
   * entries each (one read transaction a turn), the event loop turning between them.
   */
  private async wanted(pins: ReadonlySet<string>): Promise<string[]> {
    if (pins.size === 0) return [];
    const { core } = this.p;
    const walk = new WantedWalk(pins);
    for (;;) {
      const done = await this.p.lock.run(() => core.db.transaction(() => walk.step(core.model, (x) => core.store.get(x), WANTED_STEP))());
      if (done || this.p.stopped()) return walk.wanted;
      await new Promise((r) => setImmediate(r));
    }
  }

  private pins(): ReadonlySet<string> {
    return (this.pinned ??= this.p.core.local.pins());
  }

  /** One pass: the files to download, read under the lock, then fetched a few at a time. */
  private async once(): Promise<void> {
    const { core } = this.p;
    const todo = await this.wanted(this.pins());
    if (!todo.length) return;
    const { done, failed } = await this.fetchAll(todo);
    if (this.p.stopped()) return;
    if (done > 0) {
      const reason = 'pinned files and folders are downloaded and kept current at every walk';
      core.activity({ kind: 'kept', path: '', summary: `kept on this device: downloaded ${plural(done, 'file', 'files')}`, reason });
    }
    const said = failed.length ? `${failed.length}:${failed.slice(0, 3).join(';')}` : '';
    if (failed.length && said !== this.lastFailed) {
      const reason = `${failed.slice(0, 3).join('; ')}${failed.length > 3 ? '; ...' : ''} (tried again at the next walk)`;
      core.activity({
        kind: 'error',
        path: '',
        summary: `keep on this device: ${plural(failed.length, 'download', 'downloads')} failed`,
        reason,
      });
    }
    this.lastFailed = said;
    this.p.changed();
  }

  /**
   * Downloads `todo`, `KEEP_CONCURRENCY` requests at a time: a worker sends its next request
   * once the last one's answer is in (`fetched`), while that file is fsync'd and put in place
   * (at most `KEEP_UNSETTLED` files between their answer and their place). Resolves when every
   * one is settled: how many were downloaded, and what failed (for people).
   */
  private async fetchAll(todo: readonly string[]): Promise<{ done: number; failed: string[] }> {
    const { core } = this.p;
    let done = 0;
    const failed: string[] = [];
    const unsettled = new Set<Promise<void>>();
    let next = 0;
    // a NAS without the content interface: said once as a notice by Downloads; the pass stops
    let noInterface = false;
    // (the path is read from the state db now: a db closed under a stopping engine still says which id)
    const whereOf = (id: string): string => {
      try {
        return pathFor(core, id);
      } catch {
        return `(${id})`;
      }
    };
    const settle = (id: string, got: Promise<GetResult>): Promise<void> => {
      const s = got.then(
        (r) => {
          if (r.downloaded) done++;
        },
        (e: unknown) => {
          const err = toAppError(e);
          if (err.code === 'NoContentInterface') noInterface = true;
          else failed.push(`${whereOf(id)}: ${err.message}`);
        },
      );
      unsettled.add(s);
      void s.then(() => unsettled.delete(s));
      return s;
    };
    const worker = async (): Promise<void> => {
      while (next < todo.length && !this.p.stopped() && !noInterface) {
        const id = todo[next++]!;
        // unpinned or freed meanwhile: left as it is
        if (pinOf(core.model, this.pins(), id) === undefined) continue;
        const got = this.p.get(id);
        const settled = settle(id, got);
        await ('fetched' in got ? got.fetched : settled);
        while (unsettled.size >= KEEP_UNSETTLED) await Promise.race(unsettled);
      }
    };
    await Promise.all(Array.from({ length: Math.min(KEEP_CONCURRENCY, todo.length) }, worker));
    await Promise.all(unsettled);
    return { done, failed };
  }
}
