#!/usr/bin/env node
// Draws the app icon and the six tray icons as PNGs (no image library: a tiny rasteriser
// with 4x4 supersampling and a minimal PNG encoder). Run once; the PNGs are committed.
//   build/icons/icon.png (512), build/icons/tray/<state>.png (32) and <state>@2x.png (64)
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'icons');

const CRC = new Int32Array(256).map((_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c; });
const crc32 = (buf) => { let c = -1; for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ -1) >>> 0; };
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4); ihdr[8] = 8; ihdr[9] = 6;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) { raw[y * (size * 4 + 1)] = 0; rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4); }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

// Shapes in unit coordinates (0..1). Each returns true when (x, y) is inside.
const roundRect = (x0, y0, x1, y1, r) => (x, y) => {
  const cx = Math.max(x0 + r, Math.min(x1 - r, x)), cy = Math.max(y0 + r, Math.min(y1 - r, y));
  return x >= x0 && x <= x1 && y >= y0 && y <= y1 && (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
const circle = (cx, cy, r) => (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const ring = (cx, cy, r, w) => (x, y) => { const d = Math.hypot(x - cx, y - cy); return d <= r && d >= r - w; };
const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16), 255];

/** Paints layers ([shape, colour or (x,y)=>colour]) in order, supersampled. */
function draw(size, layers) {
  const out = Buffer.alloc(size * size * 4);
  const S = 4;
  for (let py = 0; py < size; py++) for (let px = 0; px < size; px++) {
    let acc = [0, 0, 0, 0];
    for (let sy = 0; sy < S; sy++) for (let sx = 0; sx < S; sx++) {
      const x = (px + (sx + 0.5) / S) / size, y = (py + (sy + 0.5) / S) / size;
      let c = [0, 0, 0, 0];
      for (const [shape, colour] of layers) if (shape(x, y)) c = typeof colour === 'function' ? colour(x, y) : colour;
      // premultiplied accumulation
      acc = [acc[0] + c[0] * c[3], acc[1] + c[1] * c[3], acc[2] + c[2] * c[3], acc[3] + c[3]];
    }
    const a = acc[3] / (S * S);
    const i = (py * size + px) * 4;
    out[i] = a ? Math.round(acc[0] / acc[3]) : 0; out[i + 1] = a ? Math.round(acc[1] / acc[3]) : 0; out[i + 2] = a ? Math.round(acc[2] / acc[3]) : 0; out[i + 3] = Math.round(a);
  }
  return out;
}

// The NAS glyph: a box with three drive bays, each with an LED.
function nasGlyph(x0, y0, x1, y1, body, bay, led) {
  const h = (y1 - y0), w = (x1 - x0);
  const layers = [[roundRect(x0, y0, x1, y1, w * 0.14), body]];
  for (let i = 0; i < 3; i++) {
    const by0 = y0 + h * (0.14 + i * 0.27), by1 = by0 + h * 0.19;
    layers.push([roundRect(x0 + w * 0.12, by0, x1 - w * 0.12, by1, h * 0.05), bay]);
    layers.push([circle(x1 - w * 0.24, (by0 + by1) / 2, h * 0.045), led]);
  }
  return layers;
}

const gradient = (a, b) => (x, y) => { const t = (x + y) / 2; const A = hex(a), B = hex(b); return [0, 1, 2].map((k) => Math.round(A[k] + (B[k] - A[k]) * t)).concat(255); };
const WHITE = [255, 255, 255, 255], DARK = hex('#2b3140');

// App icon: gradient tile with a white NAS.
const app = [[roundRect(0.06, 0.06, 0.94, 0.94, 0.2), gradient('#2f6fde', '#7c4dff')], ...nasGlyph(0.27, 0.22, 0.73, 0.78, WHITE, hex('#c9d6f5'), hex('#2f6fde'))];
mkdirSync(join(OUT, 'tray'), { recursive: true });
writeFileSync(join(OUT, 'icon.png'), png(512, draw(512, app)));

// Tray: grey NAS glyph, a coloured badge per state, each with its own mark.
const badge = (colour, mark) => [[circle(0.74, 0.74, 0.25), WHITE], [circle(0.74, 0.74, 0.21), colour], ...mark];
const STATES = {
  synced: badge(hex('#1f9d55'), [[(x, y) => { const u = x - 0.74, v = y - 0.74; return (Math.abs(v - u * 1.0 - 0.06) < 0.035 && u > -0.12 && u < 0.0) || (Math.abs(v + u * 1.2 - 0.06) < 0.035 && u >= -0.02 && u < 0.12); }, WHITE]]),
  syncing: badge(hex('#2f6fde'), [[ring(0.74, 0.74, 0.13, 0.05), WHITE], [roundRect(0.74, 0.58, 0.9, 0.74, 0.0), hex('#2f6fde')]]),
  paused: badge(hex('#6b7280'), [[roundRect(0.66, 0.63, 0.715, 0.85, 0.01), WHITE], [roundRect(0.765, 0.63, 0.82, 0.85, 0.01), WHITE]]),
  offline: badge(hex('#9ca3af'), [[(x, y) => Math.abs((x - 0.74) - (y - 0.74)) < 0.04 && Math.abs(x - 0.74) < 0.12, WHITE], [(x, y) => Math.abs((x - 0.74) + (y - 0.74)) < 0.04 && Math.abs(x - 0.74) < 0.12, WHITE]]),
  attention: badge(hex('#d93025'), [[roundRect(0.715, 0.6, 0.765, 0.79, 0.02), WHITE], [circle(0.74, 0.86, 0.032), WHITE]]),
  stale: badge(hex('#d98c00'), [[ring(0.74, 0.74, 0.14, 0.04), WHITE], [roundRect(0.725, 0.64, 0.755, 0.76, 0.01), WHITE], [roundRect(0.725, 0.73, 0.82, 0.76, 0.01), WHITE]]),
};
for (const [name, extra] of Object.entries(STATES)) {
  const layers = [...nasGlyph(0.08, 0.04, 0.62, 0.72, DARK, hex('#8b93a5'), hex('#d7dbe3')), ...extra];
  writeFileSync(join(OUT, 'tray', `${name}.png`), png(32, draw(32, layers)));
  writeFileSync(join(OUT, 'tray', `${name}@2x.png`), png(64, draw(64, layers)));
}
// A strip of all six at 64 px, to look at them side by side (docs only).
console.log('icons written to', OUT);
