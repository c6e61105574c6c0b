/**
 * The README's example queries find something in the demo library the app starts with
 * (the embedded demo: 2000 objects, seed 1, main/embedded/embedded-service.ts), and
 * "holliday" gets its "did you mean". Read from the README itself, so an edit there is
 * checked here: the plain words through the NAS's search, the command line's examples (filters
 * included, issue 25 point 13) through `nas-mirror search` on a mirror of that demo. On that
 * mirror, `ls`, `find` and `du` take a folder as a user names it (issue 25 point 16): a path
 * from the top, the path in the mirror folder, or a pasted id. Every command is bin/nas-mirror.js
 * in its own process, as a user runs it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../../app/model/remote-object.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { runBin, runBinWith, type CliRun } from '../../support/run-cli.js';

const readme = readFileSync('README.md', 'utf8');
const tryLine = /Try searching the demo for:([^\n]*\n[^\n]*)/.exec(readme)?.[1] ?? '';
const shown = [...tryLine.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((q) => q !== 'holliday');
const cliQueries = [...readme.matchAll(/nas-mirror search ("[^"]+"|'[^']+'|\S+) --state/g)].map((m) => m[1]!.replace(/^["']|["']$/g, ''));

let svc: TestService;
let client: ServiceClient;
let dir: string;
let state: string;
let mirror: string;
/** `nas-mirror ARGS --state STATE`, spawned. */
const nasMirror = (...args: string[]): Promise<CliRun> => runBin('nas-mirror.js', ...args, '--state', state);

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 2000, seed: 1 } });
  client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token() });
  dir = mkdtempSync(join(tmpdir(), 'readme-cli-'));
  state = join(dir, 'state');
  mirror = join(dir, 'mirror');
  const run = await runBinWith(
    'nas-mirror.js',
    ['run', '--device', svc.baseUrl, '--state', state, '--dir', mirror, '--token-env', 'NAS_TOKEN', '--once'],
    {
      env: { NAS_TOKEN: svc.token() },
    },
  );
  expect(run.code, run.err).toBe(0);
}, 120_000);
afterAll(async () => {
  client.close();
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the README example queries', () => {
  it('are there', () => {
    expect(shown.length).toBeGreaterThanOrEqual(4);
    expect(cliQueries.length).toBeGreaterThanOrEqual(2);
    expect(tryLine).toContain('`holliday`');
  });
  it('each finds something in the demo the app starts with', async () => {
    for (const q of [...shown, ...cliQueries.filter((c) => !/\w:/.test(c))]) {
      const page = await client.searchText(q, { limit: 5 });
      expect(page.matches.length, `README query ${q}`).toBeGreaterThan(0);
    }
    expect((await client.searchText('holliday', { limit: 5 })).matches).toHaveLength(0);
  });
  it('the command line examples, filters included, each find something offline in a mirror of that demo', async () => {
    expect(cliQueries.filter((c) => /\w:/.test(c)).length).toBeGreaterThanOrEqual(2);
    for (const q of cliQueries) {
      const r = await nasMirror('search', q);
      expect(r.code, r.err).toBe(0);
      expect(r.out, `README query ${q}`).not.toMatch(/^no match/m);
      expect(
        r.out
          .trim()
          .split('\n')
          .filter((l) => !/^(offline-only|more:|NAME )/.test(l)).length,
        `README query ${q}: ${r.out}`,
      ).toBeGreaterThan(0);
    }
  }, 120_000);
});

describe('ls, find and du take a folder as a user names it', () => {
  it('a path from the top, the path in the mirror folder, or a pasted id: the same answer', async () => {
    const photos = JSON.parse((await nasMirror('find', '/', 'Photos', '--json')).out) as RemoteObject;
    expect(photos.name).toBe('Photos');
    const names = [join(mirror, 'Photos'), '/Photos', photos.id];

    const ls = await nasMirror('ls', 'Photos');
    expect(ls.code, ls.err).toBe(0);
    expect(ls.out).toMatch(/^NAME +SIZE +MODIFIED +ID\n/);
    const child = ls.out.split('\n')[1]!.split(/ {2,}/)[0]!;
    expect(child.length).toBeGreaterThan(0);
    const found = await nasMirror('find', 'Photos', child);
    expect(found.code, found.err).toBe(0);
    expect(found.out).toContain(child);
    const du = await nasMirror('du', 'Photos');
    expect(du.code, du.err).toBe(0);
    expect(du.out).toMatch(/^SIZE +FILES +FOLDER\n[\d.,]+ [KMGT]?B +[\d,]+ +\/Photos\n/);

    for (const name of names) {
      expect({ name, ls: await nasMirror('ls', name) }).toEqual({ name, ls });
      expect({ name, find: await nasMirror('find', name, child) }).toEqual({ name, find: found });
      expect({ name, du: await nasMirror('du', name) }).toEqual({ name, du });
    }
    // typed in a folder of the mirror folder: from there (and a path from the top still works)
    const inPhotos = (...args: string[]): Promise<CliRun> =>
      runBinWith('nas-mirror.js', [...args, '--state', state], { cwd: join(mirror, 'Photos') });
    expect(await inPhotos('ls', '.')).toEqual(ls);
    expect(await inPhotos('du', 'Photos')).toEqual(du);
    // the top: `/`, nothing (du), or the mirror folder itself
    const top = await nasMirror('ls', '/');
    expect(top.out).toContain('Photos');
    expect(await nasMirror('ls', mirror)).toEqual(top);
    expect(await nasMirror('du', mirror)).toEqual(await nasMirror('du'));
    // what is not a folder of the mirror is said, with the command
    const none = await nasMirror('du', 'No/Such');
    expect(none).toMatchObject({ code: 1, out: '' });
    expect(none.err).toMatch(/^nas-mirror du: no folder "No\/Such" in this mirror/);
  }, 120_000);
});
