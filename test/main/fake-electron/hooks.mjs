// Node module-customization hooks (module.register, Node >= 20.6): the bare specifier `electron` resolves to the
// fake in index.mjs, for the app and for electron-store alike. Everything else resolves as usual.

import { URL } from 'node:url';

const fake = new URL('./index.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: fake, shortCircuit: true };
  return nextResolve(specifier, context);
}
