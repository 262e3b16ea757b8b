// Preload for `node --import <this file> dist/main/index.js`: registers hooks.mjs so `import electron from
// 'electron'` gets the fake in index.mjs instead of the electron package (whose binary is not installed here).

import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
