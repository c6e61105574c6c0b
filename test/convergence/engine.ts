/**
 * The engine of a convergence run: a real `nas-mirror run` process (test/integration/local/
 * run-process.ts) talking to the NAS through the link, killed with SIGKILL or stopped with
 * SIGTERM and started again on the same state and mirror folders. What it knows is read
 * from its state db, as `nas-mirror status|held|conflicts` do (and the decisions go through
 * that command line), never from its memory. An exit nobody asked for is recorded.
 */
import { readStatus } from '../../main/engine/status.js';
import { LocalStore } from '../../main/local/local-store.js';
import type { LocalModel } from '../../main/local/model.js';
import { MirrorStore } from '../../main/mirror/store.js';
import { OutboxStore } from '../../main/outbox/outbox-store.js';
import { openStateDb, type Db } from '../../main/state/db.js';
import type { TestService } from '../../server/testing.js';
import { runCli } from '../support/run-cli.js';
import { startRunProcess, type RunProcess } from '../integration/local/run-process.js';

export interface EngineView {
  status: string;
  outboxPending: number;
  outboxDone: number;
  outboxConflict: number;
  pendingRequests: number;
  lastWalkAt: number;
  /** Held deletes; `candidates`: a "renamed or deleted?" and the places the entry may have gone. */
  held: { id: string; path: string; objects: number; candidates?: string[] }[];
  conflicts: { seq: number; objectId: string; kind: string; path: string; intent: string; remote: string; reason: string }[];
  localOnly: { path: string; kind: string; reason: string }[];
}

/** How long a clean stop may take (the engine's own stop waits for the step in progress: about a second). */
const STOP_PATIENCE_MS = 15_000;

export class EngineRunner {
  private proc: RunProcess | undefined;
  private expectExit = false;
  /** Exits nobody asked for, with the end of the process's stderr. */
  readonly unexpectedExits: string[] = [];
  /** Every process's stderr, in order (for failure reports). */
  private readonly logs: string[] = [];

  constructor(
    readonly stateDir: string,
    readonly mirrorDir: string,
    private readonly linkUrl: () => string,
    private readonly token: string,
  ) {}

  get running(): boolean {
    return this.proc !== undefined;
  }

  /** Starts `nas-mirror run` and resolves once it is watching the folder. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.proc) return;
    // startRunProcess needs only the URL and a token of the service
    const fake = { baseUrl: this.linkUrl(), token: () => this.token } as unknown as TestService;
    const p = startRunProcess(fake, this.stateDir, this.mirrorDir);
    this.proc = p;
    this.expectExit = false;
    const idx = this.logs.push('') - 1;
    void p.exit.then((code) => {
      this.logs[idx] = p.err();
      if (this.proc === p) this.proc = undefined;
      if (!this.expectExit)
        this.unexpectedExits.push(`nas-mirror run exited on its own (code ${code}); its stderr ended with:\n${tail(p.err(), 25)}`);
    });
    const t0 = Date.now();
    while (!p.err().includes('\nwatching ') && !p.err().startsWith('watching ')) {
      if (this.proc !== p) throw new Error(`nas-mirror run exited before it was ready:\n${tail(p.err(), 25)}`);
      if (Date.now() - t0 > timeoutMs) throw new Error(`nas-mirror run not ready after ${timeoutMs} ms:\n${tail(p.err(), 25)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** kill -9. */
  async kill9(): Promise<void> {
    const p = this.proc;
    if (!p) return;
    this.expectExit = true;
    p.child.kill('SIGKILL');
    await p.exit;
    this.proc = undefined;
  }

  /**
   * A clean stop (SIGTERM): the exit code (0 expected), or a problem: the process still
   * alive STOP_PATIENCE_MS after the signal (then killed), saying whether it had printed
   * "stopped" (its state saved: something left running keeps the process alive).
   */
  async stop(): Promise<{ code: number | null; problem?: string }> {
    const p = this.proc;
    if (!p) return { code: 0 };
    this.expectExit = true;
    p.child.kill('SIGTERM');
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      p.child.kill('SIGKILL');
    }, STOP_PATIENCE_MS);
    const code = await p.exit;
    clearTimeout(timer);
    this.proc = undefined;
    if (killed) {
      const said = /(^|\n)stopped\n/.test(p.err());
      return {
        code,
        problem: `nas-mirror run was still running ${STOP_PATIENCE_MS / 1000} s after SIGTERM (then killed)${said ? ', although it had printed "stopped" (its state was saved: something left running keeps the process alive)' : ', and had not printed "stopped"'}; its stderr ended with:\n${tail(p.err(), 6)}`,
      };
    }
    return { code, ...(code !== 0 ? { problem: `a clean stop (SIGTERM) of nas-mirror run exited with code ${code}` } : {}) };
  }

  /** The stderr of the running process (or the last one). */
  stderr(): string {
    return this.proc?.err() ?? this.logs[this.logs.length - 1] ?? '';
  }

  private read<T>(fn: (db: Db) => T): T {
    const db = openStateDb(this.stateDir);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  view(): EngineView {
    return this.read((db) => {
      const local = new LocalStore(db);
      const counts = new OutboxStore(db).counts();
      const s = readStatus(db, this.stateDir);
      const walk = new MirrorStore(db, 'reader').lastWalk();
      return {
        status: s.state,
        outboxPending: counts.pending + counts.sending,
        outboxDone: counts.done,
        outboxConflict: counts.conflict,
        pendingRequests: local.pendingRequests(),
        lastWalkAt: walk ? Date.parse(walk.completedAt) : 0,
        held: local.held().map((h) => {
          const candidates = (h as { candidates?: string[] }).candidates;
          return { id: h.id, path: h.path, objects: h.objects, ...(candidates ? { candidates } : {}) };
        }),
        conflicts: local.conflicts().map((c) => ({
          seq: c.seq,
          objectId: c.objectId,
          kind: c.kind,
          path: c.path,
          intent: c.intent,
          remote: c.remote,
          reason: c.reason,
        })),
        localOnly: localOnlyRows(local, db),
      };
    });
  }

  /** Where the engine believes each placeholder is (its model, as stored): path -> object. */
  modelPaths(): Map<string, { id: string; dir: boolean }> {
    return this.read((db) => {
      const rootId = new MirrorStore(db, 'reader').root()?.id ?? '';
      const m = new LocalStore(db).loadModel(rootId);
      const out = new Map<string, { id: string; dir: boolean }>();
      for (const e of m.entries()) {
        if (e.id === rootId || e.state !== 'ok' || e.ino === null) continue;
        const p = m.pathOf(e.id);
        if (p !== undefined && p !== '') out.set(p, { id: e.id, dir: e.kind === 'dir' });
      }
      return out;
    });
  }

  /** Asks the running engine for a walk, a check of the folders and a replay (`sync`, as the window's button does). */
  requestSync(): void {
    this.read((db) => new LocalStore(db).request('sync', []));
  }

  /** `nas-mirror held approve|reject ID...` or `held renamed ID PATH` (the command line queues it; the engine carries it out). */
  async held(args: readonly string[]): Promise<string> {
    const r = await runCli(['held', ...args, '--state', this.stateDir]);
    if (r.code !== 0) throw new Error(`nas-mirror held ${args.join(' ')}: exit ${r.code}: ${r.err}`);
    return r.out.trim();
  }

  /** `nas-mirror conflicts drop all`: keep the NAS version of every conflict (nothing else changes). */
  async dropConflicts(): Promise<void> {
    const r = await runCli(['conflicts', 'drop', 'all', '--state', this.stateDir]);
    if (r.code !== 0) throw new Error(`nas-mirror conflicts drop all: exit ${r.code}: ${r.err}`);
  }
}

/**
 * The local-only list with each row's path now. (Issue 21 keys the rows by folder id: the
 * list then needs the model to say where that folder is; before, rows were paths.)
 */
function localOnlyRows(local: LocalStore, db: Db): { path: string; kind: string; reason: string }[] {
  const list = local.localOnly.bind(local) as (model?: LocalModel) => { path: string; kind: string; reason: string }[];
  const model = list.length > 0 ? local.loadModel(new MirrorStore(db, 'reader').root()?.id ?? '') : undefined;
  return list(model).map((l) => ({ path: l.path, kind: l.kind, reason: l.reason }));
}

export function tail(s: string, lines: number): string {
  return s.split('\n').slice(-lines).join('\n');
}
