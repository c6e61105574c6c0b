/**
 * mimeType from a file name's extension (case-insensitive). Text types carry
 * `; charset=utf-8`. Unknown extensions are `application/octet-stream`.
 */
const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  webp: 'image/webp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  cr2: 'image/x-canon-cr2',
  nef: 'image/x-nikon-nef',
  arw: 'image/x-sony-arw',
  dng: 'image/x-adobe-dng',
  raf: 'image/x-fuji-raf',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  m4v: 'video/x-m4v',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  aac: 'audio/aac',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  epub: 'application/epub+zip',
  json: 'application/json',
  xml: 'application/xml',
  js: 'text/javascript',
  ts: 'text/plain',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  log: 'text/plain',
  ini: 'text/plain',
  yml: 'text/yaml',
  yaml: 'text/yaml',
  rtf: 'application/rtf',
  iso: 'application/x-iso9660-image',
  dmg: 'application/x-apple-diskimage',
  exe: 'application/vnd.microsoft.portable-executable',
  db: 'application/octet-stream',
  ds_store: 'application/octet-stream',
};

/** The mimeType for a file name. */
export function mimeForName(name: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot >= 0 ? name.slice(dot + 1).toLowerCase() : '';
  const t = TYPES[ext] ?? 'application/octet-stream';
  return t.startsWith('text/') ? `${t}; charset=utf-8` : t;
}

/** Loose syntax check of a media type (`type/subtype` with optional parameters). */
export function isMediaType(s: string): boolean {
  return s.length <= 255 && /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*(\s*;\s*[\w.+-]+=("[^"]*"|[\w.+-]+))*$/.test(s);
}
