/**
 * The `on:` operator's side of the search filters: where an object's content is (`on:device`,
 * `on:nas`, `on:kept`). Unlike the other operators it is not a fact of the NAS's object: the
 * engine knows it (pins, downloads, the user's edits), so the caller hands the filters a
 * `DeviceView` of its local state, as it resolves `in:` to a folder. Pure.
 */
import type { DeviceState } from '../contract/shapes.js';

export const ON_PLACES = ['device', 'nas', 'kept'] as const;
/** `device`: content here (downloaded, changed here, or kept); `nas`: a placeholder only; `kept`: kept on this device. */
export type OnPlace = (typeof ON_PLACES)[number];

const ON_ALIASES = new Map<string, OnPlace>([
  ['device', 'device'],
  ['here', 'device'],
  ['this-device', 'device'],
  ['nas', 'nas'],
  ['placeholder', 'nas'],
  ['placeholders', 'nas'],
  ['kept', 'kept'],
  ['pinned', 'kept'],
]);

/** The place an `on:` value names (case-insensitive; `here`, `this-device`, `placeholder` and `pinned` too), or undefined. */
export function onPlaceOf(value: string): OnPlace | undefined {
  return ON_ALIASES.get(value.toLowerCase());
}

/** The chip's words for each place. */
export const ON_LABELS: Record<OnPlace, string> = {
  device: 'on: this device',
  nas: 'on: NAS only',
  kept: 'on: kept',
};

/**
 * Whether an object in `state` (as `Engine.deviceStates` says it; undefined when the mirror
 * folder does not hold it) is at `place`: on this device when it is downloaded, changed here or
 * kept (a kept file still downloading included, and a kept folder); on the NAS only when it is a
 * placeholder; kept when it is pinned or below a pinned folder.
 */
export function isOn(place: OnPlace, state: DeviceState | undefined): boolean {
  switch (place) {
    case 'device':
      return state === 'here' || state === 'edited' || state === 'pinned';
    case 'nas':
      return state === 'placeholder';
    case 'kept':
      return state === 'pinned';
  }
}

/**
 * What the `on:` operator reads of this device, a snapshot the engine builds (or the command
 * line from the stored state): the objects whose state is not a bare placeholder nor a plain
 * folder (few: what is on this device, and what is kept), and whether the mirror folder holds an
 * id as a file (a placeholder, when `held` does not list it). Every other id is a folder, or not
 * in the mirror folder: `on:` passes neither.
 */
export interface DeviceView {
  /** Names this snapshot: the same key, the same answers (caches of filtered answers are kept by it). */
  readonly key: string;
  /** Every object downloaded, changed here or kept, with its state. */
  readonly held: ReadonlyMap<string, 'here' | 'edited' | 'pinned'>;
  /** True when the mirror folder holds `id` as a file. */
  isFile(id: string): boolean;
}

/** The state of `id` as the view knows it, for the `on:` operator (a plain folder and an unknown id alike: undefined). */
export function stateIn(view: DeviceView, id: string): DeviceState | undefined {
  return view.held.get(id) ?? (view.isFile(id) ? 'placeholder' : undefined);
}
