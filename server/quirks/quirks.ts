/**
 * `--quirks`: the reference service behaving like a real device, one named quirk at a time
 * (`real-device` = all), so the client is tested against what real clients meet. A layer
 * around the request handler: it may answer a request itself (an outage), change a request
 * on its way in (If-Match dropped, opaque eTags mapped back), and rewrite the JSON answer on
 * its way out. The store and the routes never know; with no quirk the layer is not there.
 * `no-child-count` and `latency` are named only, never part of `real-device`: the one is what
 * some devices do (not all), the other would slow every test that asks for a real device.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { foldCase as fold } from '../../app/search/fold.js';
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { Handler } from '../http/app.js';
import { pickFields } from '../store/object-row.js';
import type { Store } from '../store/store.js';
import { authenticate } from '../store/users.js';
import { bearer } from '../http/request.js';

export const QUIRKS = {
  trashed: 'deleted objects stay in their folder\'s listing with "trashed": true (the device\'s trash)',
  'root-in-search': "the user's root folder appears in text-search results when its name matches",
  'lingering-delete': 'a folder deleted with 202 is still listed for a while (lingerMs, default 30 s)',
  'ignore-if-match': 'If-Match is ignored: patches and deletes apply whatever the eTag',
  'opaque-etags': 'eTags are opaque strings, not the base64 version form',
  bursts: 'answers 503, 502 and 429 (Retry-After) during outages: svc.quirks.outage(ms), or 20 s every 2 min from the command line',
  'short-last-page': 'the last page of a search still carries a non-empty pageToken (it leads to an empty page)',
  'no-files-key': 'an empty listing has no "files" key',
  'lower-case-headers': 'response header names are sent in lower case',
  relay: "a second address, a relay whose base URL carries a path (http://HOST:P/relay/<deviceId>), is device.json's proxyURL",
  'lan-flap':
    'the LAN address dies and comes back on the same port (svc.quirks.lanDown()/lanUp(), or 30 s every 3 min from the command line); implies relay',
  'no-child-count': 'folders carry no childCount (in listings, by id, in search): a device that does not count',
  'bare-created': 'a create answers 201 with Location alone, no body (all the real clients are known to read)',
  latency: 'every answer of the interface comes after a delay (latencyMs, default 200 ms): a slow link or a busy device',
} as const;

export type Quirk = keyof typeof QUIRKS;
export const QUIRK_NAMES = Object.keys(QUIRKS) as Quirk[];
/** Quirks turned on by name only (see the header). */
const NAMED_ONLY: ReadonlySet<Quirk> = new Set<Quirk>(['no-child-count', 'latency']);

/** Parses `--quirks a,b` (`real-device` = all but the named-only ones); throws with the known names on an unknown one. */
export function parseQuirks(list: string): Set<Quirk> {
  const out = new Set<Quirk>();
  for (const raw of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (raw === 'real-device') QUIRK_NAMES.filter((q) => !NAMED_ONLY.has(q)).forEach((q) => out.add(q));
    else if ((QUIRK_NAMES as string[]).includes(raw)) out.add(raw as Quirk);
    else throw new Error(`unknown quirk "${raw}": use real-device or ${QUIRK_NAMES.join(', ')}`);
  }
  return out;
}

/** Live controls of the quirks (tests). */
export interface QuirkControl {
  readonly active: ReadonlySet<Quirk>;
  /** With `bursts`: every request fails for `ms` (503, 502 and 429 in turn). */
  outage(ms: number): void;
  /** Requests answered by an outage so far. */
  refused(): number;
  /** With `relay` or `lan-flap`: the relay's base URL (with its path). */
  relayUrl?: string;
  /** With `lan-flap`: the LAN listener stops (connections refused) / comes back on its port. */
  lanDown?(): Promise<void>;
  lanUp?(): Promise<void>;
}

interface Ghost {
  obj: RemoteObject;
  until: number;
}

/** `lingerMs`: how long a folder deleted with 202 stays listed; `periodic`: outages by the clock (`bursts`); `latencyMs`: the delay of `latency`. */
export interface QuirkOptions {
  lingerMs?: number;
  periodic?: boolean;
  latencyMs?: number;
}

export function withQuirks(
  app: Handler,
  store: Store,
  active: ReadonlySet<Quirk>,
  o: QuirkOptions = {},
): { handler: Handler; control: QuirkControl; stop(): void } {
  const on = (q: Quirk): boolean => active.has(q);
  const lingerMs = o.lingerMs ?? 30_000;
  const ghosts = new Map<string, Ghost[]>(); // parent id -> deleted objects still shown
  const opaqueToReal = new Map<string, string>();
  let outageUntil = 0;
  let refusedCount = 0;
  const timers: NodeJS.Timeout[] = [];
  if (on('bursts') && o.periodic) {
    timers.push(
      setInterval(() => {
        outageUntil = Date.now() + 20_000;
      }, 120_000),
    );
    timers[0]!.unref();
  }

  const opaque = (id: string, real: string): string => {
    const t = `"x-${createHash('sha1')
      .update(id + real)
      .digest('hex')
      .slice(0, 16)}"`;
    opaqueToReal.set(t, real);
    return t;
  };
  const mapTags = (h: string): string =>
    h
      .split(',')
      .map((t) => opaqueToReal.get(t.trim()) ?? t.trim())
      .join(', ');

  const rewriteObject = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || typeof (v as RemoteObject).id !== 'string') return;
    const r = v as RemoteObject;
    if (on('opaque-etags') && typeof r.eTag === 'string') r.eTag = opaque(r.id, r.eTag);
    if (on('no-child-count')) delete r.childCount;
  };

  const latencyMs = o.latencyMs ?? 200;
  /** With `latency`, the interface's requests wait before they are handled (the body waits unread meanwhile; a client gone meanwhile is not answered). */
  const handler: Handler = (req: IncomingMessage, res: ServerResponse) => {
    if (!on('latency') || !/\/(?:sdk\/)?v[23]\//.test(req.url ?? '')) return quirky(req, res);
    const t = setTimeout(() => quirky(req, res), latencyMs);
    res.once('close', () => clearTimeout(t));
  };

  const quirky: Handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const isApi = /\/(?:sdk\/)?v[23]\//.test(path);
    if (on('bursts') && isApi && Date.now() < outageUntil) {
      const status = [503, 502, 429][refusedCount++ % 3]!;
      const body = JSON.stringify({
        message: status === 429 ? 'Too Many Requests' : status === 502 ? 'Bad Gateway' : 'Service Unavailable',
        detail: 'the device is restarting',
      });
      res.writeHead(status, { 'Content-Type': 'application/json', 'Retry-After': '1', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (on('ignore-if-match')) delete req.headers['if-match'];
    if (on('opaque-etags')) {
      for (const h of ['if-match', 'if-none-match', 'if-range'] as const) {
        const v = req.headers[h];
        if (typeof v === 'string') req.headers[h] = mapTags(v);
      }
    }
    if (/\/files\/[^/]+\/content$/.test(path)) {
      // content is streamed: it passes untouched, only the header rules apply
      const passHead = res.writeHead.bind(res) as (s: number, h?: OutgoingHttpHeaders) => ServerResponse;
      res.writeHead = ((s: number, h?: OutgoingHttpHeaders) => passHead(s, headerRules(path, { ...h }))) as typeof res.writeHead;
      app(req, res);
      return;
    }
    const isSearch = path.endsWith('/filesSearch/text');
    const isListing = path.endsWith('/filesSearch/parents');
    if (on('short-last-page') && isSearch && (url.searchParams.get('pageToken') ?? '').startsWith('qend-')) {
      const body = '{"pageToken":"","matches":[]}';
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    // What a delete removes, to show it again afterwards.
    const delMatch = req.method === 'DELETE' ? /\/files\/([^/]+)$/.exec(path) : null;
    const deleting = delMatch ? store.byId(decodeURIComponent(delMatch[1]!)) : undefined;
    const before = deleting && !deleting.deleting ? store.wire(deleting) : undefined;

    const writeHead = res.writeHead.bind(res) as (s: number, h?: OutgoingHttpHeaders) => ServerResponse;
    const end = res.end.bind(res) as (b?: Buffer | string) => ServerResponse;
    let status = 200;
    let headers: OutgoingHttpHeaders = {};
    res.writeHead = ((s: number, h?: OutgoingHttpHeaders) => {
      status = s;
      headers = { ...h };
      return res;
    }) as typeof res.writeHead;
    res.end = ((chunk?: unknown) => {
      let body: Buffer = chunk === undefined || typeof chunk === 'function' ? Buffer.alloc(0) : Buffer.from(chunk as string | Buffer);
      if (before && (status === 202 || status === 204)) {
        const list = ghosts.get(before.parentID) ?? [];
        if (status === 202 && on('lingering-delete')) list.push({ obj: { ...before }, until: Date.now() + lingerMs });
        if (on('trashed')) list.push({ obj: { ...before, trashed: true } as RemoteObject, until: Infinity });
        ghosts.set(before.parentID, list);
      }
      if (status === 201 && on('bare-created')) {
        body = Buffer.alloc(0);
        delete headers['Content-Type'];
      }
      if ((status === 200 || status === 201) && (isListing || isSearch || /\/files(?:\/|$)|parentAndName/.test(path)))
        body = Buffer.from(rewriteBody(body.toString('utf8'), url, isListing, isSearch, rootOf(req)));
      if (headers['Content-Length'] !== undefined) headers['Content-Length'] = body.length;
      writeHead(status, headerRules(path, headers));
      return end(body);
    }) as typeof res.end;
    app(req, res);
  };

  /** The header rules: an object's eTag made opaque (`opaque-etags`), names in lower case (`lower-case-headers`). */
  function headerRules(path: string, h: OutgoingHttpHeaders): OutgoingHttpHeaders {
    let headers = h;
    const m = /\/files\/([^/]+)(?:\/(?:patch|content|resumable|resumable\/content))?$/.exec(path);
    if (on('opaque-etags') && typeof headers['ETag'] === 'string' && m) {
      const r = store.byId(decodeURIComponent(m[1]!));
      const real = r ? store.wire(r).eTag : undefined;
      if (r && real === headers['ETag']) headers['ETag'] = opaque(r.id, real);
    }
    if (on('lower-case-headers')) headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    return headers;
  }

  /** The row of the requesting user's root folder. */
  function rootOf(req: IncomingMessage): number | undefined {
    const t = bearer(req);
    const p = t === undefined ? undefined : authenticate(store, t);
    return p === undefined
      ? undefined
      : (store.db.prepare('SELECT root FROM users WHERE id = ?').pluck().get(p.userId) as number | undefined);
  }

  function rewriteBody(text: string, url: URL, isListing: boolean, isSearch: boolean, rootRow: number | undefined): string {
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return text;
    }
    if (isListing && Array.isArray(v['files'])) {
      const files = v['files'] as RemoteObject[];
      const ids = (url.searchParams.get('ids') ?? '').split(',').map((s) => s.trim());
      const rootId = rootRow === undefined ? undefined : store.index.ids[rootRow];
      if (v['pageToken'] === '') {
        const now = Date.now();
        const fieldList = url.searchParams
          .get('fields')
          ?.split(/[\s,]+/)
          .filter(Boolean);
        for (const id of ids) {
          const key = id === 'root' ? (rootId ?? id) : id;
          const list = (ghosts.get(key) ?? []).filter((g) => g.until > now);
          ghosts.set(key, list);
          // An object shown by the live tree again (undeleted, re-created id) is not a ghost.
          for (const g of list)
            if (!files.some((f) => f.id === g.obj.id)) files.push(pickFields({ ...g.obj }, fieldList) as unknown as RemoteObject);
        }
      }
      files.forEach(rewriteObject);
      if (on('no-files-key') && files.length === 0) delete v['files'];
    } else if (isSearch && Array.isArray(v['matches'])) {
      const matches = v['matches'] as { file: RemoteObject; fragments: unknown[] }[];
      const q = url.searchParams.get('q') ?? '';
      if (on('root-in-search') && (url.searchParams.get('pageToken') ?? '') === '') {
        const r = rootRow === undefined ? undefined : store.get(rootRow);
        const terms = fold(q).split(/\s+/).filter(Boolean);
        if (r && terms.length > 0 && terms.every((t: string) => fold(r.name).includes(t)))
          matches.unshift({ file: store.wire(r), fragments: [{ text: r.name, locations: [] }] });
      }
      for (const m of matches) rewriteObject(m.file);
      if (on('short-last-page') && v['pageToken'] === '' && matches.length > 0) v['pageToken'] = `qend-${matches.length}`;
    } else {
      rewriteObject(v);
    }
    return JSON.stringify(v);
  }

  return {
    handler,
    control: {
      active,
      outage: (ms) => {
        outageUntil = Date.now() + ms;
      },
      refused: () => refusedCount,
    },
    stop: () => timers.forEach((t) => clearInterval(t)),
  };
}
