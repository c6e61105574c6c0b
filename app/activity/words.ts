/**
 * Activity in plain words: each engine decision (kind, path, summary, reason: the engine's
 * own language, kept for the details) becomes one line a person reads ("Renamed 'a' to 'b'
 * on the NAS"). A change and its "sent" entry are one action: the change's line says it is
 * done on the NAS, and the "sent" entry is folded into it. Runs of routine entries (files
 * saved in place, placeholders placed) become one line. Pure (no DOM).
 */
import type { ActivityKind } from '../model/activity-kinds.js';
import type { ActivityEntry } from '../contract/shapes.js';
import { formatCount, formatSize, plural, realPlurals } from '../util/human.js';

export type ActivityGroup = 'mine' | 'nas' | 'needs-you' | 'problem' | 'app';

export interface ActivityLine {
  /** The entry the line stands for (the newest of a run). */
  entry: ActivityEntry;
  text: string;
  group: ActivityGroup;
  /** For a change: 'done' once the NAS took it, 'waiting' before. */
  state: 'done' | 'waiting' | null;
  /** The engine's own entries behind the line, for the details. */
  raw: ActivityEntry[];
}

const base = (p: string): string => {
  const t = p.replace(/\/+$/, '');
  return t.slice(t.lastIndexOf('/') + 1) || t;
};
const dir = (p: string): string => {
  const t = p.replace(/\/+$/, '');
  const i = t.lastIndexOf('/');
  return i <= 0 ? '/' : t.slice(0, i);
};
const q = (s: string): string => `“${s}”`;
/** The count a record's words hold ("held 1,200 deletes": 1200), written with or without thousands separators. */
const countIn = (re: RegExp, s: string, none: number): number => {
  const m = re.exec(s)?.[1];
  return m === undefined ? none : Number(m.replace(/,/g, ''));
};
/**
 * The outbox entry a summary names: its LAST "#N" ("undo of renamed: a -> b (queued #5) (queued
 * #13)" is #13, the undo's own; a name may hold "#2" too), the last of a run "(#8..#10)".
 */
const seqOf = (summary: string): string | null => [...summary.matchAll(/#(\d+)/g)].at(-1)?.[1] ?? null;

/** One entry in plain words, alone (the command line's log lines; the window folds runs of them). */
export const activityText = (e: Pick<ActivityEntry, 'kind' | 'path' | 'summary'>): string => words(e).text;

function words(e: Pick<ActivityEntry, 'kind' | 'path' | 'summary'>): { text: string; group: ActivityGroup } {
  const s = e.summary;
  const name = e.path ? base(e.path) : '';
  return (
    changeWords(e, s, name) ?? decisionWords(e, s, name) ?? nasAndAppWords(e, s, name) ?? { text: capital(realPlurals(s)), group: 'app' }
  );
}

/** The user's own changes, as the engine queued and sent them, and what waits for the user. */
function changeWords(
  e: Pick<ActivityEntry, 'kind' | 'path' | 'summary'>,
  s: string,
  name: string,
): { text: string; group: ActivityGroup } | undefined {
  switch (e.kind) {
    case 'renamed': {
      const m = /^renamed: (.*) -> (.*?)(?: \(queued #\d+\))?$/.exec(s);
      return { text: m ? `Renamed ${q(base(m[1]!))} to ${q(base(m[2]!))}` : `Renamed ${q(name)}`, group: 'mine' };
    }
    case 'moved': {
      const m = /^moved: (.*) -> (.*?)(?: \(queued #\d+\))?$/.exec(s);
      return { text: m ? `Moved ${q(base(m[2]!))} to ${dir(m[2]!)}` : `Moved ${q(name)}`, group: 'mine' };
    }
    case 'deleted': {
      const n = countIn(/\(([\d,]+) object/, s, 1);
      return { text: `Deleted ${q(name)}${n > 1 ? ` (${plural(n, 'item', 'items')})` : ''}`, group: 'mine' };
    }
    case 'undo': {
      // an Organize batch's undo is one entry with no path: its words come from the batch
      const m = /^undo of organized (\d+) objects?: (.*?): (\d+) inverse patch/.exec(s);
      if (m)
        return {
          text:
            `Undid the Organize batch of ${plural(Number(m[1]), 'item', 'items')} (${m[2]}): ` +
            `${plural(Number(m[3]), 'change goes', 'changes go')} back on the NAS`,
          group: 'mine',
        };
      return { text: `Undid a change to ${q(name)}`, group: 'mine' };
    }
    case 'organized': {
      const m = /^organized (\d+) objects?: (.*?) \(queued/.exec(s);
      return { text: m ? `Organized ${plural(Number(m[1]), 'item', 'items')}: ${m[2]}` : s, group: 'mine' };
    }
    case 'sent': {
      // the one "sent" of an Organize batch's undo (its changes have none each)
      const u = /^NAS undo #\d+\.\.#\d+: (\d+) of (\d+) applied/.exec(s);
      if (u) return { text: `Undo of an Organize batch: ${undoSent(Number(u[1]), Number(u[2]))}`, group: 'mine' };
      return { text: `Done on the NAS: ${q(name)}`, group: 'mine' };
    }
    case 'conflict':
      if (/^both kept: /.test(s)) {
        const copy = /"(.*)"/.exec(s)?.[1] ?? 'a conflicted copy';
        return {
          text: `The NAS changed ${q(name)} too: both versions are kept (yours as ${q(copy)}); choose in Conflicts`,
          group: 'needs-you',
        };
      }
      return /^moved back to/.test(s)
        ? { text: `Moved ${q(name)} back: the folder it went to exists only on this computer`, group: 'needs-you' }
        : { text: `The NAS changed ${q(name)} too: your change waits in Conflicts`, group: 'needs-you' };
    case 'held': {
      const n = countIn(/held ([\d,]+)/, s, 0);
      if (/before uploading/.test(s))
        return {
          text: `${plural(n, 'new item waits', 'new items wait')} for your OK before uploading (many at once): decide in Conflicts`,
          group: 'needs-you',
        };
      if (/renamed or deleted\?/.test(s))
        return {
          text:
            `${plural(n, 'item is', 'items are')} gone from the mirror folder and a new one appeared: ` +
            'renamed or deleted? Choose in Conflicts',
          group: 'needs-you',
        };
      return {
        text: `${plural(n, 'delete waits', 'deletes wait')} for your confirmation in Conflicts (more than your limit at once)`,
        group: 'needs-you',
      };
    }
    default:
      return undefined;
  }
}

/** What the user decided, and what happened to content on this computer. */
function decisionWords(
  e: Pick<ActivityEntry, 'kind' | 'path' | 'summary'>,
  s: string,
  name: string,
): { text: string; group: ActivityGroup } | undefined {
  switch (e.kind) {
    case 'approved':
      if (/^upload approved/.test(s))
        return { text: capital(realPlurals(s.replace(/^upload approved for/, 'You approved uploading'))), group: 'mine' };
      return { text: `You approved deleting ${q(name)} from the NAS`, group: 'mine' };
    case 'rejected':
      if (/^kept on this computer only/.test(s))
        return { text: `You kept ${realPlurals(s.replace(/^kept on this computer only: /, ''))} on this computer only`, group: 'mine' };
      return { text: `You kept ${q(name)}: the delete was cancelled and the placeholders are back`, group: 'mine' };
    case 'dropped':
      if (/^kept the NAS's version: your copy /.test(s))
        return { text: `You kept the NAS version of ${q(name)}: your conflicted copy is removed`, group: 'mine' };
      return { text: `You kept the NAS version of ${q(name)}`, group: 'mine' };
    case 'reapplied':
      if (/^kept mine: /.test(s))
        return {
          text: `You kept your version of ${q(name)}: it is the NAS version now, and its conflicted copy is removed`,
          group: 'mine',
        };
      return { text: `You kept your version of ${q(name)}: sent to the NAS again`, group: 'mine' };
    case 'kept-both': {
      const copy = /"(.*)"/.exec(s)?.[1];
      return { text: `You kept both versions of ${q(name)}${copy ? `: yours is ${q(copy)}` : ''}`, group: 'mine' };
    }
    case 'replaced':
      return { text: `${q(name)} was saved in place by an app (nothing to change on the NAS)`, group: 'app' };
    case 'local-only':
      return { text: `${q(name)} has content of its own: it stays on this computer only`, group: 'app' };
    case 'emptied':
      return { text: `${q(name)} is an empty placeholder again`, group: 'app' };
    case 'downloaded':
      return { text: `Downloaded ${q(name)}: it is on this computer now`, group: 'app' };
    case 'remote-content':
      return { text: `Changed on the NAS: ${q(name)} is a placeholder of the new version again`, group: 'nas' };
    case 'created':
      return { text: `New folder ${q(name)} created on the NAS`, group: 'mine' };
    case 'uploaded':
      return { text: `New file ${q(name)} uploaded to the NAS`, group: 'mine' };
    case 'pinned':
      return { text: `You asked to keep ${q(name)} on this computer: it downloads and stays current`, group: 'mine' };
    case 'unpinned':
      return { text: `${q(name)} is no longer kept on this computer (what is here stays until you free it)`, group: 'mine' };
    case 'kept':
      return { text: capital(realPlurals(s)), group: 'app' };
    case 'freed':
      return { text: freedWords(s, name), group: 'mine' };
    default:
      return undefined;
  }
}

/** What the NAS changed, and what the app itself did (anything else: its summary, capitalised). */
function nasAndAppWords(
  e: Pick<ActivityEntry, 'kind' | 'path' | 'summary'>,
  s: string,
  name: string,
): { text: string; group: ActivityGroup } | undefined {
  switch (e.kind) {
    case 'remote-added': {
      const n = countIn(/placed ([\d,]+)/, s, 0);
      return { text: `${plural(n, 'new item', 'new items')} from the NAS`, group: 'nas' };
    }
    case 'remote-renamed': {
      const m = /^(.*) -> (.*)$/.exec(s);
      return { text: m ? `Renamed on the NAS: ${q(base(m[1]!))} to ${q(base(m[2]!))}` : `Renamed on the NAS: ${q(name)}`, group: 'nas' };
    }
    case 'remote-moved':
      return { text: `Moved on the NAS: ${q(name)} to ${dir(e.path)}`, group: 'nas' };
    case 'remote-removed':
      return { text: `Deleted on the NAS: ${q(base(s.replace(/^removed placeholder /, '')))}`, group: 'nas' };
    case 'refused':
      return { text: 'Skipped an item from the NAS whose name cannot exist on this computer', group: 'problem' };
    case 'paused':
      return { text: 'Sync paused: the mirror folder is missing or empty; nothing is deleted', group: 'problem' };
    case 'resumed':
      return { text: 'The mirror folder is back: sync resumed', group: 'app' };
    case 'restored':
      return { text: 'The mirror folder was rebuilt from what the app knows; nothing was deleted', group: 'app' };
    case 'recognised': {
      const n = countIn(/recognised ([\d,]+)/, s, 0);
      return {
        text: `Recognised ${plural(n, 'item', 'items')} of the mirror folder by name after the disk changed (nothing sent for them)`,
        group: 'app',
      };
    }
    case 'watcher':
      return /passed/.test(s)
        ? { text: 'Watching the mirror folder for changes', group: 'app' }
        : /polling/.test(s)
          ? { text: 'Watching the mirror folder by checking it regularly', group: 'app' }
          : { text: 'Changes in the mirror folder are found by regular checks (the watcher did not answer)', group: 'problem' };
    case 'error':
      return { text: `Something went wrong: ${realPlurals(s)}`, group: 'problem' };
    default:
      return undefined;
  }
}

/** How much of an Organize batch's undo the NAS took: "done on the NAS", or how many wait in Conflicts. */
const undoSent = (done: number, of: number): string =>
  done === of
    ? 'done on the NAS'
    : `${formatCount(done)} of ${plural(of, 'change', 'changes')} done on the NAS; ${formatCount(of - done)} wait in Conflicts`;

const capital = (s: string): string => (s ? `${s[0]!.toUpperCase()}${s.slice(1)}` : s);

/**
 * The engine's record of a Free up space, in words: "freed up 4.2 MB: 3 files are placeholders
 * again; 1 file you changed stays as it is" (the size as the window writes it).
 */
export function freedSummary(bytes: number, freed: number, kept: number): string {
  const again = freed === 1 ? '1 file is a placeholder again' : `${plural(freed, 'file', 'files')} are placeholders again`;
  const yours = kept > 0 ? `; ${plural(kept, 'file', 'files')} you changed ${kept === 1 ? 'stays as it is' : 'stay as they are'}` : '';
  return `freed up ${formatSize(bytes)}: ${again}${yours}`;
}

/** A freed record (freedSummary's, or the older "freed 123 bytes: 3 file(s) are placeholders again...") as the window's line. */
function freedWords(s: string, name: string): string {
  const old = /^freed (\d+) bytes: (\d+) file\(s\) are placeholders again(?:; (\d+) file\(s\) you changed kept as they are)?/.exec(s);
  const text = old ? freedSummary(Number(old[1]), Number(old[2]), Number(old[3] ?? 0)) : s;
  const m = /^freed up ([^:]+): (.*)$/.exec(text);
  return m
    ? `Freed up ${m[1]} (${q(name)}): ${m[2]}`
    : `Freed up space: ${realPlurals(text.replace(/^freed \d+ bytes: /, ''))} (${q(name)})`;
}

/** Kinds whose runs (same kind, one after the other) read as one line. */
const ROUTINE: ReadonlySet<ActivityKind> = new Set<ActivityKind>([
  'replaced',
  'local-only',
  'emptied',
  'remote-added',
  'remote-removed',
  'refused',
  'watcher',
  'error',
]);

/** The entries (newest first) as lines (newest first). */
export function activityLines(entries: readonly ActivityEntry[]): ActivityLine[] {
  const sent = new Map<string, ActivityEntry>();
  for (const e of entries)
    if (e.kind === 'sent') {
      const n = seqOf(e.summary);
      if (n) sent.set(n, e);
    }
  const folded = new Set<ActivityEntry>();
  const out: ActivityLine[] = [];
  for (const e of entries) {
    if (e.kind === 'sent') continue;
    const w = words(e);
    const n = ['renamed', 'moved', 'deleted', 'undo', 'approved', 'reapplied'].includes(e.kind) ? seqOf(e.summary) : null;
    const done = n ? sent.get(n) : undefined;
    if (done) folded.add(done);
    const last = out[out.length - 1];
    if (last && ROUTINE.has(e.kind) && last.entry.kind === e.kind) {
      last.raw.push(e);
      continue;
    }
    // a batch's undo: one "sent" once all of its changes are settled; some the NAS did not take wait in Conflicts
    const part = done ? /: (\d+) of (\d+) applied/.exec(done.summary) : null;
    if (part && part[1] !== part[2]) {
      out.push({
        entry: e,
        text: `${w.text} (${undoSent(Number(part[1]), Number(part[2]))})`,
        group: w.group,
        state: null,
        raw: [e, done!],
      });
      continue;
    }
    out.push({ entry: e, text: w.text, group: w.group, state: n ? (done ? 'done' : 'waiting') : null, raw: done ? [e, done] : [e] });
  }
  // a "sent" with no change of its own in the list (older than the list): its own line
  for (const e of entries)
    if (e.kind === 'sent' && !folded.has(e)) out.push({ entry: e, text: words(e).text, group: 'mine', state: 'done', raw: [e] });
  out.sort((a, b) => (a.entry.at < b.entry.at ? 1 : a.entry.at > b.entry.at ? -1 : 0));
  for (const l of out) {
    if (l.raw.length > 1 && ROUTINE.has(l.entry.kind))
      l.text = `${l.text} (and ${plural(l.raw.length - 1, 'more like it', 'more like it')})`;
  }
  return out;
}
