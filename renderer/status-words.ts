/**
 * The header's state line in plain words: what is going on, what waits, and what the user
 * can do (the `fix` is the view that can put it right). The engine's raw error goes in the
 * details (the line's tooltip), never in the line itself. Pure (no DOM).
 */
import type { AppStatus } from '../app/contract/shapes.js';
import { bytesGoing, notAnswering, toResolve, toSend, toSendCount, trayView } from '../app/tray/tray-state.js';
import { walkDetails, walkLine } from '../app/tray/walk-words.js';
import { ago, plural } from './format.js';

export interface StatusWords {
  line: string;
  /** A view that can fix the problem, or null. */
  fix: 'settings' | 'conflicts' | null;
  details: string;
}

const host = (endpoint: string | null): string => {
  if (!endpoint) return 'the NAS';
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
};

/**
 * Whether the header speaks of a running walk (its line, its progress bar): not while it waits on
 * a NAS that cannot be reached or does not answer ("Reading the NAS: starting…" beside
 * "Offline"): the link's words win.
 */
export const walkShown = (s: AppStatus): boolean => s.walk.running && !(s.connection === 'offline' && s.error !== null);

export function statusWords(s: AppStatus, now = Date.now()): StatusWords {
  const details = [
    s.walk.running && s.walk.objects > 0 ? `This walk so far: ${walkDetails(s.walk)}` : '',
    `${plural(s.indexed, 'item', 'items')} in the mirror`,
    s.endpoint ? `NAS: ${s.endpoint}` : '',
    s.mirrorFolder ? `Mirror folder: ${s.mirrorFolder}` : '',
    s.error ? `Details: ${s.error.code}: ${s.error.message}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  const waiting = toSendCount(s) > 0 ? ` ${sendingWords(s, 'wait')} here and will be sent when it is back.` : ' Search still works.';
  const last = s.lastCompleteWalk ? `checked ${ago(s.lastCompleteWalk, now)}` : 'not checked yet';
  const say = (line: string, fix: StatusWords['fix'] = null): StatusWords => ({
    line,
    fix,
    details: details ? `${line}\n${details}` : line,
  });
  if (s.connection === 'auth-error')
    return say('The NAS no longer accepts the sign-in: choose Sign in in Settings (or paste a new access token there).', 'settings');
  if (s.connection === 'unconfigured') {
    const m = s.error?.message ?? '';
    if (/^not set up yet/.test(m)) return say('Not set up yet: connect your NAS or try the demo.', 'settings');
    if (s.error?.code === 'Unauthorized') {
      const why = /no keychain/.test(m) ? ' This desktop has no keychain, so a sign-in lasts until the app quits.' : '';
      return say(`Not signed in to this NAS yet: choose Sign in in Settings (or paste an access token there).${why}`, 'settings');
    }
    return say(m ? `${m[0]!.toUpperCase()}${m.slice(1)}` : 'Not set up yet.', 'settings');
  }
  if (s.mirrorMissing)
    return say(
      'The mirror folder is missing: sync is paused and nothing is deleted. Put the folder back, or choose another in Settings.',
      'settings',
    );
  if (walkShown(s)) return say(walkLine(s));
  if (s.paused) return say(`Paused: nothing is sent to the NAS until you resume · ${last}`);
  if (s.connection === 'offline') {
    if (s.error === null && s.lastCompleteWalk === null) return say('Connecting to the NAS…');
    // the app's own pauses, not the NAS's (main/host/engine-client.ts, main/api/core.ts)
    if (s.error?.code === 'EngineRestarting') return say(`The sync engine stopped and is starting again: nothing is lost.${waiting}`);
    if (s.error?.code === 'MirrorSwitching') return say('Starting a new mirror…');
    // the link is up but the NAS accepts and says nothing (hung, stopped): not "can't reach", and the retries are said
    if (notAnswering(s)) return say(`${s.endpoint ? host(s.endpoint) : 'The NAS'} is not answering: retrying.${waiting}`);
    return say(`Can't reach ${host(s.endpoint)} right now.${waiting}`);
  }
  const v = trayView(s, now);
  if (s.error?.code === 'NasLooksEmpty' && s.heldDeletes > 0)
    return say('Your NAS now looks empty: nothing was removed here. Choose in Conflicts whether to keep your placeholders.', 'conflicts');
  if (toResolve(s) > 0) return say(waitsForYou(s), 'conflicts');
  if (toSendCount(s) > 0) {
    const bytes = bytesGoing(s);
    return say(`${sendingWords(s, 'go')} to the NAS…${bytes ? ` ${bytes}` : ''}`);
  }
  // never "up to date" before the folder was compared with what the app knows (a change made while it was stopped)
  if (s.checking === true) return say('Checking the mirror folder for changes made while the app was stopped…');
  if (v.state === 'stale') return say(`Not checked recently · ${last}`);
  if (s.indexing === true)
    return say(
      `Up to date · search is catching up with the newest items…${s.indexingPercent === undefined ? '' : ` ${s.indexingPercent} %`} · ${last}`,
    );
  return say(`Up to date · ${last}`);
}

/** What waits for the user in Conflicts: "2 conflicts and 1 held delete wait for you; 60 new items wait for your OK to upload". */
function waitsForYou(s: AppStatus): string {
  const parts = [
    s.conflicts > 0 ? plural(s.conflicts, 'conflict', 'conflicts') : '',
    s.heldDeletes > 0 ? plural(s.heldDeletes, 'held delete', 'held deletes') : '',
  ].filter(Boolean);
  const held = parts.length > 0 ? `${parts.join(' and ')} ${s.conflicts + s.heldDeletes === 1 ? 'waits' : 'wait'} for you` : '';
  const uploads = s.uploads.held > 0 ? `${plural(s.uploads.held, 'new item waits', 'new items wait')} for your OK to upload` : '';
  return [held, uploads].filter(Boolean).join('; ');
}

/**
 * What is still to go to the NAS: new folders and files to create there, and the other
 * changes. `go`: "Sending 2 changes and uploading 3 new items" (while they go); `wait`: "2
 * changes and 3 new items wait" (offline).
 */
function sendingWords(s: AppStatus, mode: 'go' | 'wait'): string {
  const { changes, uploads } = toSend(s);
  const c = changes > 0 ? plural(changes, 'change', 'changes') : '';
  const u = uploads > 0 ? plural(uploads, 'new item', 'new items') : '';
  if (mode === 'wait') return `${[c, u].filter(Boolean).join(' and ')} ${changes + uploads === 1 ? 'waits' : 'wait'}`;
  return [c ? `Sending ${c}` : '', u ? `${c ? 'uploading' : 'Uploading'} ${u}` : ''].filter(Boolean).join(' and ');
}
