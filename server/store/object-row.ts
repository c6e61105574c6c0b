/**
 * An `objects` row as SQLite returns it, and its wire form (service.md "Objects"):
 * `childCount` on folders, `size` and `extension` on files, booleans only when true.
 */
import { dateOf, etagOf } from './wire-format.js';
import { extensionOf } from '../../app/model/names.js';
import type { Hidden, ImageMeta, RemoteObject } from '../../app/model/remote-object.js';

export interface ObjectRow {
  row: number;
  id: string;
  parent: number;
  name: string;
  dir: number;
  mime: string;
  size: number;
  mtime: number;
  ctime: number;
  hidden: string;
  version: number;
  child_count: number;
  image: string | null;
  flags: string | null;
  source: string | null;
  deleting: number;
  /** Stem of the stored content file; null: content generated from id and size (demo library). */
  content: string | null;
  /** 1 while the file's first upload is unfinished (listed with `"resumable": true`). */
  partial: number;
}

/** A wire object as the service sends it: a file whose upload is unfinished says `resumable: true` (content.md). */
export type WireObject = RemoteObject & { resumable?: true };

/** Boolean flags stored in `objects.flags` (JSON), returned when true. */
export interface ObjectFlags {
  trashed?: boolean;
  family?: boolean;
  publiclyShared?: boolean;
  privatelyShared?: boolean;
}

/** The wire object; `parentId` is the external id of the parent (`""` for a root). */
export function toWire(r: ObjectRow, parentId: string): WireObject {
  const o: WireObject = {
    id: r.id,
    parentID: parentId,
    eTag: etagOf(r.version),
    mimeType: r.mime,
    name: r.name,
    mTime: dateOf(r.mtime),
    cTime: dateOf(r.ctime),
    hidden: r.hidden as Hidden,
    storageType: 'local',
  };
  if (r.dir === 1) {
    o.childCount = r.child_count;
  } else {
    o.size = r.size;
    const ext = extensionOf(r.name);
    if (ext !== undefined) o.extension = ext;
  }
  if (r.flags) {
    const f = JSON.parse(r.flags) as ObjectFlags;
    if (f.trashed) o.trashed = true;
    if (f.family) o.family = true;
    if (f.publiclyShared) o.publiclyShared = true;
    if (f.privatelyShared) o.privatelyShared = true;
  }
  if (r.partial === 1) o.resumable = true;
  if (r.image) o.image = JSON.parse(r.image) as ImageMeta;
  return o;
}

/** Keeps only the requested fields (the `fields` query parameter). */
export function pickFields(o: RemoteObject, fields: readonly string[] | undefined): Record<string, unknown> {
  if (!fields) return o as unknown as Record<string, unknown>;
  const src = o as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.prototype.hasOwnProperty.call(src, f)) out[f] = src[f];
  return out;
}
