/**
 * The NAS side of a convergence run: the reference service (server/testing.ts) on a data
 * folder of the run's own, so it can be stopped and started again on the same data (an
 * outage, a reboot); the NAS tree as the service holds it (for the checks); and "another
 * user" changing the NAS through HTTP, with no If-Match (as another app would), retrying
 * while the device is in a 5xx/429 burst.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../server/testing.js';

export interface NasNode {
  id: string;
  name: string;
  /** Parent id ('' for the root). */
  parent: string;
  dir: boolean;
}

/** The NAS tree at one moment: every live object under the user's root, the root included. */
export class NasTree {
  private kids: Map<string, NasNode[]> | undefined;

  constructor(
    readonly rootId: string,
    readonly byId: ReadonlyMap<string, NasNode>,
  ) {}

  children(id: string): readonly NasNode[] {
    if (!this.kids) {
      this.kids = new Map();
      for (const n of this.byId.values()) {
        if (n.id === this.rootId) continue;
        const l = this.kids.get(n.parent) ?? [];
        l.push(n);
        this.kids.set(n.parent, l);
      }
    }
    return this.kids.get(id) ?? [];
  }

  /** Path from the root by NAS names ('' for the root), or undefined. */
  path(id: string): string | undefined {
    const segs: string[] = [];
    for (let n = this.byId.get(id); n && n.id !== this.rootId; n = this.byId.get(n.parent)) {
      segs.unshift(n.name);
      if (segs.length > 200) return undefined;
    }
    return this.byId.has(id) ? segs.join('/') : undefined;
  }

  /** The object and everything below it. */
  subtree(id: string): Set<string> {
    const out = new Set<string>();
    const todo = [id];
    while (todo.length) {
      const x = todo.pop()!;
      if (!this.byId.has(x) || out.has(x)) continue;
      out.add(x);
      for (const c of this.children(x)) todo.push(c.id);
    }
    return out;
  }

  isUnder(id: string, ancestor: string): boolean {
    for (let n = this.byId.get(id); n; n = this.byId.get(n.parent)) if (n.id === ancestor) return true;
    return false;
  }

  get size(): number {
    return this.byId.size;
  }
}

export interface NasOutcome {
  status: number;
  /** The change was applied (2xx). */
  applied: boolean;
}

export interface NasOptions {
  seed: number;
  objects: number;
  /** `real-device` (every quirk) or a list; undefined: the plain service. */
  quirks?: string;
  /** With quirks: how long a folder deleted with 202 stays listed. */
  lingerMs?: number;
}

export class Nas {
  private constructor(
    public svc: TestService,
    readonly dataDir: string,
    readonly token: string,
    private readonly opts: NasOptions,
  ) {}

  static async start(opts: NasOptions): Promise<Nas> {
    const dataDir = mkdtempSync(join(tmpdir(), 'conv-nas-'));
    const svc = await startTestService({ dataDir, demo: { objects: opts.objects, seed: opts.seed }, ...Nas.quirkOpts(opts) });
    return new Nas(svc, dataDir, svc.token(), opts);
  }

  private static quirkOpts(o: NasOptions): { quirks?: string; lingerMs?: number } {
    return o.quirks ? { quirks: o.quirks, lingerMs: o.lingerMs ?? 1500 } : {};
  }

  get quirks(): boolean {
    return this.opts.quirks !== undefined;
  }

  get lingerMs(): number {
    return this.opts.quirks ? (this.opts.lingerMs ?? 1500) : 0;
  }

  get rootId(): string {
    return this.svc.admin.rootId();
  }

  get running(): boolean {
    return this.stopped === undefined;
  }

  private stopped: Promise<void> | undefined;

  /** The device goes down (in-flight requests finish, then nothing answers). */
  async stop(): Promise<void> {
    this.stopped ??= this.svc.stop({ keepData: true });
    await this.stopped;
  }

  /** The device is back, on the same data (another port: the link follows it). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    await this.stopped;
    this.svc = await startTestService({ dataDir: this.dataDir, ...Nas.quirkOpts(this.opts) });
    this.stopped = undefined;
  }

  /** With quirks: 503/502/429 bursts for `ms`. */
  burst(ms: number): void {
    this.svc.quirks?.outage(ms);
  }

  /** The tree as the service holds it (objects being deleted and everything below them excluded). */
  tree(): NasTree {
    const db = this.svc.service.store.db;
    const rows = db.prepare('SELECT row, id, parent, name, dir, deleting FROM objects').all() as {
      row: number;
      id: string;
      parent: number;
      name: string;
      dir: number;
      deleting: number;
    }[];
    const rootId = this.rootId;
    const byRow = new Map<number, (typeof rows)[number]>();
    const kids = new Map<number, number[]>();
    let rootRow = -1;
    for (const r of rows) {
      byRow.set(r.row, r);
      if (r.id === rootId) rootRow = r.row;
      const l = kids.get(r.parent) ?? [];
      l.push(r.row);
      kids.set(r.parent, l);
    }
    const out = new Map<string, NasNode>();
    out.set(rootId, { id: rootId, name: '', parent: '', dir: true });
    const todo = [rootRow];
    while (todo.length) {
      const p = todo.pop()!;
      const pid = byRow.get(p)!.id;
      for (const c of kids.get(p) ?? []) {
        const r = byRow.get(c)!;
        if (r.deleting || c === p) continue;
        out.set(r.id, { id: r.id, name: r.name, parent: pid, dir: r.dir === 1 });
        if (r.dir) todo.push(c);
      }
    }
    return new NasTree(rootId, out);
  }

  /** Another user renames and/or moves `id` (no If-Match). */
  patch(id: string, body: { name?: string; parentID?: string }): Promise<NasOutcome> {
    return this.write('POST', `/files/${encodeURIComponent(id)}/patch`, body);
  }

  /** Another user deletes `id` (no If-Match). */
  delete(id: string): Promise<NasOutcome> {
    return this.write('DELETE', `/files/${encodeURIComponent(id)}`);
  }

  private async write(method: string, path: string, body?: unknown): Promise<NasOutcome> {
    const t0 = Date.now();
    for (;;) {
      const res = await fetch(`${this.svc.baseUrl}/sdk/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      await res.arrayBuffer();
      // a device in a burst (quirks): the other app tries again, as the engine does
      if ((res.status === 503 || res.status === 502 || res.status === 429) && Date.now() - t0 < 30_000) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      return { status: res.status, applied: res.status >= 200 && res.status < 300 };
    }
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
