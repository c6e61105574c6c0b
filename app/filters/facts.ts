/**
 * What the offline filters and the storage view know of an object, derived from its wire
 * shape alone: kind (from the MIME type), lower-case extension, size, the day it was taken
 * (`image.date`, else mTime, as YYYYMMDD) and the folded camera make + model. Pure.
 */
import { foldCase } from '../search/fold.js';
import { FOLDER_MIME, type RemoteObject } from '../model/remote-object.js';

export const KINDS = ['folder', 'photo', 'video', 'audio', 'doc', 'other'] as const;
export type ObjectKind = (typeof KINDS)[number];

export interface Fact {
  id: string;
  parent: string;
  name: string;
  kind: ObjectKind;
  /** Lower case, without the dot; '' when none. */
  ext: string;
  /** Bytes; 0 for folders and files without a size. */
  size: number;
  /** YYYYMMDD of the capture date, else of mTime (UTC); 0 when neither parses. */
  day: number;
  /** Folded "make model"; '' when none. */
  camera: string;
}

const DOC_MIME = /^(text\/|application\/(pdf|rtf|msword|vnd\.ms-|vnd\.openxmlformats-officedocument|vnd\.oasis\.opendocument|epub))/;

/** The kind of a MIME type, as the `kind:` filter and the storage totals count it. */
export function kindOfMime(mime: string): ObjectKind {
  if (mime === FOLDER_MIME) return 'folder';
  if (mime.startsWith('image/')) return 'photo';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  if (DOC_MIME.test(mime)) return 'doc';
  return 'other';
}

/** The extension of an object: its `extension` field, else what follows the last dot of the name. */
export function extOf(o: Pick<RemoteObject, 'name' | 'extension' | 'mimeType'>): string {
  if (o.mimeType === FOLDER_MIME) return '';
  if (typeof o.extension === 'string') return o.extension.replace(/^\./, '').toLowerCase();
  const dot = o.name.lastIndexOf('.');
  return dot > 0 ? o.name.slice(dot + 1).toLowerCase() : '';
}

/** `YYYY:MM:DD HH:MM:SS` (EXIF) or an ISO date -> YYYYMMDD; 0 when it does not parse. */
export function dayOf(s: unknown): number {
  if (typeof s !== 'string') return 0;
  const m = /^(\d{4})[:-](\d{2})[:-](\d{2})/.exec(s);
  if (!m) return 0;
  const d = Number(m[1]) * 10_000 + Number(m[2]) * 100 + Number(m[3]);
  return d > 0 ? d : 0;
}

/** The capture date when there is one, else the modification time: `{ day, source }`. */
export function dateOf(o: Pick<RemoteObject, 'mTime' | 'image'>): { day: number; source: 'image' | 'mtime' | 'none' } {
  const img = dayOf(o.image?.date);
  if (img) return { day: img, source: 'image' };
  const m = dayOf(o.mTime);
  return m ? { day: m, source: 'mtime' } : { day: 0, source: 'none' };
}

export function cameraOf(o: Pick<RemoteObject, 'image'>): string {
  const make = typeof o.image?.cameraMake === 'string' ? o.image.cameraMake.trim() : '';
  const model = typeof o.image?.cameraModel === 'string' ? o.image.cameraModel.trim() : '';
  return [make, model].filter((s) => s !== '').join(' ');
}

export function factOf(o: RemoteObject): Fact {
  const kind = kindOfMime(o.mimeType);
  return {
    id: o.id,
    parent: o.parentID,
    name: o.name,
    kind,
    ext: extOf(o),
    size: kind !== 'folder' && typeof o.size === 'number' && o.size > 0 ? o.size : 0,
    day: dateOf(o).day,
    camera: foldCase(cameraOf(o)),
  };
}
