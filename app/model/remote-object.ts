/**
 * The wire shapes of the service (seed + docs/../spec/service.md): objects, pages, matches.
 * Shared by the reference service, the client, the offline index and the UI. The object's
 * type is inferred from its schema, so the type and its check cannot drift apart.
 */
import { arr, bool, int, num, obj, oneOf, opt, str, type Infer, type Optional } from '../util/schema.js';

/** The mimeType that marks a folder. */
export const FOLDER_MIME = 'application/x.service.dir';

/** The four values of `hidden`. */
export const HIDDEN_VALUES = ['mac', 'linux', 'windows', 'none'] as const;
export type Hidden = (typeof HIDDEN_VALUES)[number];

/**
 * Image metadata; only some fields are present on a given object. Open: a device may send
 * more, kept as they came.
 */
export const imageMetaSchema = obj(
  {
    width: opt(num()),
    height: opt(num()),
    /** Capture time, `YYYY:MM:DD HH:MM:SS`. */
    date: opt(str({ max: 64 })),
    cameraMake: opt(str()),
    cameraModel: opt(str()),
    aperture: opt(num()),
    exposureTime: opt(num()),
    isoSpeed: opt(num()),
    focalLength: opt(num()),
    flashFired: opt(bool()),
    orientation: opt(num()),
    previewAvailable: opt(bool()),
    previewSourceWidth: opt(num()),
    previewSourceHeight: opt(num()),
  },
  { open: true },
);
export type ImageMeta = Infer<typeof imageMetaSchema>;

/**
 * An eTag as it is sent back in `If-Match`: visible ASCII only (no header break), no comma
 * (it would split into a list) and never `*` alone (it would match anything). The spec's
 * eTags are quoted; a device's own form (weak `W/"..."`, unquoted) is kept as it came.
 */
const ETAG = /^(?!\*$)[\x21-\x2b\x2d-\x7e]+$/;
const iso = str({ max: 64 });

/** The fields of a NAS object, each with its check. Shared by the full and the trimmed form. */
const FIELDS = {
  id: str({ min: 1, max: 512 }),
  parentID: str({ max: 512 }),
  eTag: str({ min: 1, max: 512, pattern: ETAG }),
  mimeType: str({ max: 512 }),
  name: str({ min: 1, max: 1024 }),
  mTime: iso,
  cTime: iso,
  hidden: oneOf(HIDDEN_VALUES),
  storageType: opt(str({ max: 256 })),
  /** Folders only. */
  childCount: opt(int()),
  /** Files only. */
  size: opt(int()),
  /** Files only; absent when the name has no dot. */
  extension: opt(str({ max: 1024 })),
  mimeTypes: opt(arr(str({ max: 512 }), 64)),
  trashed: opt(bool()),
  family: opt(bool()),
  publiclyShared: opt(bool()),
  privatelyShared: opt(bool()),
  image: opt(imageMetaSchema),
} as const;

/**
 * THE schema of a file or folder as the service returns it: the one source of the
 * `RemoteObject` type and of its check at every boundary (service responses in
 * main/client/parse.ts, the window contract, rows read back from the mirror store).
 * Unknown fields are kept as they came (the service may grow fields).
 */
export const remoteObjectSchema = obj(FIELDS, { open: true });
export type RemoteObject = Infer<typeof remoteObjectSchema>;

const optionalFields = Object.fromEntries(Object.entries(FIELDS).map(([k, s]) => [k, 'optional' in s ? s : opt(s)])) as {
  [K in keyof typeof FIELDS]: (typeof FIELDS)[K] extends Optional<unknown> ? (typeof FIELDS)[K] : Optional<Infer<(typeof FIELDS)[K]>>;
};

/**
 * A trimmed object (the caller asked for `fields`): only `id` and `name` are required, every
 * field present gets the same check as in the full form.
 */
export const trimmedObjectSchema = obj({ ...optionalFields, id: FIELDS.id, name: FIELDS.name }, { open: true });
export type TrimmedObject = Infer<typeof trimmedObjectSchema>;

/** One highlighted range: UTF-16 code units into `Fragment.text`. */
export interface Location {
  index: number;
  length: number;
}

export interface Fragment {
  text: string;
  locations: Location[];
}

export interface SearchMatch {
  file: RemoteObject;
  fragments: Fragment[];
}

/** `GET filesSearch/text` response. `pageToken` is `""` when there are no more pages. */
export interface SearchPage {
  pageToken: string;
  matches: SearchMatch[];
}

/** `GET filesSearch/parents` response. */
export interface ListingPage {
  pageToken: string;
  files: RemoteObject[];
}

export const isFolder = (o: { mimeType: string }): boolean => o.mimeType === FOLDER_MIME;
