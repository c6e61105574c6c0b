/**
 * The environment the engine's own process starts with: the parent's, plus two glibc malloc
 * settings, each unless it is set already (glibc reads them once, at the process's start).
 * Other C libraries ignore them.
 * - `MALLOC_ARENA_MAX=2`: glibc gives each thread that allocates (SQLite's, the index worker's,
 *   libuv's) an arena of its own and keeps what they freed. Back to back by hand at 100k, a
 *   first run peaked at 460 MB with two arenas against 530 MB without.
 * - `MALLOC_MMAP_THRESHOLD_=131072`: blocks of 128 KiB and more (the index's postings, the
 *   walk's pages, a worker's buffers) get pages of their own, given back to the system when
 *   freed. Left to glibc, the threshold rises to the biggest block freed so far (up to 32
 *   MiB), and later blocks of that size come from the arena, whose freed middle is never
 *   given back: after a 1M first run glibc's main arena held 265 MB, 150 MB of it free
 *   (docs/sync-engine.md, s26). A fixed value also turns the rising off.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

const MALLOC_DEFAULTS: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

export function engineEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const missing = Object.entries(MALLOC_DEFAULTS).filter(([k]) => base[k] === undefined);
  return missing.length === 0 ? base : { ...base, ...Object.fromEntries(missing) };
}

/** The engine process's niceness at least (`os.constants.priority.PRIORITY_BELOW_NORMAL`). */
export const ENGINE_NICE = 10;

/**
 * The engine is background work: its process asks for a lower CPU priority (nice 10 on Linux
 * and macOS, "below normal" on Windows; a process niced more already stays so), as Syncthing
 * does by default, so that when the cores are busy the window and the user's own applications
 * come first; idle cores it still uses in full. Called first thing in the engine's process:
 * the threads it starts later (libuv's pool, SQLite's, the index worker) inherit it.
 * `NAS_MIRROR_ENGINE_PRIORITY=normal` keeps it as it was.
 */
export function lowerPriority(
  env: NodeJS.ProcessEnv,
  os: { get: () => number; set: (priority: number) => void },
): 'lowered' | 'kept' | 'refused' {
  if (env['NAS_MIRROR_ENGINE_PRIORITY'] === 'normal') return 'kept';
  try {
    const now = os.get();
    if (now >= ENGINE_NICE) return 'kept';
    os.set(ENGINE_NICE);
    return 'lowered';
  } catch {
    return 'refused'; // (a system that does not let a process change its own: it runs as it was)
  }
}

/** What `lowerSessionPriority` reads and sets (Linux's /proc; elsewhere `read` answers null). */
export interface AutogroupSys {
  /** /proc/self/autogroup ("/autogroup-3225 nice 0"), null where there is none. */
  read: () => string | null;
  /** Whether this process leads its session (its id is the session's: `setsid`, a detached fork). */
  leadsSession: () => boolean;
  write: (nice: number) => void;
}

/**
 * Linux's autogroups (CONFIG_SCHED_AUTOGROUP, on in most distributions' kernels): the
 * scheduler first shares the cores between sessions, and a process's nice counts only against
 * the processes of its own session. Browser mode forks the engine detached (a session of its
 * own, so that what it started ends with it), so its nice 10 weighed nothing against the
 * window: measured in `bench:content`'s window part (s34), the engine's session had as much CPU
 * as the whole of Chromium's while it kept 10,000 files, and the window's 10 ms timer fired up
 * to 110-150 ms late. An engine that leads its session gives the session its own nice
 * (/proc/self/autogroup). One that does not (the app's utility process, `nas-mirror run` in a
 * terminal) leaves it alone: the session is the app's or the user's shell's.
 */
export function lowerSessionPriority(env: NodeJS.ProcessEnv, sys: AutogroupSys): 'lowered' | 'kept' | 'refused' {
  if (env['NAS_MIRROR_ENGINE_PRIORITY'] === 'normal') return 'kept';
  try {
    const now = /\bnice (-?\d+)/.exec(sys.read() ?? '');
    if (!now || !sys.leadsSession() || Number(now[1]) >= ENGINE_NICE) return 'kept';
    sys.write(ENGINE_NICE);
    return 'lowered';
  } catch {
    return 'refused';
  }
}

/** `AutogroupSys` on this machine's /proc (null reads where it has none). */
export const procAutogroup: AutogroupSys = {
  read: () => {
    try {
      return readFileSync('/proc/self/autogroup', 'utf8');
    } catch {
      return null;
    }
  },
  leadsSession: () => {
    // /proc/self/stat: "pid (comm) state ppid pgrp session ...", comm may hold spaces and parentheses
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const [, , , session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(session) === process.pid;
  },
  write: (nice) => writeFileSync('/proc/self/autogroup', String(nice)),
};

/**
 * How far V8 lets the engine's heap grow past what the last full collection kept, in percent.
 * Left to V8 (a factor it picks between 1.1 and 4 from how fast it collects), a 1M first walk,
 * whose live heap stays under ~100 MB, grew its heap to ~410 MB of mostly garbage between
 * collections: the walk's peak RSS was ~545-610 MB; at 1.5 it is ~330 MB (99 full
 * collections instead of 43, ~50-100 ms each; ready no later, s29). Read at each collection,
 * so it works set at run time; it is the process's (its workers' heaps too).
 */
export const HEAP_GROWING_PERCENT = 50;

/** Sets `HEAP_GROWING_PERCENT` for this process (the engine's: its entry, and `nas-mirror run`). */
export function tightenHeapGrowth(setFlags: (flags: string) => void = setFlagsFromString): void {
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
