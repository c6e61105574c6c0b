/**
 * Lets the text engine apply the search filters while it finds a page (engine.ts
 * `Narrowing`): the engine's numbered objects are mapped once to their slots in the object
 * facts (an Int32Array by number, kept per engine base and facts). It stays valid as the
 * facts change and reuse freed slots: a present object's slot never changes meaning, and a
 * removed object's number is dead in the engine, which every caller checks first (while the
 * engine lags the store, open-index.ts, a number may meet another object's facts: those
 * answers may be older anyway, and an object no longer stored is never shown). Each
 * candidate is then one array read plus the compiled filter test (fact-filter.ts).
 * `numbersReady` builds that map in chunks that yield to the event loop; without it the
 * first filtered query builds it in one go.
 */
import type { Narrowing, Numbering } from './engine.js';
import type { SlotTest } from './fact-filter.js';
import type { ObjectFacts } from './object-facts.js';

const maps = new WeakMap<object, { facts: ObjectFacts; slots: Int32Array; done: number }>();

/** Lets other work run between chunks (I/O, timers, requests), not just other microtasks. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function entry(num: Numbering, facts: ObjectFacts): { facts: ObjectFacts; slots: Int32Array; done: number } {
  let e = maps.get(num.key);
  if (!e || e.facts !== facts) maps.set(num.key, (e = { facts, slots: new Int32Array(num.n), done: 0 }));
  return e;
}

/** Maps numbers [e.done, to) to slots (-1 when the facts have no slot for the id yet). */
function fill(num: Numbering, e: { facts: ObjectFacts; slots: Int32Array; done: number }, to: number): void {
  for (let o = e.done; o < to; o++) e.slots[o] = e.facts.slotOfId(num.idAt(o)) ?? -1;
  e.done = Math.max(e.done, to);
}

/** Builds the number -> slot map for `facts` in chunks of `chunk` numbers, yielding between them. */
export async function numbersReady(num: Numbering | undefined, facts: ObjectFacts, chunk = 5_000): Promise<void> {
  if (!num) return;
  for (let e = entry(num, facts); e.done < num.n; e = entry(num, facts)) {
    fill(num, e, Math.min(num.n, e.done + chunk));
    if (e.done < num.n) await nextTurn();
  }
}

/** Numbers per chunk of a kept list built ahead (`numbersReady`). */
const KEPT_CHUNK = 50_000;

/** The kept numbers of the last few filters, per engine base and facts version. */
const kept = new WeakMap<object, { facts: ObjectFacts; version: number; byKey: Map<string, Int32Array> }>();

/**
 * The narrowing of `test` for an engine with `num` (ids only when the engine has no
 * numbers). `key` names the filters (the same key, the same test) for the cached list of
 * kept numbers; `mask` (slotMaskSteps of the same filters), when given, makes that list
 * one array read per number.
 */
export function narrowing(
  num: Numbering | undefined,
  facts: ObjectFacts,
  test: SlotTest,
  key: string,
  mask?: (chunk: number) => Generator<void, Uint8Array>,
): Narrowing {
  const id = (x: string): boolean => {
    const s = facts.slotOfId(x);
    return s !== undefined && test(s);
  };
  if (!num) return { number: () => false, id };
  const e = entry(num, facts);
  if (e.done < num.n) fill(num, e, num.n);
  const slots = e.slots;
  const cache = (): Map<string, Int32Array> => {
    let c = kept.get(num.key);
    if (!c || c.facts !== facts || c.version !== facts.version)
      kept.set(num.key, (c = { facts, version: facts.version, byKey: new Map() }));
    return c.byKey;
  };
  /** The kept numbers, a pass over every number; yields after each `chunk` of them (and of the mask's passes). */
  function* building(chunk: number): Generator<void, Int32Array> {
    const out: number[] = [];
    const m = mask ? yield* mask(chunk) : undefined;
    for (let o = 0; o < num!.n; o++) {
      const s = slots[o]!;
      if (m && s >= 0 && s < m.length ? m[s] === 1 : keep(o)) out.push(o);
      if ((o + 1) % chunk === 0) yield;
    }
    return Int32Array.from(out);
  }
  const store = (list: Int32Array): Int32Array => {
    const byKey = cache();
    if (byKey.size >= 8) byKey.clear();
    byKey.set(key, list);
    return list;
  };
  const numbers = (): Int32Array => {
    const have = cache().get(key);
    if (have) return have;
    const steps = building(Infinity);
    for (let r = steps.next(); ; r = steps.next()) if (r.done) return store(r.value);
  };
  const numbersReady = async (): Promise<void> => {
    if (cache().get(key)) return;
    const version = facts.version;
    const steps = building(KEPT_CHUNK);
    for (let r = steps.next(); ; r = steps.next()) {
      if (r.done) {
        store(r.value);
        return;
      }
      await nextTurn();
      if (facts.version !== version) return; // the facts changed meanwhile: the query builds its own
    }
  };
  const keep = (o: number): boolean => {
    let s = slots[o]!;
    if (s < 0) {
      // an id the facts had no slot for when mapped (added since): its slot, once it has one
      const found = facts.slotOfId(num.idAt(o));
      if (found === undefined) return false;
      slots[o] = s = found;
    }
    return test(s);
  };
  return { id, number: keep, numbers, numbersReady, numbersIfBuilt: () => cache().get(key) };
}
