/**
 * The service as a process: CLI contract, SIGTERM, and an async delete interrupted by kill -9.
 * Every step waits on a condition (a line printed, a port that refuses, a row gone), never on
 * a fixed time: each process start costs ~2 s on a loaded 2-core machine, so independent CLI
 * checks run side by side and each case has room for its processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServiceProcess } from '../../../server/testing.js';
import { client } from './http.js';
import { checkStore } from './store-check.js';
import type { ListingPage, RemoteObject, SearchPage } from '../../../app/model/remote-object.js';
import { waitFor } from '../../support/wait.js';

const cli = (args: string[]) => spawnSync(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8' });
/** The same, without blocking: independent checks run side by side. */
const cliAsync = (args: string[]): Promise<{ status: number | null; stderr: string }> =>
  new Promise((res) => {
    const p = execFile(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8' }, (_e, _out, stderr) =>
      res({ status: p.exitCode, stderr }),
    );
  });
const until = (cond: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> => waitFor(cond, what, ms, 10);
/** True once nothing accepts connections on the port (the service stopped listening). */
const refuses = (host: string, port: number): Promise<boolean> =>
  new Promise((res) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      res(false);
    });
    s.once('error', () => res(true));
  });
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nas-proc-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('command line', () => {
  it('demo, user add, token, grant, serve + device.json, SIGTERM; bad input exits non-zero', async () => {
    expect(cli(['demo', '--data', dir, '--objects', '3000', '--seed', '5']).status).toBe(0);
    expect(cli(['user', 'add', 'bob', '--data', dir]).status).toBe(0);
    const dup = cli(['user', 'add', 'bob', '--data', dir]);
    expect(dup.status).not.toBe(0);
    expect(dup.stderr).toMatch(/already exists/);
    const tok = cli(['token', 'demo', '--scope', 'nas_read_write', '--data', dir]);
    expect(tok.status).toBe(0);
    const token = tok.stdout.trim();
    expect(token).toMatch(/^\S+$/);
    const bads = [
      ['frobnicate'],
      ['serve'],
      ['serve', '--data', dir, '--port', 'x'],
      ['token', 'demo', '--scope', 'admin', '--data', dir],
      ['token', 'nobody', '--scope', 'nas_read_only', '--data', dir],
      ['grant', 'bob', 'nope', 'ReadFile', '--data', dir],
      ['grant', 'bob', 'x', 'Everything', '--data', dir],
      ['demo', '--data', dir, '--objects', '-3'],
      ['import', '/definitely/not/here', '--user', 'demo', '--data', dir],
      ['serve', '--data', dir, '--bogus', '1'],
    ];
    const results = await Promise.all(bads.map((bad) => cliAsync(bad)));
    results.forEach((r, i) => {
      expect(r.status, bads[i]!.join(' ')).not.toBe(0);
      expect(r.stderr.length, bads[i]!.join(' ')).toBeGreaterThan(0);
    });
    expect(results[5]!.stderr).toMatch(/no object with id "nope"/);
    const proc = await spawnServiceProcess(dir);
    try {
      const device = JSON.parse(readFileSync(join(dir, 'device.json'), 'utf8')) as {
        network: { internalDNSName: string; proxyURL: string };
      };
      expect(device.network.internalDNSName).toBe(proc.baseUrl);
      expect(device.network.proxyURL).toBe(proc.baseUrl);
      const c = client(proc.baseUrl, token);
      const root = (await c.list('root')).body as ListingPage;
      expect(root.files.map((f) => f.name)).toContain('Photos');
      // grant through the CLI while the service runs: bob sees the folder at once
      const photos = root.files.find((f) => f.name === 'Photos')!;
      const bobToken = cli(['token', 'bob', '--scope', 'nas_read_only', '--data', dir]).stdout.trim();
      expect((await client(proc.baseUrl, bobToken).get(`/files/${photos.id}`)).status).toBe(404);
      expect(cli(['grant', 'bob', photos.id, 'ReadFile', '--data', dir]).status).toBe(0);
      expect((await client(proc.baseUrl, bobToken).get(`/files/${photos.id}`)).status).toBe(200);
    } finally {
      expect(await proc.stop()).toBe(0);
    }
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `
      const { spawn } = require('node:child_process');
      const p = spawn(process.execPath, ['bin/nas-service.js', 'serve', '--data', ${JSON.stringify(dir)}], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = ''; p.stdout.on('data', (d) => { out += d; if (out.includes('\\n')) p.kill('SIGTERM'); });
      p.on('exit', (code) => { process.stdout.write(JSON.stringify({ out, code })); });
    `,
      ],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out) as { out: string; code: number };
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n$/);
  }, 120_000); // ~17 CLI processes (10 of them side by side): 15-40 s on the shared 2-core machine under load
});

describe('clean stop', () => {
  it('SIGTERM lets an in-flight request finish, then exits 0', async () => {
    const token = cli(['token', 'demo', '--scope', 'nas_read_write', '--data', dir]).stdout.trim();
    const proc = await spawnServiceProcess(dir);
    const c = client(proc.baseUrl, token);
    const docs = (await c.pan('root', 'Documents')).body as RemoteObject;
    const { hostname, port } = new URL(proc.baseUrl);
    const body = JSON.stringify({ name: 'Documents renamed during stop' });
    // Send the headers and half the body, stop the service, then send the rest.
    const req = request({
      hostname,
      port,
      method: 'POST',
      path: `/sdk/v2/files/${docs.id}/patch`,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    });
    const answer = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await new Promise<void>((r) => req.once('socket', (s) => (s.connecting ? s.once('connect', () => r()) : r())));
    // a request on another connection answered: the service has read what came before it (the half request)
    expect((await c.get('/files/root')).status).toBe(200);
    const stopped = proc.stop();
    await until(() => refuses(hostname, Number(port)), 'the service to stop listening');
    req.end(body.slice(10));
    expect(await answer).toBe(204);
    expect(await stopped).toBe(0);
    const db = new Database(join(dir, 'service.db'), { readonly: true });
    expect((db.prepare('SELECT name FROM objects WHERE id = ?').get(docs.id) as { name: string }).name).toBe(
      'Documents renamed during stop',
    );
    db.close();
  }, 90_000);
});

describe('crash safety', () => {
  it('an async delete interrupted by kill -9 is completed after a restart, and never shows again', async () => {
    const token = cli(['token', 'demo', '--scope', 'nas_read_write', '--data', dir]).stdout.trim();
    let proc = await spawnServiceProcess(dir);
    let c = client(proc.baseUrl, token);
    const photos = (await c.pan('root', 'Photos')).body as RemoteObject;
    const db = new Database(join(dir, 'service.db'), { readonly: true });
    const count = () => (db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;
    const before = count();
    expect((await c.del(photos.id)).status).toBe(202);
    // kill as soon as the job committed something (or at once if it is already done)
    for (let i = 0; i < 400 && count() === before; i++) await new Promise((r) => setTimeout(r, 2));
    await proc.kill9();
    expect(checkStore(dir)).toEqual([]);
    proc = await spawnServiceProcess(dir);
    c = client(proc.baseUrl, token);
    expect((await c.get(`/files/${photos.id}`)).status).toBe(404);
    expect(((await c.list('root')).body as ListingPage).files.map((f) => f.name)).not.toContain('Photos');
    expect(((await c.search('IMG_', '&limit=1000')).body as SearchPage).matches.length).toBe(0);
    await until(
      () => (db.prepare('SELECT count(*) AS n FROM delete_jobs').get() as { n: number }).n === 0,
      'the interrupted delete to complete',
    );
    expect((db.prepare('SELECT count(*) AS n FROM delete_jobs').get() as { n: number }).n).toBe(0);
    expect((db.prepare('SELECT count(*) AS n FROM objects WHERE id = ?').get(photos.id) as { n: number }).n).toBe(0);
    expect(count()).toBeLessThan(before);
    db.close();
    expect(await proc.stop()).toBe(0);
    expect(checkStore(dir)).toEqual([]);
  }, 90_000);
});
