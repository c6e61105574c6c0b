/** `nas-service import` of a real folder with real JPEGs carrying EXIF written by exiftool. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../../../server/testing.js';
import { client } from './http.js';
import type { ListingPage, RemoteObject } from '../../../app/model/remote-object.js';

// A 1x1 baseline JPEG; exiftool adds the EXIF block.
const TINY_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

let src: string;
let data: string;
let svc: TestService | undefined;
beforeAll(() => {
  src = mkdtempSync(join(tmpdir(), 'nas-import-src-'));
  data = mkdtempSync(join(tmpdir(), 'nas-import-data-'));
  mkdirSync(join(src, 'Photos', 'Rome 2019'), { recursive: true });
  mkdirSync(join(src, 'Docs'));
  const jpg = join(src, 'Photos', 'Rome 2019', 'IMG_2041.JPG');
  writeFileSync(jpg, TINY_JPEG);
  execFileSync('exiftool', [
    '-q',
    '-overwrite_original',
    '-Make=Canon',
    '-Model=Canon EOS 5D Mark IV',
    '-DateTimeOriginal=2019:07:12 15:30:12',
    '-FNumber=2.8',
    '-ExposureTime=0.004',
    '-ISO=200',
    '-FocalLength=50',
    '-ExifIFD:Flash#=25',
    '-Orientation#=6',
    '-ExifImageWidth=6720',
    '-ExifImageHeight=4480',
    jpg,
  ]);
  writeFileSync(join(src, 'Photos', 'plain.jpg'), TINY_JPEG); // no EXIF: size from the frame header
  writeFileSync(join(src, 'Docs', 'notes.txt'), 'hello\n');
  writeFileSync(join(src, 'Docs', 'Report.PDF'), '%PDF-1.4\n');
  writeFileSync(join(src, '.DS_Store'), 'x');
  utimesSync(join(src, 'Docs', 'notes.txt'), new Date('2020-01-02T03:04:05Z'), new Date('2020-01-02T03:04:05Z'));
});
afterAll(async () => {
  await svc?.stop();
  rmSync(src, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

const run = (args: string[]) => spawnSync(process.execPath, ['bin/nas-service.js', ...args], { encoding: 'utf8' });

describe('import', () => {
  it('imports names, sizes, times, mimeTypes and EXIF; twice adds nothing twice', async () => {
    expect(run(['user', 'add', 'demo', '--data', data]).status).toBe(0);
    const first = run(['import', src, '--user', 'demo', '--data', data]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/imported 8 new objects/);
    const again = run(['import', src, '--user', 'demo', '--data', data]);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/imported 0 new objects \(0 updated, 8 unchanged\)/);
    svc = await startTestService({ dataDir: data });
    const c = client(svc.baseUrl, svc.token());
    const root = ((await c.list('root')).body as ListingPage).files;
    expect(root.map((f) => f.name)).toEqual(['.DS_Store', 'Docs', 'Photos']);
    expect(root[0]!.hidden).toBe('mac');
    const docs = root.find((f) => f.name === 'Docs')!;
    const notes = (await c.pan(docs.id, 'notes.txt')).body as RemoteObject;
    expect(notes).toMatchObject({ size: 6, mimeType: 'text/plain; charset=utf-8', mTime: '2020-01-02T03:04:05Z', extension: '.txt' });
    expect(((await c.pan(docs.id, 'Report.PDF')).body as RemoteObject).mimeType).toBe('application/pdf');
    const photos = root.find((f) => f.name === 'Photos')!;
    const rome = (await c.pan(photos.id, 'Rome 2019')).body as RemoteObject;
    const img = (await c.pan(rome.id, 'IMG_2041.JPG')).body as RemoteObject;
    expect(img.mimeType).toBe('image/jpeg');
    expect(img.image).toEqual({
      width: 6720,
      height: 4480,
      date: '2019:07:12 15:30:12',
      cameraMake: 'Canon',
      cameraModel: 'Canon EOS 5D Mark IV',
      aperture: 2.8,
      exposureTime: 0.004,
      isoSpeed: 200,
      focalLength: 50,
      flashFired: true,
      orientation: 6,
    });
    expect(((await c.pan(photos.id, 'plain.jpg')).body as RemoteObject).image).toEqual({ width: 1, height: 1 });
    const found = (await c.search('canon')).body as { matches: { file: RemoteObject }[] };
    expect(found.matches.map((m) => m.file.id)).toEqual([img.id]);
    // --into a folder
    const into = run(['import', join(src, 'Docs'), '--user', 'demo', '--data', data, '--into', photos.id]);
    expect(into.status, into.stderr).toBe(0);
    expect(((await c.list(photos.id)).body as ListingPage).files.map((f) => f.name)).toEqual([
      'Report.PDF',
      'Rome 2019',
      'notes.txt',
      'plain.jpg',
    ]);
  });
});
