/**
 * The download step alone on a real temp folder with a fake content reader: resume from a
 * partial of the same version, a new start for another version, a whole body (200) restarts,
 * short or other-version bytes never reach the placeholder, and only an unchanged placeholder
 * is replaced.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentRead, ContentTarget } from '../client/content-read.js';
import { realDisk } from './disk.js';
import { AppError } from '../../app/errors.js';
import {
  adoptLandings,
  commitDownload,
  downloadsDir,
  fetchContent,
  partialFileOf,
  prepareLanding,
  RECORD_FROM,
  sweepPartials,
  type DownloadRecords,
  type WantedVersion,
} from './download.js';
import type { DownloadRow } from './local-store.js';
import { LocalModel } from './model.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const root = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'nm-download-'));
  dirs.push(d);
  mkdirSync(join(d, '.nas-mirror'));
  return d;
};
const records = (): DownloadRecords & { rows: Map<string, DownloadRow> } => {
  const rows = new Map<string, DownloadRow>();
  return {
    rows,
    download: (id) => rows.get(id),
    setDownload: (d) => {
      rows.set(d.id, d);
    },
    removeDownload: (id) => {
      rows.delete(id);
    },
  };
};
const DATA = Buffer.from('0123456789abcdefghij');
const want: WantedVersion = { id: 'f1', etag: '"v1"', size: DATA.length, mtime: '2021-01-01T00:00:00.000Z' };

/** A NAS that answers from `from` (206) or whole (200), with this eTag. */
const nas = (etag = '"v1"', body = DATA, seen: number[] = []) => ({
  async readContent(_id: string, t: ContentTarget, o: { ifRange?: string | undefined }): Promise<ContentRead> {
    const from = t.offset();
    seen.push(from);
    const whole = from === 0 || o.ifRange !== etag;
    if (whole) await t.restart();
    await t.write(body.subarray(whole ? 0 : from));
    return { status: whole ? 200 : 206, eTag: etag, total: body.length };
  },
});

describe('fetchContent', () => {
  it('resumes a partial of the same version from its length, and starts another version again', async () => {
    const r = root();
    const rec = records();
    mkdirSync(downloadsDir(r));
    const part = join(downloadsDir(r), partialFileOf('f1'));
    writeFileSync(part, DATA.subarray(0, 7));
    rec.setDownload({ id: 'f1', etag: '"v1"', size: DATA.length, file: partialFileOf('f1') });
    const seen: number[] = [];
    expect(await fetchContent({ root: r, client: nas('"v1"', DATA, seen), records: rec, want })).toEqual({
      partial: part,
      recorded: true,
      synced: true,
    });
    expect(seen).toEqual([7]);
    expect(readFileSync(part).equals(DATA)).toBe(true);
    // a partial of another version is not resumed
    writeFileSync(part, 'zzzz');
    rec.setDownload({ id: 'f1', etag: '"v0"', size: DATA.length, file: partialFileOf('f1') });
    const seen2: number[] = [];
    await fetchContent({ root: r, client: nas('"v1"', DATA, seen2), records: rec, want });
    expect(seen2).toEqual([0]);
    expect(readFileSync(part).equals(DATA)).toBe(true);
    expect(rec.rows.get('f1')!.etag).toBe('"v1"');
  });

  it('drops the partial when the NAS sends another version or too few bytes', async () => {
    const r = root();
    const rec = records();
    await expect(fetchContent({ root: r, client: nas('"v2"'), records: rec, want })).rejects.toMatchObject({ code: 'ContentMismatch' });
    expect(existsSync(join(downloadsDir(r), partialFileOf('f1')))).toBe(false);
    expect(rec.rows.size).toBe(0);
    await expect(fetchContent({ root: r, client: nas('"v1"', DATA.subarray(0, 5)), records: rec, want })).rejects.toMatchObject({
      code: 'ContentMismatch',
    });
    expect(existsSync(join(downloadsDir(r), partialFileOf('f1')))).toBe(false);
  });

  it('never writes through a linked private folder', async () => {
    const r = mkdtempSync(join(tmpdir(), 'nm-download-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'nm-elsewhere-'));
    dirs.push(r, elsewhere);
    symlinkSync(elsewhere, join(r, '.nas-mirror'));
    await expect(fetchContent({ root: r, client: nas(), records: records(), want })).rejects.toMatchObject({ code: 'DiskError' });
  });
});

describe('fetchContent: records and crashes', () => {
  const BIG = Buffer.from(Array.from({ length: RECORD_FROM * 3 }, (_, i) => (i * 13 + (i >> 9)) & 0xff));
  const bigWant: WantedVersion = { ...want, size: BIG.length };
  /** A NAS that sends `body` from the offset in 64 KiB chunks; the connection dies (like a crash of the engine) after `dieAfter` bytes. */
  const chunky = (body: Buffer, dieAfter = Infinity, seen: number[] = []) => ({
    async readContent(_id: string, t: ContentTarget): Promise<ContentRead> {
      const from = t.offset();
      seen.push(from);
      if (from === 0) await t.restart();
      for (let at = from; at < body.length; at += 65_536) {
        if (at - from >= dieAfter) throw new AppError('NetworkError', 'the engine died here');
        await t.write(body.subarray(at, Math.min(at + 65_536, body.length)));
      }
      return { status: from === 0 ? 200 : 206, eTag: '"v1"', total: body.length };
    },
  });

  it('a small file has no record: a crash leaves a partial the next start sweeps, and the placeholder as it was', async () => {
    const r = root();
    const rec = records();
    writeFileSync(join(r, 'a.bin'), '');
    const ino = lstatSync(join(r, 'a.bin')).ino;
    const got = await fetchContent({ root: r, client: nas(), records: rec, want });
    expect(got.recorded).toBe(false);
    expect(rec.rows.size).toBe(0);
    // the engine dies before the commit: the partial is whole, the placeholder untouched (nothing renamed yet)
    expect(readFileSync(got.partial).equals(DATA)).toBe(true);
    expect([lstatSync(join(r, 'a.bin')).size, lstatSync(join(r, 'a.bin')).ino]).toEqual([0, ino]);
    sweepPartials(r, [...rec.rows.values()], realDisk);
    expect(existsSync(got.partial)).toBe(false);
    expect(lstatSync(join(r, 'a.bin')).size).toBe(0);
  });

  it('a larger file is recorded once RECORD_FROM bytes are in: a crash after that resumes, one before starts again', async () => {
    const r = root();
    const rec = records();
    const part = join(downloadsDir(r), partialFileOf('f1'));
    // dies before RECORD_FROM: no record, the partial is swept at the next start
    await expect(fetchContent({ root: r, client: chunky(BIG, 65_536), records: rec, want: bigWant })).rejects.toMatchObject({
      code: 'NetworkError',
    });
    expect(rec.rows.size).toBe(0);
    sweepPartials(r, [...rec.rows.values()], realDisk);
    expect(existsSync(part)).toBe(false);
    // dies after it: the record names this version, the partial holds what came, the next try asks for the rest
    await expect(fetchContent({ root: r, client: chunky(BIG, RECORD_FROM + 65_536), records: rec, want: bigWant })).rejects.toMatchObject({
      code: 'NetworkError',
    });
    expect(rec.rows.get('f1')).toMatchObject({ etag: '"v1"', size: BIG.length, file: partialFileOf('f1') });
    sweepPartials(r, [...rec.rows.values()], realDisk);
    const held = lstatSync(part).size;
    expect(held).toBe(RECORD_FROM + 65_536);
    const seen: number[] = [];
    const got = await fetchContent({ root: r, client: chunky(BIG, Infinity, seen), records: rec, want: bigWant });
    expect(seen).toEqual([held]);
    expect(got).toEqual({ partial: part, recorded: true, synced: true });
    expect(readFileSync(part).equals(BIG)).toBe(true);
  });

  it('tells when the answer is in, before the partial is synced and handed back', async () => {
    const r = root();
    const order: string[] = [];
    const got = fetchContent({ root: r, client: nas(), records: records(), want, answered: () => order.push('answered') }).then((f) => {
      order.push('fetched');
      return f;
    });
    await got;
    expect(order).toEqual(['answered', 'fetched']);
  });
});

/** A placeholder f1 at a.bin in the model, and its whole partial. */
const setUp = () => {
  const r = root();
  const file = join(r, 'a.bin');
  writeFileSync(file, '');
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
      lname: 'a.bin',
      ino: String(lstatSync(file).ino),
      filled: false,
      rparent: 'root',
      rname: 'a.bin',
      etag: '"v1"',
      mtime: want.mtime,
      setag: '"v1"',
      state: 'ok',
    },
  ]);
  mkdirSync(downloadsDir(r));
  const partial = join(downloadsDir(r), partialFileOf('f1'));
  writeFileSync(partial, DATA);
  return { r, file, model, partial };
};

describe('commitDownload', () => {
  it('renames the partial over the placeholder with the NAS time and records the content held', () => {
    const { r, file, model, partial } = setUp();
    const out = commitDownload({ root: r, model, disk: realDisk, want, partial });
    const st = lstatSync(file);
    expect(out.path).toBe(file);
    expect(readFileSync(file).equals(DATA)).toBe(true);
    expect(st.mtimeMs).toBe(Date.parse(want.mtime));
    expect(model.get('f1')).toMatchObject({
      ino: String(st.ino),
      filled: false,
      content: { etag: '"v1"', size: DATA.length, ino: String(st.ino), mtimeMs: Date.parse(want.mtime) },
    });
    expect(existsSync(partial)).toBe(false);
    expect([...model.withContent]).toEqual(['f1']);
  });

  it('replaces nothing when the placeholder got content or another file took its name', () => {
    const { r, file, model, partial } = setUp();
    writeFileSync(file, 'mine');
    expect(() => commitDownload({ root: r, model, disk: realDisk, want, partial })).toThrow(/changed while it downloaded/);
    expect(readFileSync(file, 'utf8')).toBe('mine');
    writeFileSync(`${file}.new`, '');
    renameSync(`${file}.new`, file); // an empty file of someone else's at the name (another inode)
    expect(() => commitDownload({ root: r, model, disk: realDisk, want, partial })).toThrow(/changed while it downloaded/);
    expect(existsSync(partial)).toBe(true);
  });

  it('replaces an older downloaded version still as left (a kept file), never one the user changed', () => {
    const { r, file, model, partial } = setUp();
    writeFileSync(file, 'old version');
    const st = lstatSync(file, { bigint: true });
    const old = {
      etag: '"v0"',
      nasMtime: '2020-01-01T00:00:00.000Z',
      size: Number(st.size),
      mtimeMs: Number(st.mtimeMs),
      ino: `${st.ino}`,
    };
    model.update('f1', { content: old });
    commitDownload({ root: r, model, disk: realDisk, want, partial });
    expect(readFileSync(file).equals(DATA)).toBe(true);
    expect(model.get('f1')!.content).toMatchObject({ etag: '"v1"', size: DATA.length });
    // an older version the user then edited: nothing replaced
    writeFileSync(partial, DATA);
    writeFileSync(file, 'old version, edited');
    const ed = lstatSync(file);
    model.update('f1', { ino: String(ed.ino), content: { ...old, ino: String(ed.ino) } });
    expect(() => commitDownload({ root: r, model, disk: realDisk, want, partial })).toThrow(/changed while it downloaded/);
    expect(readFileSync(file, 'utf8')).toBe('old version, edited');
  });

  it('refuses a partial of the wrong size', () => {
    const { r, file, model, partial } = setUp();
    writeFileSync(partial, 'short');
    expect(() => commitDownload({ root: r, model, disk: realDisk, want, partial })).toThrow(/5 bytes, not 20/);
    expect(lstatSync(file).size).toBe(0);
  });
});

describe('adoptLandings (a start after a kill between the renames and the rows)', () => {
  it('adopts a file renamed over its placeholder, as the commit would have recorded it', () => {
    const { r, file, model, partial } = setUp();
    const ready = prepareLanding({ root: r, model, disk: realDisk, want, partial });
    renameSync(ready.partial, ready.target); // renamed, then killed: the model never told
    const st = lstatSync(file);
    expect(adoptLandings(r, model, realDisk, [{ id: 'f1', content: ready.content }])).toEqual({
      adopted: [{ id: 'f1', content: ready.content }],
      dropped: [],
    });
    expect(model.get('f1')).toMatchObject({
      ino: String(st.ino),
      filled: false,
      content: { etag: '"v1"', nasMtime: want.mtime, size: DATA.length, ino: String(st.ino), mtimeMs: Date.parse(want.mtime) },
    });
    expect([...model.withContent]).toEqual(['f1']);
  });

  it('drops a record whose rename did not happen, or whose file is not the one renamed there', () => {
    const { r, file, model, partial } = setUp();
    const ready = prepareLanding({ root: r, model, disk: realDisk, want, partial });
    const before = model.get('f1');
    // killed before the rename: the placeholder is there (another inode)
    expect(adoptLandings(r, model, realDisk, [{ id: 'f1', content: ready.content }])).toEqual({ adopted: [], dropped: ['f1'] });
    expect(model.get('f1')).toBe(before);
    // renamed, then written to (another size): not the download any more
    renameSync(partial, file);
    writeFileSync(file, 'mine now, longer than the download was');
    // a record with no content (damaged), and one of an object the model does not have
    const rows = [
      { id: 'f1', content: ready.content },
      { id: 'f1', content: undefined },
      { id: 'gone', content: ready.content },
    ];
    expect(adoptLandings(r, model, realDisk, rows)).toEqual({ adopted: [], dropped: ['f1', 'f1', 'gone'] });
    expect(model.get('f1')).toBe(before);
    expect(model.get('f1')!.content).toBeUndefined();
  });
});

describe('sweepPartials', () => {
  it('removes partials no record names', () => {
    const r = root();
    mkdirSync(downloadsDir(r));
    writeFileSync(join(downloadsDir(r), 'kept.part'), 'x');
    writeFileSync(join(downloadsDir(r), 'stray.part'), 'x');
    sweepPartials(r, [{ id: 'a', etag: '"e"', size: 1, file: 'kept.part' }], realDisk);
    expect(existsSync(join(downloadsDir(r), 'kept.part'))).toBe(true);
    expect(existsSync(join(downloadsDir(r), 'stray.part'))).toBe(false);
  });
});
