// Builds the desktop window (src/renderer) to static files in dist/renderer. `base: './'` because Electron loads
// the page from file://, where absolute /assets/... paths would point at the filesystem root.

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('./src/renderer', import.meta.url));

export default defineConfig({
  root,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: true,
    // One small page: keep the output to a handful of files the test server and Electron can load as they are.
    chunkSizeWarningLimit: 1000,
  },
});
