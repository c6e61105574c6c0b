/**
 * "Keep on this device", the pure part: which entries a set of pins covers, and which of them
 * need the NAS's content. A pin is an object id; a folder's pin covers everything the model
 * holds below it (by the local parent chain), so a rename or a move keeps it and a file
 * added below it later is covered too. What each entry is on this device (`deviceStateOf`), and
 * the same for the search's `on:` operator as one snapshot (`deviceView`). Reads the model only;
 * no disk, no network.
 */
import type { DeviceState } from '../../app/contract/shapes.js';
import type { DeviceView } from '../../app/filters/on-device.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { HeldContent, LocalEntry, LocalModel } from './model.js';

/** The pin that covers `id` (itself or its nearest pinned folder), or undefined. */
export function pinOf(model: LocalModel, pins: ReadonlySet<string>, id: string): string | undefined {
  if (pins.size === 0) return undefined;
  let cur: string | undefined = id;
  for (let guard = 0; cur !== undefined && cur !== '' && guard < 10_000; guard++) {
    if (pins.has(cur)) return cur;
    cur = model.get(cur)?.lparent;
  }
  return undefined;
}

/** The NAS version `c` is the store's current one (an eTag change alone is a rename or a move). */
export function sameVersion(c: HeldContent, o: RemoteObject): boolean {
  return o.eTag === c.etag || ((o.size ?? 0) === c.size && o.mTime === c.nasMtime);
}

/**
 * Whether a pinned file needs a download: a placeholder of a non-empty NAS file, or a download
 * of an older NAS version. The user's own content (`filled`) never does.
 */
export function needsContent(e: LocalEntry, o: RemoteObject | undefined): boolean {
  if (e.kind !== 'file' || e.state !== 'ok' || e.ino === null || e.filled || !o) return false;
  if ((o.size ?? 0) === 0) return false; // an empty NAS file: its placeholder is the whole of it
  return e.content === undefined || !sameVersion(e.content, o);
}

/** The files `pins` cover that need a download, each once, pins in the order given. */
export function wantedFiles(model: LocalModel, pins: ReadonlySet<string>, object: (id: string) => RemoteObject | undefined): string[] {
  const walk = new WantedWalk(pins);
  while (!walk.step(model, object, Infinity));
  return walk.wanted;
}

/**
 * `wantedFiles` in steps of a bounded number of entries: a kept folder of 100,000 files is
 * read in turns of the engine's lock, the event loop turning between them (in one go, each
 * pass of the keeper held the engine's thread for seconds; the window's search waited). An
 * entry moved between two steps is seen at most once, or at the next pass.
 */
export class WantedWalk {
  readonly wanted: string[] = [];
  private readonly seen = new Set<string>();
  private readonly todo: string[];

  constructor(pins: ReadonlySet<string>) {
    // (a stack: the first pin's tree first)
    this.todo = [...pins].reverse();
  }

  /** Reads at most `entries` entries (their children listed, their stored objects read); true once all are read. */
  step(model: LocalModel, object: (id: string) => RemoteObject | undefined, entries: number): boolean {
    for (let n = 0; n < entries && this.todo.length; n++) {
      const id = this.todo.pop()!;
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      const e = model.get(id);
      if (!e) continue;
      if (e.kind === 'dir') {
        const kids = model.children(id);
        for (let i = kids.length - 1; i >= 0; i--) this.todo.push(kids[i]!);
      } else if (needsContent(e, object(id))) this.wanted.push(id);
    }
    return this.todo.length === 0;
  }
}

/** The entry and everything below it (a file: itself). */
export function subtreeOf(model: LocalModel, id: string): string[] {
  return model.get(id)?.kind === 'dir' ? [id, ...model.descendants(id)] : [id];
}

/** What `id` is on this device: kept (its pin or a folder's above it), a folder, the user's content, downloaded, or a placeholder. */
export function deviceStateOf(model: LocalModel, pins: ReadonlySet<string>, id: string): DeviceState | undefined {
  const e = model.get(id);
  if (!e) return undefined;
  if (pinOf(model, pins, id) !== undefined) return 'pinned';
  if (e.kind === 'dir') return 'folder';
  return e.filled ? 'edited' : e.content ? 'here' : 'placeholder';
}

/**
 * The search's view of this device (app/filters/on-device.ts) as `deviceStateOf` says it, in
 * one pass over what is held here (downloaded files, the user's content, what the pins cover),
 * never over the whole model: every other file is a placeholder. `key` names this snapshot;
 * `isFile` reads the model as it is, so the view holds while the model's `version` does not move.
 */
export function deviceView(model: LocalModel, pins: ReadonlySet<string>, key: string): DeviceView {
  const held = new Map<string, 'here' | 'edited' | 'pinned'>();
  const isFile = (id: string): boolean => model.get(id)?.kind === 'file';
  for (const id of model.withContent) if (isFile(id)) held.set(id, 'here');
  for (const id of model.withFilled) if (isFile(id)) held.set(id, 'edited');
  for (const p of pins) {
    // pinOf walks up from an entry to a pin: the same entries as walking down from each pin
    if (model.get(p)) held.set(p, 'pinned');
    for (const id of model.descendants(p)) held.set(id, 'pinned');
  }
  return { key, held, isFile };
}
