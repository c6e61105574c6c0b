/**
 * The search filters (app/filters) compiled to one predicate over the columns of the object
 * facts (object-facts.ts): a slot passes exactly when `passes(fact, filters, ...)` would say
 * so, but each test is a typed-array read (extension and camera tests are decided once per
 * table entry, `in:` once per parent folder, `on:` one table read: what is on this device is
 * few objects, marked per slot once per device snapshot). Built per query; cheap enough to call
 * for every candidate the text search meets.
 */
import { KINDS } from '../../app/filters/facts.js';
import type { Filter } from '../../app/filters/filters.js';
import type { DeviceView, OnPlace } from '../../app/filters/on-device.js';
import { FOLDER_CODE, type FactColumns, type ObjectFacts } from './object-facts.js';

export type SlotTest = (slot: number) => boolean;

/**
 * The predicate of `filters` over `facts` as they are now (valid until their next change);
 * `inFolders` holds the folder id each `in:` filter resolved to, in order; `device` is what
 * `on:` reads (required when the filters hold one).
 */
export function slotTest(facts: ObjectFacts, filters: readonly Filter[], inFolders: readonly string[], device?: DeviceView): SlotTest {
  const c = facts.columns();
  const tests: SlotTest[] = [];
  let k = 0;
  for (const x of filters) {
    switch (x.op) {
      case 'ext': {
        const ok = Uint8Array.from(c.exts, (e) => (x.exts.includes(e) ? 1 : 0));
        const col = c.ext;
        tests.push((s) => ok[col[s]!] === 1);
        break;
      }
      case 'kind': {
        const ok = Uint8Array.from(KINDS, (kd) => (x.kinds.includes(kd) ? 1 : 0));
        const col = c.kind;
        tests.push((s) => ok[col[s]!] === 1);
        break;
      }
      case 'size': {
        const { min, max } = x;
        const kind = c.kind,
          size = c.size;
        tests.push((s) => kind[s] !== FOLDER_CODE && size[s]! >= min && size[s]! <= max);
        break;
      }
      case 'date': {
        const { from, to } = x;
        const day = c.day;
        tests.push((s) => {
          const d = day[s]!;
          return d !== 0 && d >= from && d <= to;
        });
        break;
      }
      case 'camera': {
        const ok = Uint8Array.from(c.cameras, (cam) => (cam !== '' && cam.includes(x.text) ? 1 : 0));
        const col = c.camera;
        tests.push((s) => ok[col[s]!] === 1);
        break;
      }
      case 'in': {
        const folder = facts.slotOfId(inFolders[k++]!);
        if (folder === undefined) return () => false;
        if (folder === c.rootSlot) break; // the root holds every object
        // the answer of each parent folder, found once
        const known = new Map<number, boolean>();
        const parent = c.parent;
        tests.push((s) => {
          const p = parent[s]!;
          let v = known.get(p);
          if (v === undefined) known.set(p, (v = p === folder || (p >= 0 && facts.slotUnder(s, folder))));
          return v;
        });
        break;
      }
      case 'on':
        tests.push(onTest(facts, c, device, x.place));
        break;
    }
  }
  const present = c.present;
  // one, two or three tests (almost every query) without a loop over them
  const [t0, t1, t2] = tests;
  if (tests.length === 0) return (s) => present[s] === 1;
  if (tests.length === 1) return (s) => present[s] === 1 && t0!(s);
  if (tests.length === 2) return (s) => present[s] === 1 && t0!(s) && t1!(s);
  if (tests.length === 3) return (s) => present[s] === 1 && t0!(s) && t1!(s) && t2!(s);
  return (s) => {
    if (present[s] !== 1) return false;
    for (const t of tests) if (!t(s)) return false;
    return true;
  };
}

/**
 * The same filters as a mask over every slot (1: passes), computed a column at a time in
 * tight loops over the typed arrays (a few ms at 1M objects): for passes that look at
 * every object anyway (operators only). Valid until the facts' next change.
 */
export function slotMask(facts: ObjectFacts, filters: readonly Filter[], inFolders: readonly string[], device?: DeviceView): Uint8Array {
  const steps = slotMaskSteps(facts, filters, inFolders, Infinity, device);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/** slotMask in steps: yields after each `chunk` slots of a column's loop (built ahead without holding the loop). */
export function* slotMaskSteps(
  facts: ObjectFacts,
  filters: readonly Filter[],
  inFolders: readonly string[],
  chunk: number,
  device?: DeviceView,
): Generator<void, Uint8Array> {
  const c = facts.columns();
  const n = c.slots;
  const mask: MaskRun = { m: c.present.slice(0, n), n, chunk };
  let k = 0;
  for (const x of filters) {
    switch (x.op) {
      case 'ext':
        yield* narrowBy(
          mask,
          byTable(
            Uint8Array.from(c.exts, (e) => (x.exts.includes(e) ? 1 : 0)),
            c.ext,
          ),
        );
        break;
      case 'kind':
        yield* narrowBy(
          mask,
          byTable(
            Uint8Array.from(KINDS, (kd) => (x.kinds.includes(kd) ? 1 : 0)),
            c.kind,
          ),
        );
        break;
      case 'camera':
        yield* narrowBy(
          mask,
          byTable(
            Uint8Array.from(c.cameras, (cam) => (cam !== '' && cam.includes(x.text) ? 1 : 0)),
            c.camera,
          ),
        );
        break;
      case 'size': {
        const { min, max } = x,
          kind = c.kind,
          size = c.size;
        yield* narrowBy(mask, (s) => kind[s] !== FOLDER_CODE && size[s]! >= min && size[s]! <= max);
        break;
      }
      case 'date': {
        const { from, to } = x,
          day = c.day;
        yield* narrowBy(mask, (s) => {
          const d = day[s]!;
          return d !== 0 && d >= from && d <= to;
        });
        break;
      }
      case 'in': {
        const folder = facts.slotOfId(inFolders[k++]!);
        if (folder === undefined) return mask.m.fill(0);
        if (folder === c.rootSlot) break;
        yield* narrowBy(mask, underFolder(facts, c, folder));
        break;
      }
      case 'on':
        yield* narrowBy(mask, onTest(facts, c, device, x.place));
        break;
    }
  }
  return mask.m;
}

/** The mask being narrowed (1: passes), over slots [0, n), and the slots a loop runs before it yields. */
interface MaskRun {
  m: Uint8Array;
  n: number;
  chunk: number;
}

/** Clears m[s] for the slots in [0, n) that `keep` rejects, a chunk at a time. */
function* narrowBy(mask: MaskRun, keep: (s: number) => boolean): Generator<void> {
  const { m, n, chunk } = mask;
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk);
    for (let s = from; s < to; s++) if (m[s] === 1 && !keep(s)) m[s] = 0;
    if (to < n) yield;
  }
}

/** A slot passes when its column's entry passes in `table`. */
const byTable =
  (table: Uint8Array, col: Uint8Array | Uint32Array) =>
  (s: number): boolean =>
    table[col[s]!] === 1;

/** The `in:` test: the slot's parent is `folder` or under it (found once per parent). */
function underFolder(facts: ObjectFacts, c: FactColumns, folder: number): (s: number) => boolean {
  // per parent slot: 0 not known yet, 1 under the folder (or it), 2 not
  const known = new Uint8Array(c.slots);
  const parent = c.parent;
  return (s) => {
    const p = parent[s]!;
    if (p < 0) return false;
    if (known[p] === 0) known[p] = p === folder || facts.slotUnder(s, folder) ? 1 : 2;
    return known[p] === 1;
  };
}

/** Per slot, what `on:` reads of the device view's `held`: 0 none, else HELD_CODE. */
const HELD_CODE = { here: 1, edited: 2, pinned: 3 } as const;
const heldTables = new WeakMap<DeviceView, { facts: ObjectFacts; version: number; slots: number; table: Uint8Array }>();

/** The view's held objects marked by slot: one pass over the few held, kept per view and facts version. */
function heldBySlot(facts: ObjectFacts, c: FactColumns, device: DeviceView): Uint8Array {
  const have = heldTables.get(device);
  if (have && have.facts === facts && have.version === facts.version && have.slots === c.slots) return have.table;
  const table = new Uint8Array(c.slots);
  for (const [id, state] of device.held) {
    const s = facts.slotOfId(id);
    if (s !== undefined && s < c.slots) table[s] = HELD_CODE[state];
  }
  heldTables.set(device, { facts, version: facts.version, slots: c.slots, table });
  return table;
}

/**
 * The `on:` test (on-device.ts `isOn` over `stateIn`): on this device, any held object; kept,
 * a pinned one; on the NAS only, a file the mirror folder holds that is not held (a placeholder).
 */
function onTest(facts: ObjectFacts, c: FactColumns, device: DeviceView | undefined, place: OnPlace): (s: number) => boolean {
  if (!device) throw new Error('on: needs the device view');
  const held = heldBySlot(facts, c, device);
  const ids = c.ids;
  switch (place) {
    case 'device':
      return (s) => held[s]! > 0;
    case 'kept':
      return (s) => held[s] === HELD_CODE.pinned;
    case 'nas':
      return (s) => held[s] === 0 && device.isFile(ids[s]!);
  }
}
