/**
 * The issue-12 commands, in-process against the real service: `search` with operators
 * (offline-only said), `du` (totals equal the service's own sizes), and `organize`: a dry run
 * queues nothing, a real run queues one batch that `run --once` sends, `log` shows ONE
 * "organized" line, `undo` of it restores every name on the NAS; `organize --ids` and
 * `--ids-from FILE` plan and apply exactly the picked objects, an unknown id flagged.
 */
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../../app/model/remote-object.js';
import { formatCount } from '../../../app/util/human.js';
import { ServiceClient } from '../../../main/client/service-client.js';
import { startTestService, type TestService } from '../../../server/testing.js';
import { runBin, runCli, type CliRun } from '../../support/run-cli.js';
import { serviceTree } from '../mirror/helpers.js';

let svc: TestService;
let base: string;
let client: ServiceClient;
let tree: Map<string, RemoteObject>;
const state = (): string => join(base, 'state');

const cli = (...argv: string[]): Promise<CliRun> => runCli(argv, { token: svc.token() });
/** bin/nas-mirror.js in its own process, as a user runs it. */
const nasMirror = (...argv: string[]): Promise<CliRun> => runBin('nas-mirror.js', ...argv);
/** Words of the protocol and the engine a user never reads (issue 25, point 6): they stay in --details and the logs. */
const JARGON = /inverse patch|If-Match|eTag|\b412\b|inode|re-based|\(queued #|[a-z]\(s\)/;
const runOnce = (): Promise<{ code: number; out: string; err: string }> =>
  cli('run', '--device', svc.baseUrl, '--state', state(), '--dir', join(base, 'mirror'), '--token-env', 'NAS_TOKEN', '--once');

beforeAll(async () => {
  svc = await startTestService({ demo: { objects: 1500, seed: 7 } });
  base = mkdtempSync(join(tmpdir(), 'cli-organize-'));
  client = new ServiceClient({ baseUrl: svc.baseUrl, token: svc.token() });
  expect((await runOnce()).code).toBe(0);
  tree = await serviceTree(client);
}, 120_000);
afterAll(async () => {
  client.close();
  await svc.stop();
  rmSync(base, { recursive: true, force: true });
});

describe('nas-mirror search with operators, du, organize', () => {
  it('search with operators says offline-only and narrows the service answer', async () => {
    const r = await cli('search', 'IMG ext:jpg date:2021', '--state', state(), '--limit', '1000', '--json');
    expect(r.code).toBe(0);
    const page = JSON.parse(r.out) as { offlineOnly: boolean; matches: { file: RemoteObject }[] };
    expect(page.offlineOnly).toBe(true);
    const text = await client.searchText('IMG', { limit: 1000 });
    const want = text.matches
      .map((m) => m.file)
      .filter((o) => /\.jpg$/i.test(o.name) && (o.image?.date ?? o.mTime).startsWith('2021'))
      .map((o) => o.id);
    expect(page.matches.map((m) => m.file.id)).toEqual(want);
    const human = await cli('search', 'IMG ext:jpg', '--state', state(), '--limit', '3');
    expect(human.out).toMatch(/^offline-only \(the NAS has no operators\): ext: jpg\n/);
    const bad = await cli('search', 'IMG size:huge', '--state', state());
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('size:huge is not a size');
  });

  it('du totals equal the sizes the service reports', async () => {
    const r = await cli('du', '--state', state(), '--json', '--depth', '1');
    expect(r.code).toBe(0);
    const du = JSON.parse(r.out) as {
      bytes: number;
      files: number;
      folders: { path: string; bytes: number }[];
      byKind: { key: string; files: number }[];
    };
    const files = [...tree.values()].filter((o) => o.mimeType !== 'application/x.service.dir');
    expect(du.files).toBe(files.length);
    expect(du.bytes).toBe(files.reduce((s, o) => s + (o.size ?? 0), 0));
    expect(du.byKind.reduce((s, k) => s + k.files, 0)).toBe(files.length);
    const photos = [...tree.values()].find((o) => o.name === 'Photos' && o.parentID === svc.admin.rootId())!;
    const under = (o: RemoteObject): boolean => {
      for (let p = tree.get(o.parentID); p; p = tree.get(p.parentID)) if (p.id === photos.id) return true;
      return o.parentID === photos.id;
    };
    expect(du.folders.find((f) => f.path === '/Photos')!.bytes).toBe(files.filter(under).reduce((s, o) => s + (o.size ?? 0), 0));
    const human = await cli('du', 'Photos', '--state', state());
    expect(human.out).toMatch(/\/Photos\n/);
    expect(human.out).toContain('by kind: photo');
    expect((await cli('du', 'No/Such', '--state', state())).code).toBe(1);
  });

  it('organize: dry run, then one batch sent by the engine, one log line, one undo', async () => {
    const q = 'IMG ext:jpg date:2021';
    const dry = await cli('organize', q, '--state', state(), '--rename', '{date:YYYY-MM-DD} {counter:3}.{ext:lower}', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/(\d+) selected: \1 to change, 0 unchanged, 0 collisions/);
    expect(dry.out).toContain('dry run: nothing was queued');
    const json = JSON.parse(
      (await cli('organize', q, '--state', state(), '--rename', '{date:YYYY-MM-DD} {counter:3}.{ext:lower}', '--json', '--dry-run')).out,
    ) as { items: { id: string; to: string; from: string }[] };
    const missing = await cli('organize', q, '--state', state(), '--move', 'Photos/{date:YYYY}/Sorted', '--dry-run');
    expect(missing.out).toContain('/Photos/2021/Sorted');
    expect((await cli('organize', q, '--state', state())).code).toBe(2);
    const real = await cli('organize', q, '--state', state(), '--rename', '{date:YYYY-MM-DD} {counter:3}.{ext:lower}');
    expect(real.out).toMatch(/queued as organize batch \d+/);
    expect((await runOnce()).code).toBe(0);
    for (const it of json.items) expect(svc.admin.get(it.id)!.name).toBe(it.to.split('/').pop());
    const log = JSON.parse((await cli('log', '--state', state(), '--json', '--limit', '500')).out) as {
      seq?: number;
      id?: string;
      kind: string;
    }[];
    const organized = log.filter((a) => a.kind === 'organized');
    expect(organized).toHaveLength(1);
    expect(log.filter((a) => a.kind === 'sent')).toHaveLength(0);
    const id = String(organized[0]!.seq ?? organized[0]!.id);
    // undo, spawned as a user runs it: plain words, no protocol's (issue 25, point 6)
    const undo = await nasMirror('undo', id, '--state', state());
    expect(undo.code, undo.err).toBe(0);
    const n = formatCount(json.items.length);
    expect(undo.out).toBe(
      `Undo of #${id} (Organized ${n} items: rename "{date:YYYY-MM-DD} {counter:3}.{ext:lower}") queued: ` +
        `the ${n} items go back as they were when the engine runs next (the app, or "nas-mirror run"; "nas-mirror log" says when it is done)\n`,
    );
    expect(undo.out + undo.err).not.toMatch(JARGON);
    expect((await runOnce()).code).toBe(0);
    for (const it of json.items) expect(svc.admin.get(it.id)!.name).toBe(it.from.split('/').pop());
    const again = await nasMirror('undo', id, '--state', state());
    expect(again.err).toContain('already undone');
    expect(again.err).not.toMatch(JARGON);
  }, 120_000);

  it('undo of a rename, spawned: plain words, the name back on the NAS', async () => {
    const mirror = join(base, 'mirror');
    const file = readdirSync(join(mirror, 'Documents'), { recursive: true, withFileTypes: true }).find((d) => d.isFile())!;
    const { name, parentPath: folder } = file;
    const { id } = JSON.parse((await cli('find', relative(mirror, folder), name, '--state', state(), '--json')).out) as { id: string };
    renameSync(join(folder, name), join(folder, `renamed ${name}`));
    expect((await runOnce()).code).toBe(0);
    const log = JSON.parse((await cli('log', '--state', state(), '--json', '--limit', '50')).out) as { seq: number; kind: string }[];
    const seq = String(log.find((a) => a.kind === 'renamed')!.seq);
    const undo = await nasMirror('undo', seq, '--state', state());
    expect(undo.code, undo.err).toBe(0);
    expect(undo.out).toBe(
      `Undo of #${seq} (Renamed “${name}” to “renamed ${name}”) queued: it goes back as it was when the engine runs next ` +
        '(the app, or "nas-mirror run"; "nas-mirror log" says when it is done)\n',
    );
    expect(undo.out + undo.err).not.toMatch(JARGON);
    expect((await runOnce()).code).toBe(0);
    expect(svc.admin.get(id)!.name).toBe(name);
    const notUndoable = await nasMirror('undo', String(log.find((a) => a.kind === 'remote-added')!.seq), '--state', state());
    expect(notUndoable.code).toBe(1);
    expect(notUndoable.err).toMatch(
      /^nas-mirror undo: #\d+ \(.+ from the NAS\) is not a rename, a move or an organize batch: only those can be undone\n$/,
    );
  }, 120_000);

  it('organize --ids / --ids-from: exactly the picked objects, in order, an unknown id flagged', async () => {
    const jpgs = [...tree.values()].filter((o) => /\.jpe?g$/i.test(o.name) && svc.admin.get(o.id)).slice(0, 3);
    expect(jpgs).toHaveLength(3);
    const [a, b, c] = jpgs.map((o) => svc.admin.get(o.id)!);
    const file = join(base, 'ids.txt');
    writeFileSync(file, `${c!.id}\n\nno-such-id\n`);
    const args = ['--ids', `${a!.id},${b!.id}`, '--ids-from', file, '--state', state(), '--rename', 'sel {counter}.{ext:lower}'];
    const dry = JSON.parse((await cli('organize', ...args, '--dry-run', '--json')).out) as {
      items: { id: string; status: string; to: string }[];
      counts: { ok: number; invalid: number };
    };
    expect(dry.items.map((i) => [i.id, i.status])).toEqual([
      [a!.id, 'ok'],
      [b!.id, 'ok'],
      [c!.id, 'ok'],
      ['no-such-id', 'invalid'],
    ]);
    const human = await cli('organize', ...args, '--dry-run');
    expect(human.out).toContain('id no-such-id');
    expect(human.out).toMatch(/4 selected: 3 to change, 0 unchanged, 0 collisions, 1 invalid names/);
    expect((await cli('organize', 'IMG', '--ids', a!.id, '--state', state(), '--rename', 'x')).code).toBe(2);
    expect((await cli('organize', '--ids', ',', '--state', state(), '--rename', 'x')).code).toBe(2);
    const real = await cli('organize', ...args);
    expect(real.out).toMatch(/queued as organize batch \d+: the running engine \(nas-mirror run, or the app\) sends 3 changes/);
    expect((await runOnce()).code).toBe(0);
    expect([a, b, c].map((o) => svc.admin.get(o!.id)!.name)).toEqual(dry.items.slice(0, 3).map((i) => i.to.split('/').pop()));
    const log = JSON.parse((await cli('log', '--state', state(), '--json', '--limit', '500')).out) as {
      seq?: number;
      id?: string;
      kind: string;
      reason?: string;
    }[];
    const last = log.find((x) => x.kind === 'organized')!;
    expect(last.reason).toContain('"4 selected objects"'); // as picked, the unknown one included
    expect((await cli('undo', String(last.seq ?? last.id), '--state', state())).code).toBe(0);
    expect((await runOnce()).code).toBe(0);
    expect([a, b, c].map((o) => svc.admin.get(o!.id)!.name)).toEqual([a!.name, b!.name, c!.name]);
  }, 120_000);
});
