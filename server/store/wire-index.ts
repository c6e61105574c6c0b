/**
 * The wire form of an object built from the in-memory index alone (listings and search
 * results): the same output as `toWire` of a row, without reading SQLite.
 */
import { extensionOf } from '../../app/model/names.js';
import type { Hidden, ImageMeta } from '../../app/model/remote-object.js';
import type { ObjectFlags, WireObject } from './object-row.js';
import { HIDDEN_CODES, type TreeIndex } from './tree-index.js';
import { dateOf, etagOf } from './wire-format.js';

export function wireFromIndex(ix: TreeIndex, r: number): WireObject {
  const p = ix.parent[r]!;
  const o: WireObject = {
    id: ix.ids[r]!,
    parentID: p === 0 ? '' : (ix.ids[p] ?? ''),
    eTag: etagOf(ix.version[r]!),
    mimeType: ix.mimes.values[ix.mimeId[r]!]!,
    name: ix.names[r]!,
    mTime: dateOf(ix.mtime[r]!),
    cTime: dateOf(ix.ctime[r]!),
    hidden: HIDDEN_CODES[ix.hidden[r]!] as Hidden,
    storageType: 'local',
  };
  if (ix.isDir(r)) {
    o.childCount = ix.childCount[r]!;
  } else {
    o.size = ix.size[r]!;
    const ext = extensionOf(o.name);
    if (ext !== undefined) o.extension = ext;
  }
  const flags = ix.flagsJson[r];
  if (flags) {
    const f = JSON.parse(flags) as ObjectFlags;
    if (f.trashed) o.trashed = true;
    if (f.family) o.family = true;
    if (f.publiclyShared) o.publiclyShared = true;
    if (f.privatelyShared) o.privatelyShared = true;
  }
  if (ix.isPartial(r)) o.resumable = true;
  const img = ix.images[r];
  if (img) o.image = JSON.parse(img) as ImageMeta;
  return o;
}

/**
 * The same object as `wireFromIndex`, serialized straight to JSON (same keys, same order),
 * splicing the stored image JSON instead of parsing it: listings of 1000 objects use it.
 */
export function wireJsonFromIndex(ix: TreeIndex, r: number): string {
  const p = ix.parent[r]!;
  const name = ix.names[r]!;
  let s = `{"id":${JSON.stringify(ix.ids[r]!)},"parentID":${JSON.stringify(p === 0 ? '' : (ix.ids[p] ?? ''))},"eTag":${JSON.stringify(etagOf(ix.version[r]!))},"mimeType":${JSON.stringify(ix.mimes.values[ix.mimeId[r]!]!)},"name":${JSON.stringify(name)},"mTime":"${dateOf(ix.mtime[r]!)}","cTime":"${dateOf(ix.ctime[r]!)}","hidden":"${HIDDEN_CODES[ix.hidden[r]!]}","storageType":"local"`;
  if (ix.isDir(r)) {
    s += `,"childCount":${ix.childCount[r]!}`;
  } else {
    s += `,"size":${ix.size[r]!}`;
    const ext = extensionOf(name);
    if (ext !== undefined) s += `,"extension":${JSON.stringify(ext)}`;
  }
  const flags = ix.flagsJson[r];
  if (flags) {
    const f = JSON.parse(flags) as ObjectFlags;
    if (f.trashed) s += ',"trashed":true';
    if (f.family) s += ',"family":true';
    if (f.publiclyShared) s += ',"publiclyShared":true';
    if (f.privatelyShared) s += ',"privatelyShared":true';
  }
  if (ix.isPartial(r)) s += ',"resumable":true';
  const img = ix.images[r];
  if (img) s += `,"image":${img}`;
  return s + '}';
}
