/**
 * The command line as a contract, in-process against the real service: sync --once, then
 * search/ls/find answer offline with exactly the service's JSON; clear errors and exit codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../main/client/service-client.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { runCli, type CliRun } from '../../support/run-cli.js';

let svc: TestService;
let state: string;
let client: ServiceClient;

const cli = (...argv: string[]): Promise<CliRun> => runCli(argv, { token: svc.token('nas_read_only') });

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 3000, seed: 3 } });
  state = mkdtempSync(join(tmpdir(), 'cli-state-'));
  client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token() });
});
afterAll(async () => {
  client.close();
  await svc.stop();
  rmSync(state, { recursive: true, force: true });
});

describe('nas-mirror command line', () => {
  it('sync --once walks everything and prints a summary line', async () => {
    const r = await cli('sync', '--device', join(svc.dataDir, 'device.json'), '--state', state, '--token-env', 'NAS_TOKEN', '--once');
    expect(r.err).toContain('using the LAN address');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^sync complete: 3000 objects in \d+ folders \(\+3000 added, 0 updated, 0 removed\) in [\d.]+ s\n$/);
    const again = await cli('sync', '--device', join(svc.dataDir, 'device.json'), '--state', state, '--token-env', 'NAS_TOKEN', '--once');
    expect(again.out).toContain('(+0 added, 0 updated, 0 removed)');
  });

  it('search --json prints exactly the service response, page tokens included', async () => {
    for (const q of ['img', 'holiday rome', '"in rome"', 'canon', 'x', 'zzzzqqq']) {
      const r = await cli('search', q, '--state', state, '--json', '--limit', '7');
      expect(r.code).toBe(0);
      const offline = JSON.parse(r.out) as { pageToken: string };
      expect(offline).toEqual(await client.searchText(q, { limit: 7 }));
      if (offline.pageToken) {
        const next = await cli('search', q, '--state', state, '--json', '--limit', '7', '--page-token', offline.pageToken);
        expect(JSON.parse(next.out)).toEqual(await client.searchText(q, { limit: 7, pageToken: offline.pageToken }));
      }
    }
  });

  it('search prints a readable table with highlighted fragments', async () => {
    const r = await cli('search', 'holiday', '--state', state, '--limit', '3');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toMatch(/^NAME\s+SIZE\s+FOLDER\s+ALSO MATCHED$/);
    expect(r.out).toContain('[Holiday]');
    expect(r.out).toContain('more: --page-token ');
    // a match in the camera, not the name: the file's name first, then where it matched
    const canon = await cli('search', 'canon', '--state', state, '--limit', '50');
    const lines = canon.out
      .split('\n')
      .slice(1)
      .filter((l) => l.includes('camera'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).toMatch(/^\S.*\.(jpe?g|png|heic|cr2|nef|tiff?|dng|arw)\s+[\d.]+ (B|KB|MB|GB)\s+\/.*camera (make|model): .*\[Canon\]/i);
    }
  });

  it('piped into a reader that stops early (| head), it exits quietly', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['bin/nas-mirror.js', 'search', 'img', '--state', state, '--json', '--limit', '1000'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.once('data', () => child.stdout.destroy()); // like `head -c 10` closing the pipe
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(err).toBe('');
    expect(code).toBe(0);
  }, 30_000);

  it('ls and find answer like the service', async () => {
    const ls = await cli('ls', 'root', '--state', state, '--json');
    expect(JSON.parse(ls.out)).toEqual(await client.list('root'));
    const first = (JSON.parse(ls.out) as { files: { id: string; name: string }[] }).files[0]!;
    const find = await cli('find', 'root', first.name, '--state', state, '--json');
    expect(JSON.parse(find.out)).toEqual(await client.parentAndName('root', first.name));
    const human = await cli('ls', 'root', '--state', state);
    expect(human.out).toContain(first.name);
    // a path, as du and organize take (ids still accepted)
    expect(JSON.parse((await cli('ls', '/', '--state', state, '--json')).out)).toEqual(JSON.parse(ls.out));
    const folder = (JSON.parse(ls.out) as { files: { id: string; name: string; mimeType: string }[] }).files.find(
      (f) => f.mimeType === 'application/x.service.dir',
    )!;
    expect(JSON.parse((await cli('ls', `/${folder.name}/`, '--state', state, '--json')).out)).toEqual(await client.list(folder.id));
    expect(JSON.parse((await cli('ls', folder.id, '--state', state, '--json')).out)).toEqual(await client.list(folder.id));
    expect(JSON.parse((await cli('find', '/', first.name, '--state', state, '--json')).out)).toEqual(
      await client.parentAndName('root', first.name),
    );
  });

  it('fails clearly with non-zero exits', async () => {
    const missing = await cli('find', 'root', 'no such thing', '--state', state);
    expect(missing).toMatchObject({
      code: 1,
      err: 'nas-mirror find: no object named "no such thing" in the root folder (names are exact and case-sensitive)\n',
    });
    const noState = await cli('search', 'x', '--state', join(state, 'nope'));
    expect(noState.code).toBe(1);
    expect(noState.err).toContain('no mirror in');
    const badOpt = await cli('search', 'x', '--state', state, '--frobnicate');
    expect(badOpt.code).toBe(2);
    expect(badOpt.err).toContain('unknown option --frobnicate');
    const badQ = await cli('search', '""', '--state', state);
    expect(badQ.code).toBe(1);
    const noToken = await cli('sync', '--device', join(svc.dataDir, 'device.json'), '--state', state, '--token-env', 'UNSET_VAR', '--once');
    expect(noToken.code).toBe(1);
    expect(noToken.err).toContain('UNSET_VAR');
    const unknown = await cli('frob');
    expect(unknown.code).toBe(2);
  });
});
