/**
 * Parsing of service responses at the boundary. Every object is checked with THE schema of
 * a NAS object (`remoteObjectSchema` in app/model/remote-object.ts: types and bounds of id,
 * name, parentID, eTag (a quoted entity-tag, as If-Match needs it), mimeType, mTime, cTime,
 * hidden...); unknown fields are kept as they came.
 * Two tolerances: a missing `parentID` becomes "" and a missing `mimeType`
 * `application/octet-stream`. In a listing an invalid object is skipped and reported in
 * `invalid` (the caller logs it and counts the walk incomplete); anything else unreadable
 * is a `BadResponse`. With `fields` asked (a trimmed object) only `id` and `name` are
 * required; every field present is checked as in the full form.
 */
import { AppError } from '../../app/errors.js';
import type { ListingPage, RemoteObject, SearchPage, Fragment } from '../../app/model/remote-object.js';
import { remoteObjectSchema, trimmedObjectSchema } from '../../app/model/remote-object.js';

const bad = (what: string): AppError => new AppError('BadResponse', `unexpected response from the NAS: ${what}`);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses JSON text; BadResponse when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bad('body is not JSON');
  }
}

/** An object of a listing the schema refused: skipped, said why. */
export interface InvalidObject {
  /** Its id when it had a readable one. */
  id: string | undefined;
  reason: string;
}

/** A listing page; `invalid` only when some object was skipped (so a clean page equals the service's answer). */
export type CheckedListing = ListingPage & { invalid?: InvalidObject[] };

/** One file or folder object. Fields are returned in the order they came. `partial`: only id and name are required (fields were asked). */
export function parseObject(v: unknown, partial = false): RemoteObject {
  if (!isRecord(v)) throw bad('object is not a JSON object');
  if (typeof v['id'] !== 'string' || v['id'] === '') throw bad('object without id');
  if (typeof v['name'] !== 'string') throw bad(`object ${v['id']} without name`);
  const o: Record<string, unknown> = { ...v };
  // Defaults a real device might omit; the app needs them defined.
  if (o['parentID'] === undefined) o['parentID'] = '';
  if (o['mimeType'] === undefined) o['mimeType'] = 'application/octet-stream';
  try {
    // A trimmed object holds what the caller asked for (`fields`); the rest is its to know.
    return partial ? (trimmedObjectSchema.parse(o, '') as RemoteObject) : remoteObjectSchema.parse(o, '');
  } catch (e) {
    throw bad(`object ${JSON.stringify(v['id'].slice(0, 200))}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A listing page: invalid objects are skipped and listed in `invalid`, never thrown. */
export function parseListing(v: unknown, partial = false): CheckedListing {
  if (!isRecord(v)) throw bad('listing is not a JSON object');
  const files = v['files'] ?? [];
  if (!Array.isArray(files)) throw bad('listing.files is not an array');
  const pageToken = v['pageToken'] ?? '';
  if (typeof pageToken !== 'string') throw bad('listing.pageToken is not a string');
  const ok: RemoteObject[] = [];
  const invalid: InvalidObject[] = [];
  for (const f of files as unknown[]) {
    try {
      ok.push(parseObject(f, partial));
    } catch (e) {
      const id = isRecord(f) && typeof f['id'] === 'string' ? f['id'].slice(0, 200) : undefined;
      invalid.push({ id, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return invalid.length ? { pageToken, files: ok, invalid } : { pageToken, files: ok };
}

function parseFragment(v: unknown): Fragment {
  if (!isRecord(v) || typeof v['text'] !== 'string') throw bad('fragment without text');
  const locs = v['locations'] ?? [];
  if (!Array.isArray(locs)) throw bad('fragment.locations is not an array');
  return {
    text: v['text'],
    locations: locs.map((l: unknown) => {
      if (!isRecord(l) || typeof l['index'] !== 'number' || typeof l['length'] !== 'number') throw bad('bad location');
      return { index: l['index'], length: l['length'] };
    }),
  };
}

export function parseSearch(v: unknown, partial = false): SearchPage {
  if (!isRecord(v)) throw bad('search result is not a JSON object');
  const matches = v['matches'] ?? [];
  if (!Array.isArray(matches)) throw bad('search.matches is not an array');
  const pageToken = v['pageToken'] ?? '';
  if (typeof pageToken !== 'string') throw bad('search.pageToken is not a string');
  return {
    pageToken,
    matches: matches.map((m: unknown) => {
      if (!isRecord(m)) throw bad('match is not an object');
      const frags = m['fragments'] ?? [];
      if (!Array.isArray(frags)) throw bad('match.fragments is not an array');
      return { file: parseObject(m['file'], partial), fragments: frags.map(parseFragment) };
    }),
  };
}
