/**
 * Data-driven sync scenarios (test/scenarios/cases/*.json): an initial NAS tree, actions on
 * the real folder or the real service, and the expected NAS tree, local tree, mirror store
 * and offline index (every object found by its current name), and request counts. Each runs against the real service
 * on 127.0.0.1 with the real watcher; conditions are polled, never slept on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startRig, waitFor, type Rig } from '../integration/local/harness.js';
import type { FsTraits } from '../../main/local/fs-traits.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { openOfflineIndex } from '../../main/index/open-index.js';
import { isAppError } from '../../app/errors.js';

interface Scenario {
  name: string;
  traits?: FsTraits;
  /** EngineOptions.uploads (default on: new entries are created on the NAS). */
  uploads?: boolean;
  nas: string[];
  actions: ({ do: string } & Record<string, unknown>)[];
  expect: {
    nas: string[];
    local?: string[];
    localCount?: number;
    localOnly?: string[];
    renamedIds?: Record<string, string>;
    keptLocalContains?: string;
    requests?: Record<string, number>;
    conflicts?: number;
  };
}

const DIR = resolve(import.meta.dirname, 'cases');
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ file: f, s: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Scenario }));

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function nasTree(r: Rig): Promise<string[]> {
  const out: string[] = [];
  const queue: [string, string][] = [[r.svc.admin.rootId(), '']];
  while (queue.length) {
    const [id, prefix] = queue.shift()!;
    for await (const p of r.client.pages(id))
      for (const o of p.files) {
        const path = prefix + o.name;
        if (o.mimeType === FOLDER_MIME) {
          out.push(`${path}/`);
          queue.push([o.id, `${path}/`]);
        } else out.push(path);
      }
  }
  return out.sort();
}

function storeTree(r: Rig): string[] {
  const st = r.engine.core.store;
  return [...st.all()].map((o) => st.pathOf(o.id)!.join('/') + (o.mimeType === FOLDER_MIME ? '/' : '')).sort();
}

function localTree(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const n of readdirSync(join(root, prefix))) {
    if (prefix === '' && n === '.nas-mirror') continue;
    const rel = prefix + n;
    if (statSync(join(root, rel)).isDirectory()) out.push(`${rel}/`, ...localTree(root, `${rel}/`));
    else out.push(rel);
  }
  return out.sort();
}

function findContent(dir: string, text: string): boolean {
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) {
      if (findContent(p, text)) return true;
    } else if (readFileSync(p, 'utf8').includes(text)) return true;
  }
  return false;
}

describe('sync scenarios (data)', () => {
  it.each(cases)(
    '$file',
    async ({ s }) => {
      const ids = new Map<string, string>();
      rig = await startRig(
        (svc, root) => {
          for (const p of [...s.nas].sort()) {
            const dir = p.endsWith('/');
            const clean = dir ? p.slice(0, -1) : p;
            const i = clean.lastIndexOf('/');
            const parent = i < 0 ? root : ids.get(clean.slice(0, i))!;
            const name = clean.slice(i + 1);
            ids.set(clean, (dir ? svc.admin.createFolder(parent, name) : svc.admin.createFile(parent, name)).id);
          }
        },
        { ...(s.traits ? { traits: s.traits } : {}), ...(s.uploads !== undefined ? { uploads: s.uploads } : {}) },
      );
      const r = rig;
      // The offline index follows the mirror store through the applier, as in `nas-mirror run`.
      const opened = await openOfflineIndex(r.engine.core.store, r.state);
      r.engine.core.applier.onChanges((c) => opened.index.applyChanges(c));
      const at = (p: unknown): string => join(r.mirror, ...String(p).split('/'));
      r.mark();
      const own = { POST: 0, DELETE: 0 }; // the test's own NAS changes, not the engine's
      for (const a of s.actions) {
        switch (a.do) {
          case 'rename':
            renameSync(at(a['from']), at(a['to']));
            break;
          case 'delete':
            rmSync(at(a['path']), { recursive: true });
            break;
          case 'mkdir':
            mkdirSync(at(a['path']));
            break;
          case 'write':
            writeFileSync(at(a['path']), String(a['content']));
            break;
          case 'nas-rename':
            own.POST++;
            await r.client.patch(ids.get(String(a['path']))!, { name: String(a['to']) });
            break;
          case 'nas-move':
            own.POST++;
            await r.client.patch(ids.get(String(a['path']))!, { parentID: ids.get(String(a['into']))! });
            break;
          case 'nas-delete':
            own.DELETE++;
            await r.client.delete(ids.get(String(a['path']))!);
            break;
          case 'sync':
            await r.engine.syncNow();
            break;
          case 'wait-nas-name':
            await waitFor(() => r.svc.admin.get(ids.get(String(a['path']))!)?.name === a['name'], `NAS name ${String(a['name'])}`);
            break;
          case 'wait-local-only':
            await waitFor(() => r.engine.actions.localOnly().length >= Number(a['count']), 'local-only listed');
            break;
          case 'rename-mapped': {
            const id = ids.get(String(a['nasName']))!;
            const local = r.engine.core.model.pathOf(id)!;
            expect(local).not.toBe(a['nasName']);
            renameSync(at(local), at(a['to']));
            break;
          }
          default:
            throw new Error(`unknown action ${a.do}`);
        }
      }
      const renamedOk = (): boolean =>
        Object.entries(s.expect.renamedIds ?? {}).every(([from, to]) => r.svc.admin.get(ids.get(from)!)?.name === to);
      // A folder deleted (202) while nasTree walks it answers 404: the tree is still moving, look again.
      const nasSettled = async (): Promise<boolean> => {
        try {
          return JSON.stringify(await nasTree(r)) === JSON.stringify([...s.expect.nas].sort());
        } catch (e) {
          if (isAppError(e) && e.code === 'NotFound') return false;
          throw e;
        }
      };
      await waitFor(async () => renamedOk() && (await nasSettled()), `NAS tree ${JSON.stringify(s.expect.nas)}`);
      // new files listed on the NAS may still be going up: done when the creates journal is
      await waitFor(() => r.engine.core.creates.counts().open === 0, 'every new entry created on the NAS');
      await r.engine.drainOutbox();
      const mark = r.svc.requests().length;
      await r.engine.fullRescan();
      await r.engine.drainOutbox();
      if (s.expect.local)
        await waitFor(
          () => JSON.stringify(localTree(r.mirror)) === JSON.stringify([...s.expect.local!].sort()),
          `local tree ${JSON.stringify(s.expect.local)}`,
        ).catch(() => expect(localTree(r.mirror)).toEqual([...s.expect.local!].sort()));
      if (s.expect.localCount !== undefined) expect(localTree(r.mirror)).toHaveLength(s.expect.localCount);
      expect(storeTree(r)).toEqual([...s.expect.nas].sort());
      // index state: every mirrored object is found by its current name, offline
      for (const o of r.engine.core.store.all()) {
        if (!/^[A-Za-z0-9_.-]+$/.test(o.name)) continue;
        const hits = opened.index.search(o.name, { limit: 1000 }).matches.map((m) => m.file.id);
        expect({ name: o.name, found: hits.includes(o.id) }).toEqual({ name: o.name, found: true });
      }
      expect(await nasTree(r)).toEqual([...s.expect.nas].sort());
      expect(
        r.svc
          .requests()
          .slice(mark)
          .filter((q) => q.method !== 'GET'),
      ).toHaveLength(0); // settled: nothing more was sent
      for (const [m, n] of Object.entries(s.expect.requests ?? {}))
        expect({ method: m, n: r.count(m) - ((own as Record<string, number>)[m] ?? 0) }).toEqual({ method: m, n });
      if (s.expect.conflicts !== undefined) expect(r.engine.status().conflicts).toBe(s.expect.conflicts);
      if (s.expect.localOnly)
        expect(
          r.engine.actions
            .localOnly()
            .map((l) => l.path)
            .sort(),
        ).toEqual([...s.expect.localOnly].sort());
      if (s.expect.keptLocalContains)
        expect(findContent(join(r.mirror, '.nas-mirror', 'local-only'), s.expect.keptLocalContains)).toBe(true);
      for (const [from, to] of Object.entries(s.expect.renamedIds ?? {})) expect(r.svc.admin.get(ids.get(from)!)!.name).toBe(to);
    },
    60_000,
  );
});
