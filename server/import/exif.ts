/**
 * Image metadata of a file, read with exifr: width, height, capture date
 * (`YYYY:MM:DD HH:MM:SS`), camera make and model, aperture, exposure time, ISO, focal
 * length, flash fired and orientation. Pixel size falls back to the JPEG frame header.
 * Never throws: an unreadable file gives undefined.
 */
import { open } from 'node:fs/promises';
import exifr from 'exifr';
import type { ImageMeta } from '../../app/model/remote-object.js';

type Raw = Record<string, unknown>;

const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : Array.isArray(v) && typeof v[0] === 'number' ? (v[0] as number) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.replace(/\0+$/, '').trim() : undefined);

/** Reads the image metadata of `path`; undefined when there is none. */
export async function readImageMeta(path: string): Promise<ImageMeta | undefined> {
  let raw: Raw | undefined;
  try {
    raw = (await exifr.parse(path, {
      tiff: true,
      exif: true,
      gps: false,
      interop: false,
      ifd1: false,
      translateValues: false,
      reviveValues: false,
      mergeOutput: true,
    })) as Raw | undefined;
  } catch {
    raw = undefined;
  }
  const m: ImageMeta = {};
  if (raw) {
    const w = num(raw['ExifImageWidth']) ?? num(raw['ImageWidth']);
    const h = num(raw['ExifImageHeight']) ?? num(raw['ImageHeight']);
    if (w !== undefined) m.width = Math.round(w);
    if (h !== undefined) m.height = Math.round(h);
    const date = str(raw['DateTimeOriginal']) ?? str(raw['CreateDate']) ?? str(raw['ModifyDate']);
    if (date && /^\d{4}:\d{2}:\d{2} \d{2}:\d{2}:\d{2}/.test(date)) m.date = date.slice(0, 19);
    const make = str(raw['Make']);
    if (make) m.cameraMake = make;
    const model = str(raw['Model']);
    if (model) m.cameraModel = model;
    const fn = num(raw['FNumber']);
    if (fn !== undefined) m.aperture = fn;
    const et = num(raw['ExposureTime']);
    if (et !== undefined) m.exposureTime = et;
    const iso = num(raw['ISO']) ?? num(raw['ISOSpeedRatings']);
    if (iso !== undefined) m.isoSpeed = Math.round(iso);
    const fl = num(raw['FocalLength']);
    if (fl !== undefined) m.focalLength = fl;
    const flash = num(raw['Flash']);
    if (flash !== undefined) m.flashFired = (flash & 1) === 1;
    const o = num(raw['Orientation']);
    if (o !== undefined) m.orientation = Math.round(o);
  }
  if (m.width === undefined || m.height === undefined) {
    const dims = await jpegSize(path);
    if (dims) {
      m.width = dims[0];
      m.height = dims[1];
    }
  }
  return Object.keys(m).length > 0 ? m : undefined;
}

/** Width and height from a JPEG's SOF marker (first 256 KiB), or undefined. */
async function jpegSize(path: string): Promise<[number, number] | undefined> {
  let buf: Buffer;
  try {
    const fh = await open(path, 'r');
    try {
      buf = Buffer.alloc(256 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      buf = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) return undefined;
    const marker = buf[i + 1]!;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    const len = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return [buf.readUInt16BE(i + 7), buf.readUInt16BE(i + 5)];
    }
    i += 2 + len;
  }
  return undefined;
}
