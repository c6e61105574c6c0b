/**
 * A deterministic, realistic demo library generated in memory (no I/O): nested folders,
 * camera photos with image metadata from several makes, screenshots, documents, music,
 * video, hidden files, non-Latin and emoji names, names differing only in case.
 * Same (objects, seed) -> same objects, ids included. Parents always come before children.
 */
import type { Hidden, ImageMeta } from '../../app/model/remote-object.js';
import { FOLDER_MIME } from '../../app/model/remote-object.js';
import { mimeForName } from '../store/mime.js';
import { prng } from '../../app/util/prng.js';

export interface DemoObject {
  /** 0-based position in the generated order. */
  key: number;
  /** key of the parent, or -1 for the user's root. */
  parentKey: number;
  id: string;
  name: string;
  dir: boolean;
  mime: string;
  size: number;
  mtime: number;
  ctime: number;
  hidden: Hidden;
  image?: ImageMeta;
}

const CAMERAS: { make: string; model: string; pattern: (n: number, d: Date) => string; w: number; h: number }[] = [
  { make: 'Canon', model: 'Canon EOS 5D Mark IV', pattern: (n) => `IMG_${pad(n % 10000, 4)}.JPG`, w: 6720, h: 4480 },
  { make: 'Canon', model: 'Canon EOS R6', pattern: (n) => `IMG_${pad(n % 10000, 4)}.CR2`, w: 5472, h: 3648 },
  { make: 'NIKON CORPORATION', model: 'NIKON D750', pattern: (n) => `DSC_${pad(n % 10000, 4)}.JPG`, w: 6016, h: 4016 },
  { make: 'SONY', model: 'ILCE-7M3', pattern: (n) => `_DSC${pad(n % 10000, 4)}.ARW`, w: 6000, h: 4000 },
  { make: 'FUJIFILM', model: 'X-T3', pattern: (n) => `DSCF${pad(n % 10000, 4)}.JPG`, w: 6240, h: 4160 },
  { make: 'Apple', model: 'iPhone 12 Pro', pattern: (n) => `IMG_${pad(n % 10000, 4)}.HEIC`, w: 4032, h: 3024 },
  { make: 'Apple', model: 'iPhone 8', pattern: (n) => `IMG_${pad(n % 10000, 4)}.jpg`, w: 4032, h: 3024 },
  { make: 'Google', model: 'Pixel 6', pattern: (_n, d) => `PXL_${stamp(d, '')}_${pad(d.getUTCMilliseconds(), 3)}.jpg`, w: 4080, h: 3072 },
  { make: 'samsung', model: 'SM-G991B', pattern: (_n, d) => `IMG_${stamp(d, '_')}.jpg`, w: 4000, h: 3000 },
  { make: 'OLYMPUS IMAGING CORP.', model: 'E-M10', pattern: (n) => `P${pad(n % 10000000, 7)}.JPG`, w: 4608, h: 3456 },
];
const PLACES = [
  'Rome',
  'Paris',
  'Lisbon',
  'Kyoto',
  'Berlin',
  'the Alps',
  'Grandma',
  'the beach',
  'New York',
  'Iceland',
  'Barcelona',
  'Prague',
  'Zürich',
  'Kraków',
  'Reykjavík',
];
const EVENTS = ['Holiday in', 'Weekend in', 'Trip to', 'Visit to', 'Summer in', 'Christmas at', 'Wedding in', 'Birthday at'];
const DOC_WORDS = [
  'Invoice',
  'Tax return',
  'Meeting notes',
  'Budget',
  'Resume',
  'Contract',
  'Letter',
  'Report',
  'Presentation',
  'Receipt',
  'Insurance',
  'Recipe',
  'Manual',
  'Thesis',
  'Notes',
  'Plan',
  'Minutes',
  'Statement',
  'Quote',
  'Proposal',
];
const DOC_EXT = ['pdf', 'docx', 'xlsx', 'txt', 'md', 'pptx', 'odt', 'csv', 'pdf', 'pdf'];
const INTL = [
  'Отчёт',
  'Договор',
  '請求書',
  '議事録',
  'Καλημέρα',
  'مستند',
  'Ærøskøbing',
  'Straße',
  'Éléphant',
  '家族写真',
  'Früchte',
  'Москва',
  'हिन्दी नोट्स',
  '사진',
  'İstanbul',
];
const EMOJI = ['🎉', '🎂', '📷', '🏖️', '🐱', '❤️', '🚀', '🎄'];
const ARTISTS = [
  'The Beatles',
  'Miles Davis',
  'Björk',
  'Daft Punk',
  'Radiohead',
  'Nina Simone',
  'Sigur Rós',
  'Yann Tiersen',
  'Ryuichi Sakamoto',
  'ABBA',
  'Queen',
  'Kraftwerk',
];
const SONG_WORDS = [
  'Love',
  'Night',
  'Blue',
  'Dream',
  'Home',
  'Rain',
  'Light',
  'River',
  'Summer',
  'Song',
  'Heart',
  'Road',
  'Sky',
  'Fire',
  'Moon',
];
const HIDDEN_FILES: [string, Hidden][] = [
  ['.DS_Store', 'mac'],
  ['Thumbs.db', 'windows'],
  ['desktop.ini', 'windows'],
  ['.nomedia', 'linux'],
  ['._IMG_0001.JPG', 'mac'],
  ['.directory', 'linux'],
];

const pad = (n: number, w: number): string => String(n).padStart(w, '0');
const stamp = (d: Date, sep: string): string =>
  `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}${sep}${pad(d.getUTCHours(), 2)}${pad(d.getUTCMinutes(), 2)}${pad(d.getUTCSeconds(), 2)}`;
const exifDate = (d: Date): string =>
  `${d.getUTCFullYear()}:${pad(d.getUTCMonth() + 1, 2)}:${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;

const YEAR0 = Date.UTC(2005, 0, 1);
const SPAN = Date.UTC(2025, 11, 31) - YEAR0;

/** Generates `objects` demo objects for `seed`. */
export function* generateDemo(opts: { objects: number; seed: number }): Generator<DemoObject> {
  const rnd = prng(opts.seed * 2654435761 + 1);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const idPrefix = `d${(opts.seed >>> 0).toString(36)}-`;
  const total = opts.objects;
  let key = 0;
  const names = new Map<number, Set<string>>();
  const unique = (parentKey: number, name: string): string => {
    let set = names.get(parentKey);
    if (!set) names.set(parentKey, (set = new Set()));
    let n = name;
    for (let i = 2; set.has(n); i++) {
      const dot = name.lastIndexOf('.');
      n = dot > 0 ? `${name.slice(0, dot)} (${i})${name.slice(dot)}` : `${name} (${i})`;
    }
    set.add(n);
    return n;
  };
  const make = (parentKey: number, name: string, dir: boolean, t: number, extra: Partial<DemoObject> = {}): DemoObject => {
    const o: DemoObject = {
      key,
      parentKey,
      id: idPrefix + key.toString(36).padStart(6, '0'),
      name: unique(parentKey, name),
      dir,
      mime: dir ? FOLDER_MIME : mimeForName(name),
      size: dir ? 0 : Math.floor(1000 + rnd() * 5_000_000),
      mtime: t,
      ctime: t - Math.floor(rnd() * 86_400_000),
      hidden: 'none',
      ...extra,
    };
    key++;
    return o;
  };
  const top: DemoObject[] = [];
  for (const n of ['Photos', 'Documents', 'Music', 'Videos', 'Screenshots', 'Downloads', '家族写真', '🎉 Party']) {
    if (key >= total) return;
    const o = make(-1, n, true, YEAR0 + Math.floor(rnd() * SPAN));
    top.push(o);
    yield o;
  }
  const [photos, docs, music, videos, shots, downloads, family, party] = top as [
    DemoObject,
    DemoObject,
    DemoObject,
    DemoObject,
    DemoObject,
    DemoObject,
    DemoObject,
    DemoObject,
  ];
  // Open folders per category: [folder key, files left before a new folder].
  const open = new Map<string, { key: number; left: number; t: number }>();
  const folder = function* (cat: string, parent: number, name: () => string, t: number, cap: number): Generator<DemoObject, number> {
    const cur = open.get(cat);
    if (cur && cur.left > 0) {
      cur.left--;
      return cur.key;
    }
    const o = make(parent, name(), true, t);
    yield o;
    open.set(cat, { key: o.key, left: cap - 1, t });
    return o.key;
  };
  let photoN = 0;
  const years = new Map<number, number>();
  const artists = new Map<string, number>();
  while (key < total) {
    const t = YEAR0 + Math.floor(rnd() * SPAN);
    const d = new Date(t);
    const r = rnd();
    if (r < 0.55) {
      // Photos/<year>/<event>/<camera file>: an event folder holds 50-400 photos of a few days.
      let ev = open.get('event');
      if (!ev || ev.left <= 0) {
        const y = 2005 + Math.floor(rnd() * 21);
        let yk = years.get(y);
        if (yk === undefined) {
          const yo = make(photos.key, String(y), true, Date.UTC(y, 11, 31));
          yield yo;
          yk = yo.key;
          years.set(y, yk);
          if (key >= total) return;
        }
        const te = Date.UTC(y, Math.floor(rnd() * 12), 1 + Math.floor(rnd() * 28), 8 + Math.floor(rnd() * 10));
        const eo = make(yk, `${pick(EVENTS)} ${pick(PLACES)}`, true, te);
        yield eo;
        ev = { key: eo.key, left: 50 + Math.floor(rnd() * 350), t: te };
        open.set('event', ev);
        if (key >= total) return;
      }
      ev.left--;
      const tp = ev.t + Math.floor(rnd() * 3 * 86_400_000);
      const dp = new Date(tp);
      const cam = pick(CAMERAS);
      const portrait = rnd() < 0.2;
      const image: ImageMeta = {
        width: portrait ? cam.h : cam.w,
        height: portrait ? cam.w : cam.h,
        date: exifDate(dp),
        cameraMake: cam.make,
        cameraModel: cam.model,
        aperture: pick([1.8, 2.8, 4, 5.6, 8, 11]),
        exposureTime: pick([1 / 1000, 1 / 250, 1 / 60, 1 / 30, 0.5]),
        isoSpeed: pick([100, 200, 400, 800, 3200]),
        focalLength: pick([24, 35, 50, 85, 4.2, 6.1]),
        flashFired: rnd() < 0.1,
        orientation: portrait ? 6 : 1,
      };
      const name = cam.pattern(photoN++, dp);
      yield make(ev.key, name, false, tp, { image, mime: mimeForName(name), size: Math.floor(2_000_000 + rnd() * 20_000_000) });
    } else if (r < 0.63) {
      const f = rnd() < 0.5 ? shots.key : yield* folder('shots', shots.key, () => `Screenshots ${d.getUTCFullYear()}`, t, 500);
      if (key >= total) return;
      const name = pick([
        `Screenshot ${d.toISOString().slice(0, 10)} at ${pad(d.getUTCHours(), 2)}.${pad(d.getUTCMinutes(), 2)}.${pad(d.getUTCSeconds(), 2)}.png`,
        `Screen Shot ${d.toISOString().slice(0, 10)} at ${d.getUTCHours()}.${pad(d.getUTCMinutes(), 2)}.${pad(d.getUTCSeconds(), 2)} PM.png`,
        `Screenshot_${stamp(d, '-')}.png`,
      ]);
      yield make(f, name, false, t, { image: { width: pick([1920, 2560, 1170, 2880]), height: pick([1080, 1440, 2532, 1800]) } });
    } else if (r < 0.8) {
      const sub = yield* folder('docs', docs.key, () => `${pick(DOC_WORDS)}s ${d.getUTCFullYear()}`, t, 200);
      if (key >= total) return;
      const deep =
        rnd() < 0.3 ? yield* folder('docs-deep', sub, () => pick(['Archive', 'Old', 'Drafts', 'Signed', pick(INTL)]), t, 50) : sub;
      if (key >= total) return;
      const x = rnd();
      const base =
        x < 0.08
          ? pick(INTL)
          : x < 0.12
            ? `${pick(EMOJI)} ${pick(DOC_WORDS)}`
            : `${pick(DOC_WORDS)} ${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1, 2)}`;
      const ext = pick(DOC_EXT);
      yield make(deep, `${base}.${ext}`, false, t);
      if (key < total && rnd() < 0.03) yield make(deep, `${base.toLowerCase()}.${ext}`, false, t); // differs only in case
    } else if (r < 0.92) {
      // Music/<artist>/<album>/<track>: artists are reused, an album holds 12 tracks.
      let album = open.get('album');
      if (!album || album.left <= 0) {
        const who = pick(ARTISTS);
        let ak = artists.get(who);
        if (ak === undefined) {
          const ao = make(music.key, who, true, t);
          yield ao;
          ak = ao.key;
          artists.set(who, ak);
          if (key >= total) return;
        }
        const al = make(ak, `${pick(SONG_WORDS)} ${pick(SONG_WORDS)} (${d.getUTCFullYear()})`, true, t);
        yield al;
        album = { key: al.key, left: 12, t };
        open.set('album', album);
      }
      album.left--;
      if (key >= total) return;
      const n = 12 - album.left;
      yield make(album.key, `${pad(n, 2)} - ${pick(SONG_WORDS)} ${pick(SONG_WORDS)}.${rnd() < 0.7 ? 'mp3' : 'flac'}`, false, t);
    } else if (r < 0.96) {
      const f =
        rnd() < 0.5
          ? videos.key
          : yield* folder('videos', videos.key, () => `${pick(EVENTS)} ${pick(PLACES)} ${d.getUTCFullYear()}`, t, 40);
      if (key >= total) return;
      const name = pick([
        `${pick(EVENTS)} ${pick(PLACES)} ${d.getUTCFullYear()}.mp4`,
        `VID_${stamp(d, '_')}.mp4`,
        `MOV_${pad(photoN++ % 10000, 4)}.MOV`,
        `${pick(EMOJI)} clip ${pad(photoN % 1000, 3)}.mov`,
      ]);
      yield make(f, name, false, t, { size: Math.floor(20_000_000 + rnd() * 2_000_000_000) });
    } else if (r < 0.985) {
      const f = pick([downloads.key, family.key, party.key]);
      const name = pick([
        `${pick(INTL)} ${pad(photoN++ % 1000, 3)}.jpg`,
        `setup-${photoN % 100}.${pick(['exe', 'dmg', 'zip'])}`,
        `${pick(EMOJI)} ${pick(PLACES)}.jpg`,
        `archive-${photoN % 1000}.tar.gz`,
      ]);
      yield make(f, name, false, t);
    } else {
      const cur = open.get('event') ?? open.get('docs');
      const parent = cur ? cur.key : photos.key;
      const [name, hidden] = pick(HIDDEN_FILES);
      yield make(parent, name, false, t, { hidden, size: Math.floor(rnd() * 20000) });
    }
  }
}
