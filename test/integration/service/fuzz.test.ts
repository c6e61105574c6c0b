/**
 * Fuzz: thousands of random and malformed requests (bounded count, fixed seed), then the
 * store must be consistent, no answer may be a 5xx, and the service must still answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestService, type TestService } from '../../../server/testing.js';
import { checkStore } from './store-check.js';
import { prng } from '../../../app/util/prng.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 1500, seed: 11 } });
});
afterAll(async () => {
  await svc.stop();
});

describe('fuzz', () => {
  it('survives random and malformed requests', async () => {
    const rnd = prng(42);
    const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
    const ids = (svc.service.store.db.prepare('SELECT id FROM objects ORDER BY row LIMIT 400').all() as { id: string }[]).map((r) => r.id);
    const good = svc.token();
    const ro = svc.token('nas_read_only');
    const junk = (): string =>
      pick([
        '',
        ' ',
        '%',
        '%ZZ',
        '%E0%A4%A',
        '😀',
        'a/b',
        '..',
        '.',
        '\u0000',
        'x'.repeat(300),
        '"quoted"',
        'root',
        'null',
        '[]',
        '{}',
        '-1',
        '1e309',
        'é'.repeat(200),
        '%00',
      ]);
    const anId = (): string => (rnd() < 0.7 ? pick(ids) : junk());
    const value = (depth = 0): unknown => {
      const r = rnd();
      if (r < 0.2) return junk();
      if (r < 0.3) return Math.floor(rnd() * 1e6) - 5e5;
      if (r < 0.35) return rnd() < 0.5;
      if (r < 0.4) return null;
      if (r < 0.45 && depth < 3) return [value(depth + 1), value(depth + 1)];
      if (r < 0.5 && depth < 3) return { name: value(depth + 1) };
      if (r < 0.6) return pick(ids);
      if (r < 0.7) return new Date(Math.floor(rnd() * 4e12)).toISOString();
      return pick([
        'mac',
        'linux',
        'windows',
        'none',
        'text/plain',
        'application/x.service.dir',
        'image/jpeg',
        `fz-${Math.floor(rnd() * 50)}.txt`,
        'root',
      ]);
    };
    const body = (): string | undefined => {
      const r = rnd();
      if (r < 0.1) return undefined;
      if (r < 0.2) return junk();
      if (r < 0.25) return '{"name":' + '['.repeat(50);
      if (r < 0.3) return 'x'.repeat(70_000);
      const o: Record<string, unknown> = {};
      for (const k of ['name', 'parentID', 'mimeType', 'hidden', 'cTime', 'mTime', 'junk']) if (rnd() < 0.35) o[k] = value();
      return JSON.stringify(o);
    };
    const query = (): string => {
      const parts: string[] = [];
      for (const k of ['q', 'ids', 'parentID', 'name', 'limit', 'pageToken', 'fields', 'orderBy', 'order', 'hidden', 'pretty']) {
        if (rnd() < 0.4) parts.push(`${k}=${rnd() < 0.5 ? encodeURIComponent(String(value())) : junk()}`);
      }
      return parts.join('&');
    };
    const statuses = new Map<number, number>();
    let bad: string[] = [];
    const one = async (): Promise<void> => {
      const prefix = pick(['/sdk/v2', '/v2', '/v3', '', '/sdk/v2/']);
      const path = pick([
        `/files/${encodeURIComponent(anId())}`,
        `/files/${anId()}/patch`,
        '/filesSearch/text',
        '/filesSearch/parents',
        '/filesSearch/parentAndName',
        `/files/${anId()}/x/y`,
        '/filesSearch/other',
      ]);
      const method = pick(['GET', 'GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS']);
      const headers: Record<string, string> = {};
      const auth = rnd();
      if (auth < 0.8) headers['Authorization'] = `Bearer ${rnd() < 0.85 ? good : ro}`;
      else if (auth < 0.9) headers['Authorization'] = pick(['Bearer', 'Basic abc', `Bearer ${good}x`, 'bearer  ' + good]);
      if (rnd() < 0.2) headers['If-Match'] = pick(['*', '"Ag"', '"BA"', 'garbage', '"x", "Ag"', 'W/"Ag"']);
      if (rnd() < 0.1) headers['If-None-Match'] = pick(['*', '"Ag"', 'garbage']);
      if (rnd() < 0.3) headers['Content-Type'] = pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']);
      const b = method === 'GET' || method === 'HEAD' ? undefined : body();
      let url = svc.baseUrl + prefix + path;
      if (rnd() < 0.8) url += '?' + query();
      let res: Response;
      try {
        res = await fetch(url, { method, headers, body: b });
      } catch {
        return; // the client refused to send it
      }
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) bad.push(`${method} ${url} -> ${res.status} ${text}`);
      if (res.status >= 400 && method !== 'HEAD') {
        try {
          const j = JSON.parse(text) as { message?: unknown };
          if (typeof j.message !== 'string') bad.push(`${method} ${url} -> ${res.status} without message`);
        } catch {
          bad.push(`${method} ${url} -> ${res.status} non-JSON ${text.slice(0, 80)}`);
        }
      }
    };
    const N = 3000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < N) await one();
      }),
    );
    // raw garbage on the socket
    for (const raw of [
      'GARBAGE\r\n\r\n',
      'GET /sdk/v2/files/x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v2/files/x/patch HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{',
    ]) {
      await new Promise<void>((resolve) => {
        const s = connect(Number(new URL(svc.baseUrl).port), '127.0.0.1', () => s.end(raw));
        s.on('data', () => undefined);
        s.on('close', () => resolve());
        s.on('error', () => resolve());
        s.setTimeout(2000, () => s.destroy());
      });
    }
    bad = bad.slice(0, 10);
    expect(bad).toEqual([]);
    expect((statuses.get(200) ?? 0) + (statuses.get(204) ?? 0)).toBeGreaterThan(20);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    await svc.admin.drainDeletes();
    expect(checkStore(svc.dataDir)).toEqual([]);
    const r = await fetch(`${svc.baseUrl}/sdk/v2/filesSearch/parents?ids=root`, { headers: { Authorization: `Bearer ${good}` } });
    expect(r.status).toBe(200);
  });
});
