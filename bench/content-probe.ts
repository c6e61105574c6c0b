/**
 * Probes for `npm run bench:content` (bench/content.ts): the test data (one big file of random
 * bytes written in chunks, many small files of 4-64 KiB), the floors (`curl` with a config
 * file, so the token never reaches a command line; `cp`), a raw listing of the NAS, and a
 * meter of this process's resident memory (sampled every 100 ms, and the kernel's peak after
 * a reset, which no sampling can miss).
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { HttpTransport, type Transport, type TransportRequest, type TransportResponse } from '../main/client/transport.js';
import { fullGc } from '../main/index/full-gc.js';
import { runOk } from './scale-probe.js';

export const MiB = 1024 * 1024;

/** Writes `bytes` random bytes to `path`, 8 MiB at a time (never the whole file in memory). */
export function writeBigFile(path: string, bytes: number): void {
  const chunk = Buffer.alloc(8 * MiB);
  const fd = openSync(path, 'w');
  try {
    for (let left = bytes; left > 0;) {
      const n = Math.min(left, chunk.length);
      randomFillSync(chunk, 0, n);
      writeSync(fd, chunk, 0, n);
      left -= n;
    }
  } finally {
    closeSync(fd);
  }
}

/** `count` files of 4-64 KiB (sizes from a fixed seed) in `dir`; their names and sizes. */
export function writeSmallFiles(dir: string, count: number): Map<string, number> {
  mkdirSync(dir, { recursive: true });
  const pool = randomFillSync(Buffer.alloc(MiB));
  const sizes = new Map<string, number>();
  let seed = 12345;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed;
  };
  for (let i = 0; i < count; i++) {
    const size = 4096 + (next() % (60 * 1024 + 1));
    const at = next() % (pool.length - size);
    const name = `f${String(i).padStart(6, '0')}.bin`;
    writeFileSync(join(dir, name), pool.subarray(at, at + size));
    sizes.set(name, size);
  }
  return sizes;
}

/** A value in a curl config file (double-quoted, escapes as curl reads them). */
const q = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export interface Nas {
  baseUrl: string;
  token: string;
}

/** A curl config file (mode 0600: it holds the token) and the time of `curl -K` on it. */
async function curl(
  cfgPath: string,
  lines: readonly string[],
  extra: readonly string[],
  what: string,
  timeoutMs: number,
): Promise<{ ms: number; stdout: string }> {
  writeFileSync(cfgPath, lines.join('\n') + '\n', { mode: 0o600 });
  const r = await runOk('curl', ['--silent', '--show-error', '--fail', ...extra, '--config', cfgPath], { timeoutMs, what });
  return { ms: r.ms, stdout: r.stdout };
}

const auth = (nas: Nas): string => `header = ${q(`Authorization: Bearer ${nas.token}`)}`;
const contentUrl = (nas: Nas, id: string): string => `${nas.baseUrl}/sdk/v2/files/${encodeURIComponent(id)}/content`;

/** `curl` of files' content (`GET files/<id>/content`) into `outDir`, `parallel` at once over one process. */
export async function curlDownload(
  nas: Nas,
  files: readonly { id: string; name: string }[],
  outDir: string,
  parallel: number,
  cfgPath: string,
  timeoutMs: number,
): Promise<number> {
  mkdirSync(outDir, { recursive: true });
  const lines = [auth(nas)];
  for (const f of files) lines.push(`url = ${q(contentUrl(nas, f.id))}`, `output = ${q(join(outDir, f.name))}`);
  const par = files.length > 1 ? ['--parallel', '--parallel-immediate', '--parallel-max', String(parallel)] : [];
  return (await curl(cfgPath, lines, par, `curl download of ${files.length} file(s)`, timeoutMs)).ms;
}

/**
 * `curl` uploads as the resumable interface takes a new file: `POST files/resumable` with
 * `{name, parentID}` (the id from `Location`), then one `PUT .../resumable/content?offset=0&done=true`
 * of the whole file (`curl -T`). Both steps for every file, `parallel` at once; the time of both.
 */
export async function curlUpload(
  nas: Nas,
  parentId: string,
  files: readonly { path: string; name: string }[],
  parallel: number,
  cfgPath: string,
  timeoutMs: number,
): Promise<number> {
  const par = files.length > 1 ? ['--parallel', '--parallel-immediate', '--parallel-max', String(parallel)] : [];
  const create: string[] = [];
  files.forEach((f, i) => {
    if (i > 0) create.push('next');
    // the name rides in the query too, so each answer's Location is matched to its file
    create.push(
      auth(nas),
      `url = ${q(`${nas.baseUrl}/sdk/v2/files/resumable?done=false&n=${encodeURIComponent(f.name)}`)}`,
      `header = ${q('Content-Type: application/json')}`,
      `data-binary = ${q(JSON.stringify({ name: f.name, parentID: parentId }))}`,
      'output = "/dev/null"',
      `write-out = ${q('%{url} %header{location}\\n')}`,
    );
  });
  const made = await curl(cfgPath, create, par, `curl POST files/resumable x${files.length}`, timeoutMs);
  const ids = new Map<string, string>();
  for (const line of made.stdout.split('\n')) {
    const m = /[?&]n=([^ &]+) \S*\/files\/([^/\s]+)$/.exec(line.trim());
    if (m) ids.set(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!));
  }
  if (ids.size !== files.length) throw new Error(`curl POST files/resumable: ${ids.size} Location(s) for ${files.length} file(s)`);
  const put: string[] = [];
  files.forEach((f, i) => {
    if (i > 0) put.push('next');
    put.push(
      auth(nas),
      `url = ${q(`${nas.baseUrl}/sdk/v2/files/${encodeURIComponent(ids.get(f.name)!)}/resumable/content?offset=0&done=true`)}`,
      `header = ${q('Content-Type: application/octet-stream')}`,
      `upload-file = ${q(f.path)}`,
      'output = "/dev/null"',
    );
  });
  const sent = await curl(cfgPath, put, par, `curl PUT resumable/content x${files.length}`, timeoutMs);
  return made.ms + sent.ms;
}

export interface NasFile {
  id: string;
  name: string;
  size?: number;
  mimeType: string;
  /** True while the file's first upload is unfinished. */
  resumable?: boolean;
}

/** A folder's children, every page (raw `filesSearch/parents`). */
export async function listAll(nas: Nas, folderId: string): Promise<NasFile[]> {
  const out: NasFile[] = [];
  let page = '';
  for (;;) {
    const u = `${nas.baseUrl}/sdk/v2/filesSearch/parents?ids=${encodeURIComponent(folderId)}&limit=1000&pageToken=${encodeURIComponent(page)}`;
    const r = await fetch(u, { headers: { authorization: `Bearer ${nas.token}` } });
    if (r.status !== 200) throw new Error(`listing ${folderId}: HTTP ${r.status}`);
    const body = (await r.json()) as { files: NasFile[]; pageToken?: string };
    out.push(...body.files);
    if (!body.pageToken || body.pageToken === page) return out;
    page = body.pageToken;
  }
}

/** A NAS call answered with JSON (`POST files` for a folder, `GET files/root`). */
export async function nasJson<T>(
  nas: Nas,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; location: string | null; body: T | undefined }> {
  const r = await fetch(`${nas.baseUrl}/sdk/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${nas.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, location: r.headers.get('location'), body: text ? (JSON.parse(text) as T) : undefined };
}

/** Makes a folder on the NAS; its id. */
export async function makeFolder(nas: Nas, parentId: string, name: string): Promise<string> {
  const r = await nasJson(nas, 'POST', '/files', { name, parentID: parentId, mimeType: 'application/x.service.dir' });
  const id = /\/files\/([^/?#]+)$/.exec(r.location ?? '')?.[1];
  if (r.status !== 201 || id === undefined) throw new Error(`POST files ${name}: HTTP ${r.status}`);
  return decodeURIComponent(id);
}

/** `cp` (`-r` for a folder) of `from` to `to`: its wall time. */
export async function cpTimed(from: string, to: string, timeoutMs: number): Promise<number> {
  return (await runOk('cp', ['-r', from, to], { timeoutMs, what: `cp -r ${from}` })).ms;
}

export { fullGc };

const statusKb = (field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);

export interface RssGrowth {
  /** RSS when the meter started (after a full collection), MB. */
  beforeMb: number;
  /** The most of the 100 ms samples above it, MB. */
  sampledMb: number;
  /** The kernel's peak (VmHWM, reset at the start) above it, MB: NaN where the reset is refused. */
  peakMb: number;
}

/**
 * This process's resident memory while `fn` runs: a full collection first, then the kernel's
 * peak is reset (`/proc/self/clear_refs` = 5) and `process.memoryUsage.rss()` sampled every 100 ms.
 */
export async function meterRss<T>(fn: () => Promise<T>): Promise<{ value: T; rss: RssGrowth }> {
  fullGc();
  let resetOk = true;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    resetOk = false;
  }
  const before = process.memoryUsage.rss();
  let most = before;
  const timer = setInterval(() => {
    most = Math.max(most, process.memoryUsage.rss());
  }, 100);
  try {
    const value = await fn();
    most = Math.max(most, process.memoryUsage.rss());
    const mb = (b: number): number => Math.round(b / MiB);
    const peak = resetOk ? statusKb('VmHWM') * 1024 : NaN;
    return { value, rss: { beforeMb: mb(before), sampledMb: mb(most - before), peakMb: mb(peak - before) } };
  } finally {
    clearInterval(timer);
  }
}

/** A request's kind: method and path without the query, ids as `:id`. */
export const requestKind = (method: string, url: string): string =>
  `${method} ${new URL(url).pathname.replace(/^\/sdk\/v2/, '').replace(/\/files\/(?!resumable$)[^/]+/, '/files/:id')}`;

/**
 * The engine's transport (as the client makes it: 8 sockets), measuring what it sends: the
 * most requests in flight at once, and per kind how many and their total time, since `reset`.
 */
export class GaugeTransport implements Transport {
  private now = 0;
  most = 0;
  kinds: Record<string, { n: number; ms: number }> = {};
  private readonly inner = new HttpTransport({ maxSockets: 8 });

  async request(req: TransportRequest): Promise<TransportResponse> {
    this.most = Math.max(this.most, ++this.now);
    const t0 = performance.now();
    const k = (this.kinds[requestKind(req.method, req.url)] ??= { n: 0, ms: 0 });
    try {
      return await this.inner.request(req);
    } finally {
      this.now--;
      k.n++;
      k.ms += performance.now() - t0;
    }
  }

  reset(): void {
    this.most = this.now;
    this.kinds = {};
  }

  close(): void {
    this.inner.close();
  }
}

/** `fn` under V8's CPU profiler when `dir` is set: the profile written to `dir/<name>.cpuprofile` (open it in Chrome's DevTools). */
export async function profiled<T>(dir: string | undefined, name: string, fn: () => Promise<T>): Promise<T> {
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    try {
      return await fn();
    } finally {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    }
  } finally {
    session.disconnect();
  }
}
