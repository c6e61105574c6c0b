/**
 * The wire shapes of the service (seed + docs/../spec/service.md): objects, pages, matches.
 * Shared by the reference service, the client, the offline index and the UI. Pure types.
 */

/** The mimeType that marks a folder. */
export const FOLDER_MIME = 'application/x.service.dir';

/** The four values of `hidden`. */
export const HIDDEN_VALUES = ['mac', 'linux', 'windows', 'none'] as const;
export type Hidden = (typeof HIDDEN_VALUES)[number];

/** Image metadata; only some fields are present on a given object. */
export interface ImageMeta {
  width?: number;
  height?: number;
  /** Capture time, `YYYY:MM:DD HH:MM:SS`. */
  date?: string;
  cameraMake?: string;
  cameraModel?: string;
  aperture?: number;
  exposureTime?: number;
  isoSpeed?: number;
  focalLength?: number;
  flashFired?: boolean;
  orientation?: number;
  previewAvailable?: boolean;
  previewSourceWidth?: number;
  previewSourceHeight?: number;
}

/** A file or folder as the service returns it. Unknown fields may appear and are kept. */
export interface RemoteObject {
  id: string;
  parentID: string;
  eTag: string;
  mimeType: string;
  name: string;
  mTime: string;
  cTime: string;
  hidden: Hidden;
  storageType?: string;
  /** Folders only. */
  childCount?: number;
  /** Files only. */
  size?: number;
  /** Files only; absent when the name has no dot. */
  extension?: string;
  mimeTypes?: string[];
  trashed?: boolean;
  family?: boolean;
  publiclyShared?: boolean;
  privatelyShared?: boolean;
  image?: ImageMeta;
}

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
