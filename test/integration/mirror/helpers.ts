/**
 * Shared by the mirror integration tests: a seeded generator, random tricky libraries
 * created in the REAL service through the harness, and a mirror (state dir, store, index,
 * applier, client) wired like the CLI does it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nameProblem } from '../../../app/model/names.js';
import type { RemoteObject } from '../../../app/model/remote-object.js';
import { ServiceClient, type ServiceClientOptions } from '../../../main/client/service-client.js';
import { openOfflineIndex, type OpenedIndex } from '../../../main/index/open-index.js';
import { ChangeApplier } from '../../../main/mirror/apply.js';
import type { RemoteChange } from '../../../main/mirror/changes.js';
import { MirrorStore } from '../../../main/mirror/store.js';
import { openStateDb, type Db } from '../../../main/state/db.js';
import type { TestService } from '../../../server/testing.js';
import { prng } from '../../../app/util/prng.js';

export const rng = prng;

export const pick = <T>(r: () => number, a: readonly T[]): T => a[Math.floor(r() * a.length)]!;

const WORDS = [
  'holiday',
  'Holiday',
  'HOLIDAY',
  'rome',
  'Rome',
  'img',
  'IMG',
  'DSC',
  'report',
  'Report',
  'notes',
  'ab',
  'aa',
  'a',
  'b',
  'x',
  '2041',
  '2019',
  '001',
  'İstanbul',
  'istanbul',
  'ışık',
  'Straße',
  'STRASSE',
  'Éléphant',
  'éléphant',
  'e\u0301le\u0301phant',
  'Σίσυφος',
  'ΣΊΣΥΦΟΣ',
  'Москва',
  'москва',
  '家族写真',
  '請求書',
  'مستند',
  '😀',
  '🎉party',
  'naïve',
  'NAÏVE',
  'ǅemal',
  'ﬁle',
  'Ⅻ',
  '١٢٣',
  'ǈ',
  'K',
  'Å',
  'å',
];
const SEPS = [
  '_',
  '.',
  '-',
  ' ',
  '  ',
  '(',
  ')',
  '[',
  ']',
  '#',
  '&',
  '+',
  ',',
  "'",
  '%',
  '~',
  '!',
  '@',
  '=',
  ';',
  '\t',
  '·',
  '—',
  '\u00a0',
  '\u200b',
];
const EXTS = ['.JPG', '.jpg', '.txt', '.pdf', '.mp4', '.tar.gz', '', '.CR2', '.HEIC', '.md'];
const CAMERAS: [string, string][] = [
  ['Canon', 'Canon EOS 5D Mark IV'],
  ['NIKON CORPORATION', 'NIKON D750'],
  ['Apple', 'iPhone 12 Pro'],
  ['SONY', 'ILCE-7M3'],
  ['İzmir Optik', 'Model ß'],
  ['samsung', 'SM-G991B'],
];

/** A random name: words and separators, sometimes long, always valid for the service. */
export function randomName(r: () => number): string {
  for (;;) {
    let s = '';
    const parts = 1 + Math.floor(r() * (r() < 0.1 ? 40 : 5));
    for (let i = 0; i < parts; i++) {
      if (i > 0 || r() < 0.1) s += pick(r, SEPS);
      s += pick(r, WORDS);
    }
    s += pick(r, EXTS);
    while (new TextEncoder().encode(s).length > 255) s = [...s].slice(0, -1).join('');
    if (!nameProblem(s) && s.trim() !== '') return s;
  }
}

/** Builds a random tree of about `n` objects under the demo user's root; returns the ids. */
export function buildRandomLibrary(svc: TestService, seed: number, n: number): { folders: string[]; files: string[] } {
  const r = rng(seed);
  const folders = ['root'];
  const files: string[] = [];
  const names = new Map<string, Set<string>>();
  const fresh = (parent: string): string => {
    const used = names.get(parent) ?? new Set<string>();
    names.set(parent, used);
    for (;;) {
      let name = randomName(r);
      // case-only siblings on purpose
      if (used.size > 0 && r() < 0.15) {
        const other = pick(r, [...used]);
        name = r() < 0.5 ? other.toUpperCase() : other.toLowerCase();
        if (nameProblem(name)) continue;
      }
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
  };
  for (let i = 0; i < n; i++) {
    const parent = pick(r, folders);
    if (r() < 0.12) {
      folders.push(svc.admin.createFolder(parent, fresh(parent)).id);
    } else if (r() < 0.4) {
      const [make, model] = pick(r, CAMERAS);
      const image = r() < 0.2 ? { cameraMake: make, width: 10 } : { cameraMake: make, cameraModel: model, width: 4000, height: 3000 };
      files.push(
        svc.admin.createFile(parent, fresh(parent), {
          mimeType: pick(r, ['image/jpeg', 'image/x-canon-cr2', 'image/heic']),
          image,
          size: Math.floor(r() * 1e7),
        }).id,
      );
    } else {
      files.push(
        svc.admin.createFile(parent, fresh(parent), { size: Math.floor(r() * 1e6), mTime: Date.UTC(2020, 0, 1) + Math.floor(r() * 1e10) })
          .id,
      );
    }
  }
  return { folders: folders.filter((f) => f !== 'root'), files };
}

export interface Mirror {
  dir: string;
  db: Db;
  store: MirrorStore;
  applier: ChangeApplier;
  opened: OpenedIndex;
  client: ServiceClient;
  changes: RemoteChange[];
  close(): void;
}

export async function openMirror(svc: TestService, clientOpts: Partial<ServiceClientOptions> = {}, dir?: string): Promise<Mirror> {
  const d = dir ?? mkdtempSync(join(tmpdir(), 'mirror-'));
  const db = openStateDb(d);
  const store = new MirrorStore(db);
  const opened = await openOfflineIndex(store, d);
  const applier = new ChangeApplier(store);
  const changes: RemoteChange[] = [];
  applier.onChanges((c) => {
    opened.index.applyChanges(c);
    changes.push(...c);
  });
  const client = new ServiceClient({
    baseUrl: svc.baseUrl,
    token: svc.token('nas_read_write'),
    backoffBaseMs: 1,
    backoffMaxMs: 20,
    ...clientOpts,
  });
  return {
    dir: d,
    db,
    store,
    applier,
    opened,
    client,
    changes,
    close: () => {
      client.close();
      db.close();
      if (!dir) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Every object of the demo user's tree as the service sees it (root excluded), by id. */
export async function serviceTree(client: ServiceClient): Promise<Map<string, RemoteObject>> {
  const out = new Map<string, RemoteObject>();
  const root = await client.get('root');
  const queue = [root.id];
  while (queue.length) {
    const f = queue.shift()!;
    for await (const page of client.pages(f)) {
      for (const o of page.files) {
        out.set(o.id, o);
        if (o.mimeType === 'application/x.service.dir') queue.push(o.id);
      }
    }
  }
  return out;
}

export function storeTree(store: MirrorStore): Map<string, RemoteObject> {
  const out = new Map<string, RemoteObject>();
  for (const o of store.all()) out.set(o.id, o);
  return out;
}
