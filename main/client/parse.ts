/**
 * Tolerant parsing of service responses: only the fields the client needs are validated
 * (`id`, `name`, `parentID`, `mimeType`); unknown fields are kept as they came; missing
 * optional fields stay missing. Anything else is a `BadResponse`.
 */
import { AppError } from '../../app/errors.js';
import type { ListingPage, RemoteObject, SearchPage, Fragment } from '../../app/model/remote-object.js';

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

/** One file or folder object. Fields are returned in the order they came. */
export function parseObject(v: unknown): RemoteObject {
  if (!isRecord(v)) throw bad('object is not a JSON object');
  if (typeof v['id'] !== 'string' || v['id'] === '') throw bad('object without id');
  if (typeof v['name'] !== 'string') throw bad(`object ${v['id']} without name`);
  if (v['parentID'] !== undefined && typeof v['parentID'] !== 'string') throw bad(`object ${v['id']} with a non-string parentID`);
  if (v['mimeType'] !== undefined && typeof v['mimeType'] !== 'string') throw bad(`object ${v['id']} with a non-string mimeType`);
  if (v['image'] !== undefined && !isRecord(v['image'])) throw bad(`object ${v['id']} with a non-object image`);
  const o = { ...v } as unknown as RemoteObject;
  // Defaults a real device might omit; the app needs them defined.
  if (o.parentID === undefined) o.parentID = '';
  if (o.mimeType === undefined) o.mimeType = 'application/octet-stream';
  return o;
}

export function parseListing(v: unknown): ListingPage {
  if (!isRecord(v)) throw bad('listing is not a JSON object');
  const files = v['files'] ?? [];
  if (!Array.isArray(files)) throw bad('listing.files is not an array');
  const pageToken = v['pageToken'] ?? '';
  if (typeof pageToken !== 'string') throw bad('listing.pageToken is not a string');
  return { pageToken, files: files.map(parseObject) };
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

export function parseSearch(v: unknown): SearchPage {
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
      return { file: parseObject(m['file']), fragments: frags.map(parseFragment) };
    }),
  };
}
