/**
 * A NAS change to a downloaded file, alone on a real temp folder: a rename keeps the content
 * (the record follows the new eTag), a new version empties a file still as downloaded (same
 * inode, the NAS time) unless it is kept (pinned: downloaded over later), and a file the user
 * changed is kept, as the user's content.
 */
import { appendFileSync, lstatSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteObject } from '../../app/model/remote-object.js';
import { realDisk } from './disk.js';
import { followHeldContent } from './held-content.js';
import type { ActivityInput } from './local-store.js';
import { LocalModel } from './model.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = '2021-01-01T00:00:00.000Z';
const obj = (over: Partial<RemoteObject>): RemoteObject => ({
  id: 'f1',
  parentID: 'root',
  eTag: '"v1"',
  mimeType: 'text/plain',
  name: 'a.txt',
  mTime: T0,
  cTime: T0,
  hidden: 'none',
  size: 5,
  ...over,
});

interface World {
  model: LocalModel;
  file: string;
  acts: ActivityInput[];
  follow: (o: RemoteObject) => string | undefined;
}

function setUp(pinned = false): World {
  const root = mkdtempSync(join(tmpdir(), 'nm-held-'));
  dirs.push(root);
  const file = join(root, 'a.txt');
  writeFileSync(file, 'hello');
  utimesSync(file, Date.parse(T0) / 1000, Date.parse(T0) / 1000);
  const st = lstatSync(file, { bigint: true });
  const ino = st.ino.toString();
  const model = new LocalModel('root', [
    {
      id: 'root',
      kind: 'dir',
      lparent: '',
      lname: '',
      ino: '1',
      filled: false,
      rparent: '',
      rname: '',
      etag: '"r"',
      mtime: '',
      setag: '"r"',
      state: 'ok',
    },
    {
      id: 'f1',
      kind: 'file',
      lparent: 'root',
      lname: 'a.txt',
      ino,
      filled: false,
      rparent: 'root',
      rname: 'a.txt',
      etag: '"v1"',
      mtime: T0,
      setag: '"v1"',
      state: 'ok',
      content: { etag: '"v1"', nasMtime: T0, size: 5, mtimeMs: Number(st.mtimeMs), ino },
    },
  ]);
  const acts: ActivityInput[] = [];
  const follow = (o: RemoteObject): string | undefined =>
    followHeldContent({ root, model, disk: realDisk, object: () => o, activity: (a) => acts.push(a), pinned: () => pinned }).get('f1');
  return { model, file, acts, follow };
}

describe('followHeldContent', () => {
  it('a new eTag with the same size and time (a rename, a move) keeps the content and follows the eTag', () => {
    const { model, file, follow } = setUp();
    expect(follow(obj({ eTag: '"v2"', name: 'b.txt' }))).toBe('renamed');
    expect(model.get('f1')!.content?.etag).toBe('"v2"');
    expect(readFileSync(file, 'utf8')).toBe('hello');
    expect(follow(obj({ eTag: '"v2"' }))).toBe('same');
  });

  it('a new version empties a file still as downloaded, in place, with the NAS time', () => {
    const { model, file, acts, follow } = setUp();
    const ino = lstatSync(file).ino;
    expect(follow(obj({ eTag: '"v3"', size: 9, mTime: '2022-02-02T02:02:02.000Z' }))).toBe('emptied');
    expect([lstatSync(file).size, lstatSync(file).ino, lstatSync(file).mtimeMs]).toEqual([0, ino, Date.parse('2022-02-02T02:02:02.000Z')]);
    expect(model.get('f1')).toMatchObject({ filled: false, content: undefined, ino: String(ino) });
    expect(acts.map((a) => a.kind)).toEqual(['remote-content']);
    expect(model.withContent.size).toBe(0);
  });

  it("a file the user changed is kept as it is: the user's content (local only)", () => {
    const { model, file, acts, follow } = setUp();
    appendFileSync(file, ' world');
    expect(follow(obj({ eTag: '"v3"', size: 9, mTime: '2022-02-02T02:02:02.000Z' }))).toBe('kept-edit');
    expect(readFileSync(file, 'utf8')).toBe('hello world');
    expect(model.get('f1')).toMatchObject({ filled: true, content: undefined });
    expect(acts.map((a) => a.kind)).toEqual(['local-only']);
  });

  it('a new version of a kept (pinned) file leaves it as it is until the new one is downloaded over it', () => {
    const { model, file, acts, follow } = setUp(true);
    expect(follow(obj({ eTag: '"v3"', size: 9, mTime: '2022-02-02T02:02:02.000Z' }))).toBe('refresh');
    expect(readFileSync(file, 'utf8')).toBe('hello');
    expect(model.get('f1')!.content?.etag).toBe('"v1"');
    expect(acts).toEqual([]);
    // a new version that is empty: the placeholder is the whole of it
    expect(follow(obj({ eTag: '"v4"', size: 0, mTime: '2022-02-02T02:02:02.000Z' }))).toBe('emptied');
    expect(lstatSync(file).size).toBe(0);
  });
});
