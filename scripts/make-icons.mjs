#!/usr/bin/env node
// Draws the app and tray icons into assets/ with Node built-ins only (zlib for PNG), so the icons are
// reproducible from source and need no design tool or network. Run: node scripts/make-icons.mjs
//
//   assets/icon.png                   1024 px app icon (electron-builder derives .icns/.ico from it)
//   assets/icons/<n>x<n>.png          Linux icon set (16 … 512)
//   assets/tray/<state>.png, @2x      coloured tray icons for Windows (16 px): running, stopped, attention
//   assets/tray/linux/<state>.png     the same at 24 px (and @2x 48 px) for Linux tray hosts
//   assets/tray/<state>Template.png   macOS template images (black + alpha; the menu bar tints them)

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { deflateSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

// ---- PNG encoding ----
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
export function encodePng(width, height, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- drawing: layers of shapes in unit coordinates (0..1), 4x4 supersampled ----
const circle = (cx, cy, r) => (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
const ring = (cx, cy, r, w) => (x, y) => {
  const d = Math.hypot(x - cx, y - cy);
  return d <= r && d >= r - w;
};
const roundRect = (x0, y0, x1, y1, r) => (x, y) => {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
};
/** An exclamation mark centred on (cx, cy) with height h. */
const bang = (cx, cy, h) => {
  const w = h * 0.2;
  const bar = roundRect(cx - w / 2, cy - h / 2, cx + w / 2, cy + h * 0.18, w / 2);
  const dot = circle(cx, cy + h / 2 - w / 2, w * 0.62);
  return (x, y) => bar(x, y) || dot(x, y);
};

/** layers: [{ shape, color: [r,g,b,a] or 'clear' }] painted in order ('clear' erases). */
function render(size, layers) {
  const out = Buffer.alloc(size * size * 4);
  const S = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const x = (px + (sx + 0.5) / S) / size;
          const y = (py + (sy + 0.5) / S) / size;
          let c = [0, 0, 0, 0];
          for (const layer of layers) if (layer.shape(x, y)) c = layer.color === 'clear' ? [0, 0, 0, 0] : layer.color;
          const alpha = c[3] / 255;
          r += c[0] * alpha;
          g += c[1] * alpha;
          b += c[2] * alpha;
          a += alpha;
        }
      }
      const i = (py * size + px) * 4;
      out[i + 3] = Math.round((a / (S * S)) * 255);
      if (a > 0) {
        out[i] = Math.round(r / a);
        out[i + 1] = Math.round(g / a);
        out[i + 2] = Math.round(b / a);
      }
    }
  }
  return out;
}

function write(path, size, layers) {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, encodePng(size, size, render(size, layers)));
}

// ---- the icons ----
const blue = [47, 125, 225, 255];
const white = [255, 255, 255, 255];
const green = [43, 138, 62, 255];
const grey = [134, 142, 150, 255];
const amber = [230, 119, 0, 255];
const black = [0, 0, 0, 255];

// App icon: a blue rounded square with a white "relay": two nodes joined through a hub.
const appLayers = [
  { shape: roundRect(0.06, 0.06, 0.94, 0.94, 0.2), color: blue },
  { shape: roundRect(0.22, 0.465, 0.78, 0.535, 0.035), color: white },
  { shape: circle(0.24, 0.5, 0.1), color: white },
  { shape: circle(0.76, 0.5, 0.1), color: white },
  { shape: ring(0.5, 0.5, 0.17, 0.06), color: white },
  { shape: circle(0.5, 0.5, 0.11), color: blue },
];
write('icon.png', 1024, appLayers);
for (const n of [16, 24, 32, 48, 64, 128, 256, 512]) write(`icons/${n}x${n}.png`, n, appLayers);

const tray = {
  running: {
    color: [
      { shape: circle(0.5, 0.5, 0.42), color: green },
      { shape: circle(0.5, 0.5, 0.16), color: white },
    ],
    template: [
      { shape: circle(0.5, 0.5, 0.42), color: black },
      { shape: circle(0.5, 0.5, 0.16), color: 'clear' },
    ],
  },
  stopped: {
    color: [{ shape: ring(0.5, 0.5, 0.42, 0.13), color: grey }],
    template: [{ shape: ring(0.5, 0.5, 0.42, 0.13), color: black }],
  },
  attention: {
    color: [
      { shape: circle(0.5, 0.5, 0.45), color: amber },
      { shape: bang(0.5, 0.5, 0.58), color: white },
    ],
    template: [
      { shape: circle(0.5, 0.5, 0.45), color: black },
      { shape: bang(0.5, 0.5, 0.58), color: 'clear' },
    ],
  },
};
for (const [state, { color, template }] of Object.entries(tray)) {
  write(`tray/${state}.png`, 16, color);
  write(`tray/${state}@2x.png`, 32, color);
  write(`tray/${state}Template.png`, 16, template);
  write(`tray/${state}Template@2x.png`, 32, template);
  // Linux status-notifier hosts (KDE, GNOME's AppIndicator extension, XFCE) draw tray icons at 22-24 px; a 16 px
  // image is shown small or scaled up blurred. Electron documents no Linux size, so this is a choice
  // (docs/desktop.md "Platform details, and how each is known"); Windows keeps 16 px, the small-icon size Electron's
  // nativeImage page lists.
  write(`tray/linux/${state}.png`, 24, color);
  write(`tray/linux/${state}@2x.png`, 48, color);
}
process.stdout.write(`icons written to ${root}\n`);
