/**
 * Log lines for people, from a logger's JSON lines (main/log/logger.ts, server/log.ts, both
 * redacted already): local time, what, where, and why (`12:04:31 renamed  Photos/b.jpg: ...`).
 * For a person at a terminal (`nas-mirror run`, `nas-service serve`); files and programs keep
 * JSON (`--log-json`). A line that is not such JSON passes through unchanged.
 */

import { activityText } from '../activity/words.js';
import { ACTIVITY_KINDS, type ActivityKind } from '../model/activity-kinds.js';
import { realPlurals } from '../util/human.js';

const KINDS: ReadonlySet<string> = new Set(ACTIVITY_KINDS);

/** How much a line says: the engine's decisions in plain words, or with their details too. */
export interface HumanLineOptions {
  /** The path, the engine's summary and its technical reason after the plain words (`--verbose`). */
  details?: boolean;
}

/** Fields shown in their own place (time, what, where, why), not as `key=value`. */
const PLACED = new Set(['t', 'level', 'component', 'msg', 'path', 'summary', 'reason']);

/** Control characters (a file name may hold them) never reach the terminal as they are. */
const printable = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

const text = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string')
    return (v as { message: string }).message;
  return JSON.stringify(v) ?? String(v);
};

/** "error: " or "warning: " before a line of that level; nothing before the others. */
const levelWord = (level: unknown): string => (level === 'error' ? 'error: ' : level === 'warn' ? 'warning: ' : '');

/** `HH:MM:SS` in local time. */
const clock = (iso: unknown): string => {
  const d = typeof iso === 'string' ? new Date(iso) : new Date(NaN);
  return Number.isNaN(d.getTime()) ? '--:--:--' : d.toTimeString().slice(0, 8);
};

/**
 * An engine decision (an activity-log entry, also logged) in the window's plain words; with
 * `details`, the path, the summary and the technical reason follow in brackets.
 */
function decisionLine(rec: Record<string, unknown>, details: boolean): string | undefined {
  const kind = rec['msg'];
  if (rec['component'] !== 'engine' || typeof kind !== 'string' || !KINDS.has(kind) || typeof rec['summary'] !== 'string') return undefined;
  const path = typeof rec['path'] === 'string' ? rec['path'] : '';
  const summary = realPlurals(rec['summary']);
  const words = activityText({ kind: kind as ActivityKind, path, summary });
  const reason = typeof rec['reason'] === 'string' && rec['reason'] !== '' ? ` (${rec['reason']})` : '';
  const more = details ? `  [${path ? `${path}: ` : ''}${summary}${reason}]` : '';
  return printable(`${clock(rec['t'])} ${levelWord(rec['level'])}${words}${more}`) + '\n';
}

/** One JSON log line (without its newline) as a line for people (with its newline). */
export function humanLine(jsonLine: string, opts: HumanLineOptions = {}): string {
  let rec: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(jsonLine);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return `${jsonLine}\n`;
    rec = v as Record<string, unknown>;
  } catch {
    return `${jsonLine}\n`;
  }
  const decision = decisionLine(rec, opts.details ?? false);
  if (decision !== undefined) return decision;
  const what = `${levelWord(rec['level'])}${text(rec['msg'] ?? '')}`;
  const path = typeof rec['path'] === 'string' && rec['path'] !== '' ? rec['path'] : undefined;
  const summary = rec['summary'] !== undefined && rec['summary'] !== '' ? realPlurals(text(rec['summary'])) : undefined;
  const reason = rec['reason'] !== undefined && rec['reason'] !== '' ? text(rec['reason']) : undefined;
  const where = [path, summary].filter((x) => x !== undefined).join(': ');
  const extra = Object.entries(rec)
    .filter(([k, v]) => !PLACED.has(k) && v !== undefined)
    .map(([k, v]) => {
      const s = text(v);
      return `${k}=${/\s/.test(s) || s === '' ? JSON.stringify(s) : s}`;
    });
  const rest = [where, ...extra].filter((x) => x !== '').join('  ');
  return (
    printable(`${clock(rec['t'])} ${what.padEnd(8)} ${rest}${reason !== undefined && reason !== summary ? ` (${reason})` : ''}`.trimEnd()) +
    '\n'
  );
}
