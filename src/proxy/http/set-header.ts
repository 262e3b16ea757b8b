// A response header on the hot path. Koa 3's ctx.set builds an entries array, a mapped array and a pair per call,
// for each of the dozen headers a forwarded answer carries. Same rule as ctx.set: nothing once the
// headers are sent. A header node would repeat is passed to Koa, which keeps one value of a single-value header.

import type { ProxyContext } from './types.js';

export function setHeader(ctx: ProxyContext, name: string, value: string | string[]): void {
  if (ctx.headerSent) return;
  if (typeof value === 'string') ctx.res.setHeader(name, value);
  else if (value.length === 1) ctx.res.setHeader(name, value[0]);
  else ctx.set(name, value);
}
