/**
 * The test harness other areas import: a real service in-process on 127.0.0.1 port 0 in a
 * temp data folder, with user `demo`, token minting, admin create functions (the
 * interface has no create operation), a request log, and a way to run the service as a
 * separate process (`spawnServiceProcess`) for kill -9 tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hidden, ImageMeta, RemoteObject } from '../app/model/remote-object.js';
import { setPassword } from './auth/oauth.js';
import { loadDemo } from './demo/load.js';
import { parseQuirks, type QuirkControl } from './quirks/quirks.js';
import { roomLimitedDisk, type RoomLimitedDisk } from './content/disk.js';
import { startService, type RunningService } from './service.js';
import { openServiceDb } from './store/schema.js';
import { Store } from './store/store.js';
import { addUser, grant, mintToken, userByName, type Scope } from './store/users.js';
import type { WireObject } from './store/object-row.js';
import type { PermName } from './store/tree-index.js';

export interface CreateOptions {
  size?: number;
  mTime?: number;
  cTime?: number;
  mimeType?: string;
  hidden?: Hidden;
  image?: ImageMeta;
  /** Files: stored content (its size is the file's size); without it, content is generated from id and size. */
  content?: Uint8Array | string;
}

export interface TestService {
  baseUrl: string;
  dataDir: string;
  /** Mints a token (default scope nas_read_write, default user `demo`). */
  token(scope?: Scope, user?: string): string;
  admin: {
    /** Creates a folder; `parentId` may be `root` (of `demo`) or any object id. */
    createFolder(parentId: string, name: string, opts?: CreateOptions): RemoteObject;
    createFile(parentId: string, name: string, opts?: CreateOptions): RemoteObject;
    rootId(user?: string): string;
    addUser(name: string): void;
    /** Gives a user a password for the sign-in page. */
    setPassword(user: string, password: string): Promise<void>;
    grant(user: string, objectId: string, perm: PermName): void;
    /** The object as the service would return it (ignoring permissions), or undefined. */
    get(id: string): WireObject | undefined;
    /** Resolves when every pending asynchronous delete has finished. */
    drainDeletes(): Promise<void>;
  };
  /** Number of requests received so far. */
  requestCount(): number;
  /** Every request so far: method and path (without the query). */
  requests(): readonly { method: string; path: string }[];
  /** Controls of the quirks (`outage(ms)`...), when started with `quirks`. */
  quirks: QuirkControl | undefined;
  /** With `diskRoom`: the disk uploads are written to (`setRoom(bytes)` frees or fills it). */
  disk: RoomLimitedDisk | undefined;
  /** The running service (store, server) for white-box checks. */
  service: RunningService;
  /** Stops the service and removes the data folder (unless keepData). */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export interface TestServiceOptions {
  demo?: { objects: number; seed: number };
  /** Use an existing data folder instead of a new temp one (it is then not removed). */
  dataDir?: string;
  /** Lifetime of access tokens issued by sign-in (`--token-ttl`), in seconds. */
  tokenTtlSec?: number;
  /** Quirks of a real device (`--quirks`): names, or `real-device` for all. */
  quirks?: string;
  /** `lingering-delete`: how long a folder deleted with 202 stays listed (ms). */
  lingerMs?: number;
  /** `latency`: how long each request of the interface waits (ms, default 200). */
  latencyMs?: number;
  /** Unfinished uploads untouched this long are removed (default 24 h). */
  uploadTtlMs?: number;
  /** Uploads are written to a disk with this many bytes of room (then ENOSPC: 507). */
  diskRoom?: number;
}

/** Starts the real service in-process on 127.0.0.1 port 0 with user `demo`. */
export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'nas-service-'));
  const store = new Store(openServiceDb(dataDir));
  if (!userByName(store, 'demo')) addUser(store, 'demo');
  if (opts.demo) loadDemo(store, 'demo', opts.demo);
  const log: { method: string; path: string }[] = [];
  const disk = opts.diskRoom === undefined ? undefined : roomLimitedDisk(opts.diskRoom);
  const service = await startService(
    {
      dataDir,
      tokenTtlSec: opts.tokenTtlSec,
      uploadTtlMs: opts.uploadTtlMs,
      contentDisk: disk,
      ...(opts.quirks ? { quirks: parseQuirks(opts.quirks), quirkOptions: { lingerMs: opts.lingerMs, latencyMs: opts.latencyMs } } : {}),
      onRequest: (method, path) => log.push({ method, path }),
    },
    store,
  );
  const rowOf = (id: string): number => {
    if (id === 'root') return userByName(store, 'demo')!.root;
    const r = store.byId(id);
    if (!r) throw new Error(`no object ${id}`);
    return r.row;
  };
  const create = (parentId: string, name: string, dir: boolean, o: CreateOptions = {}): RemoteObject => {
    const bytes = typeof o.content === 'string' ? Buffer.from(o.content) : o.content;
    const content = bytes === undefined || dir ? undefined : service.content.storeBytes(bytes);
    const size = bytes === undefined ? o.size : bytes.length;
    const spec = { name, dir, size, mtime: o.mTime, ctime: o.cTime, mime: o.mimeType, hidden: o.hidden, image: o.image, content };
    const r = store.create(rowOf(parentId), spec);
    return store.wire(r);
  };
  return {
    baseUrl: service.baseUrl,
    dataDir,
    token: (scope = 'nas_read_write', user = 'demo') => mintToken(store, user, scope),
    admin: {
      createFolder: (p, n, o) => create(p, n, true, o),
      createFile: (p, n, o) => create(p, n, false, o),
      rootId: (user = 'demo') => {
        const u = userByName(store, user);
        if (!u) throw new Error(`no user ${user}`);
        return store.index.ids[u.root]!;
      },
      addUser: (name) => {
        addUser(store, name);
      },
      setPassword: (user, password) => setPassword(store, user, password),
      grant: (user, id, perm) => grant(store, user, id, perm),
      get: (id) => {
        const r = store.byId(id);
        return r && !r.deleting && store.index.access(-1, r.row) >= 0 ? store.wire(r) : undefined;
      },
      drainDeletes: () => service.jobs.drain(),
    },
    quirks: service.quirks,
    disk,
    requestCount: () => log.length,
    requests: () => log,
    service,
    stop: async (o = {}) => {
      await service.stop();
      if (!o.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Plays the user's browser on the sign-in page: opens `authorizeUrl` (the login page), posts
 * its form with a user name and password (or presses Cancel), and gives back where the
 * service redirects (the app's loopback URL with `code` or `error`), without following it.
 */
export async function browserSignIn(
  authorizeUrl: string,
  user: string,
  password: string,
  action: 'allow' | 'deny' = 'allow',
): Promise<{ status: number; location: string | null; html: string }> {
  const page = await fetch(authorizeUrl);
  const html = await page.text();
  if (page.status !== 200) return { status: page.status, location: null, html };
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(
      m[1]!,
      m[2]!.replace(/&#(\d+);/g, (_x, n: string) => String.fromCharCode(Number(n))),
    );
  form.set('username', user);
  form.set('password', password);
  form.set('action', action);
  const res = await fetch(new URL('authorize', authorizeUrl), {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface ServiceProcess {
  baseUrl: string;
  child: ChildProcess;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (kill -9) and wait for exit. */
  kill9(): Promise<void>;
}

/**
 * Runs `node bin/nas-service.js serve --data DIR` and resolves once it printed its URL
 * (a 1M-object library takes seconds to load: raise `timeoutMs` for those).
 */
export function spawnServiceProcess(
  dataDir: string,
  port = 0,
  timeoutMs = 60_000,
  /** `ownSession`: a session of its own (`setsid`), so that its CPU priority can be set apart from the caller's (Linux autogroups). */
  opts: { ownSession?: boolean } = {},
): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/nas-service.js'), 'serve', '--data', dataDir, '--host', '127.0.0.1', '--port', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownSession === true },
  );
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return new Promise((resolveP, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start: ${err}`));
    }, timeoutMs);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveP({
          baseUrl: m[1]!,
          child,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
          kill9: async () => {
            child.kill('SIGKILL');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}: ${err}`));
    });
  });
}
