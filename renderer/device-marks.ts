/**
 * What each row is on this device (placeholder, on this device, kept, changed here), shown as
 * a small mark, and the "Keep on this device" / "Free up space" actions. Views put a mark
 * element per row (`deviceMark`), then `fillMarks` asks the engine for the states of the ids
 * shown (1,000 at a time) and words them; rows whose id the engine does not know stay blank.
 */
import type { ContractClient } from '../app/contract/methods.js';
import type { DeviceState } from '../app/contract/shapes.js';
import { el, perFrame, replace } from './dom.js';
import { formatSize, plural, realPlurals } from './format.js';

const WORDS: Record<DeviceState, { short: string; long: string } | undefined> = {
  placeholder: { short: 'On the NAS', long: 'A placeholder: the content is on the NAS (Open or Keep downloads it)' },
  here: { short: 'On this device', long: 'Downloaded: on this device (Free up space makes it a placeholder again)' },
  edited: { short: 'Changed here', long: 'Changed on this device: your own content, kept here (local only)' },
  pinned: { short: 'Kept here', long: 'Kept on this device: downloaded and kept current as the NAS changes' },
  folder: undefined,
};

/** Marks worded per frame (perFrame): a few ms of layout a frame in a 500-row listing, with the Keep buttons beside them. */
export const MARKS_PER_FRAME = 50;

/** A row's mark, empty until `fillMarks` words it. */
export function deviceMark(id: string): HTMLElement {
  return el('span', { class: 'device-mark', 'data-device-for': id });
}

/** Words the marks under `root` from the engine's states; the states by id (empty without an engine). */
export async function fillMarks(client: ContractClient, root: ParentNode, ids: readonly string[]): Promise<Map<string, DeviceState>> {
  const out = new Map<string, DeviceState>();
  for (let i = 0; i < ids.length; i += 1000) {
    const { states } = await client.call('deviceStates', { ids: ids.slice(i, i + 1000) });
    for (const s of states) out.set(s.id, s.state);
  }
  // a mark as it was is left alone: rewriting 500 of them five times a second while files
  // download laid the whole listing out again each time (~50 ms of the window's thread); the
  // ones that changed go MARKS_PER_FRAME a frame (a Keep turns every row of the folder at once)
  const changed = [...root.querySelectorAll<HTMLElement>('.device-mark')].filter(
    (m) => m.dataset['filled'] !== '1' || m.dataset['state'] !== (out.get(m.dataset['deviceFor'] ?? '') ?? ''),
  );
  await perFrame(changed, MARKS_PER_FRAME, (m) => {
    const st = out.get(m.dataset['deviceFor'] ?? '');
    m.dataset['filled'] = '1';
    const w = st && WORDS[st];
    m.dataset['state'] = st ?? '';
    m.title = w?.long ?? '';
    replace(m, w ? el('span', { class: `device device-${st}` }, w.short) : '');
  });
  return out;
}

/** Keep, unpin or free one file or folder; a toast says what happened. */
export async function keepAction(
  client: ContractClient,
  what: 'pin' | 'unpin' | 'free',
  id: string,
  name: string,
  toast: (m: string, level?: 'info' | 'error') => void,
): Promise<void> {
  try {
    if (what === 'pin') {
      const { files } = await client.call('pin', { id });
      toast(
        files > 0
          ? `Keeping “${name}” on this device: downloading ${plural(files, 'file', 'files')}.`
          : `“${name}” is kept on this device.`,
      );
    } else if (what === 'unpin') {
      await client.call('unpin', { id });
      toast(`“${name}” is no longer kept current here; what is downloaded stays until you free it.`);
    } else {
      const r = await client.call('free', { id });
      const one = r.kept.length === 1;
      const names = r.kept
        .slice(0, 3)
        .map((k) => k.path)
        .join(', ');
      const stay = one ? 'stays as it is' : 'stay as they are';
      const kept = r.kept.length ? ` ${plural(r.kept.length, 'file', 'files')} you changed ${stay}: ${names}.` : '';
      toast(
        `Freed ${formatSize(r.bytes)}: ${r.freed === 1 ? '1 file is a placeholder' : `${plural(r.freed, 'file', 'files')} are placeholders`} again.${kept}`,
      );
    }
  } catch (e) {
    toast(realPlurals(e instanceof Error ? e.message : String(e)), 'error');
  }
}
