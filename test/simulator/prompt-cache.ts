// The provider's prompt cache as the simulator bills it (docs/testing.md, "The bill"): which part of a
// request's prompt is read from the cache, which is written to it, and which is plain input, computed from the
// prefixes earlier requests left in the cache. The rules, as the provider documents prompt caching:
//
// - The prompt is one sequence of blocks in a fixed order: tool definitions, then system blocks, then each message's
//   content blocks. A prefix is identified by the model and every block up to it (cache_control itself aside); a
//   change to `thinking` or `tool_choice` changes the message part of every prefix but leaves tools and system.
// - `cache_control` on a block (a breakpoint; at most 4, refusals.ts) marks the end of a prefix to cache. A top-level
//   `cache_control` (automatic caching) puts one on the last block, unless that block already has one.
// - Lifetimes: 5 minutes by default, 1 hour with `ttl: "1h"`. Reading an entry starts its lifetime again.
// - A prefix shorter than the model's minimum (minCacheableTokens) is never written, breakpoint or not.
// - From each breakpoint the cache is looked up at that block and at the blocks before it, up to 20 blocks in all
//   (LOOKBACK_BLOCKS); the longest live prefix found over all breakpoints is read.
// - What lies between the read prefix and the last breakpoint that may be written is written; each written token is
//   billed at the lifetime of the first breakpoint at or after it (cache_creation.ephemeral_5m/1h_input_tokens).
//   The rest of the prompt is plain input_tokens.
//
// Token counting is deterministic (tokenCount): under the default rule `words`, whitespace-separated words of a
// block's text (today's rule, so the counts tests already assert stay); under `bytes`, 4 UTF-8 bytes a token,
// rounded up, per block. A tool definition counts its JSON; a tool_use its input as JSON; a tool_result its
// content; any other block its JSON. cache_control never counts.

import { createHash } from 'node:crypto';

export type TokenRule = 'words' | 'bytes';
export type CacheTtl = '5m' | '1h';

/** One block of the prompt, in the provider's processing order. */
export interface PromptBlock {
  /** Where the block sits in the request, as the provider names it in errors: tools.0, system.1, messages.2.content.0. */
  path: string;
  section: 'tools' | 'system' | 'messages';
  /** The block's type (text, image, tool_use...); undefined for a tool definition without one. */
  type?: string;
  /** The block itself without cache_control (a string block as a text block), for the prefix identity. */
  key: string;
  /** The text whose tokens are counted. */
  text: string;
  /** cache_control as sent, when there is one (validated by refusals.ts). */
  cacheControl?: Record<string, unknown>;
}

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** From each breakpoint, the cache is looked up at this many blocks (the breakpoint's own and those before it). */
export const LOOKBACK_BLOCKS = 20;
export const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/**
 * The smallest prefix the provider caches for a model, in tokens. The provider documents 1,024 for most models,
 * 2,048 for the older haiku-class ones and for sonnet-4-6, and 4,096 for haiku-4-5 and opus-4-5 / 4-6.
 */
export function minCacheableTokens(model: string): number {
  if (/haiku-4-5|opus-4-[56]/.test(model)) return 4096;
  if (/haiku|sonnet-4-6/.test(model)) return 2048;
  return 1024;
}

export function tokenCount(text: string, rule: TokenRule): number {
  if (rule === 'bytes') return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
  const words = text.trim().split(/\s+/);
  return words[0] === '' ? 0 : words.length;
}

function withoutCacheControl(block: Record<string, unknown>): Record<string, unknown> {
  if (!('cache_control' in block)) return block;
  const { cache_control: _omit, ...rest } = block;
  return rest;
}

/** The counted text of a content block: text, thinking, tool_use input, tool_result content; else its JSON. */
function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (!block || typeof block !== 'object') return '';
  const b = block as Record<string, unknown>;
  if (typeof b.text === 'string') return b.text;
  if (b.type === 'thinking' && typeof b.thinking === 'string') return b.thinking;
  if (b.type === 'tool_use') return JSON.stringify(b.input ?? {});
  if (b.type === 'tool_result') {
    if (typeof b.content === 'string') return b.content;
    return Array.isArray(b.content) ? b.content.map(blockText).join(' ') : '';
  }
  return JSON.stringify(withoutCacheControl(b));
}

function blockOf(path: string, section: PromptBlock['section'], raw: unknown, prefix = ''): PromptBlock {
  const asObject = typeof raw === 'string' ? { type: 'text', text: raw } : ((raw ?? {}) as Record<string, unknown>);
  const cc = asObject.cache_control;
  const text = section === 'tools' ? JSON.stringify(withoutCacheControl(asObject)) : blockText(raw);
  return {
    path,
    section,
    type: typeof asObject.type === 'string' ? asObject.type : undefined,
    key: prefix + JSON.stringify(withoutCacheControl(asObject)),
    text,
    cacheControl: cc && typeof cc === 'object' ? (cc as Record<string, unknown>) : undefined,
  };
}

/** The request's prompt as blocks in the provider's order: tools, system, messages. */
export function promptBlocks(body: Record<string, unknown>): PromptBlock[] {
  const out: PromptBlock[] = [];
  if (Array.isArray(body.tools)) body.tools.forEach((t, i) => out.push(blockOf(`tools.${i}`, 'tools', t)));
  if (typeof body.system === 'string') {
    if (body.system !== '') out.push(blockOf('system', 'system', body.system));
  } else if (Array.isArray(body.system)) body.system.forEach((s, i) => out.push(blockOf(`system.${i}`, 'system', s)));
  if (Array.isArray(body.messages)) {
    body.messages.forEach((m, i) => {
      const msg = (m ?? {}) as { role?: unknown; content?: unknown };
      const role = `${String(msg.role)}:`;
      if (typeof msg.content === 'string') out.push(blockOf(`messages.${i}.content`, 'messages', msg.content, role));
      else if (Array.isArray(msg.content))
        msg.content.forEach((c, j) =>
          out.push(blockOf(`messages.${i}.content.${j}`, 'messages', c, j === 0 ? role : '')),
        );
    });
  }
  return out;
}

export function ttlOf(cc: Record<string, unknown> | undefined): CacheTtl {
  return cc?.ttl === '1h' ? '1h' : '5m';
}

/** Indexes of the blocks that end a prefix to cache: those with cache_control, plus the last one under automatic caching. */
export function breakpointsOf(body: Record<string, unknown>, blocks: PromptBlock[]): number[] {
  const marks = blocks.flatMap((b, i) => (b.cacheControl ? [i] : []));
  const auto = body.cache_control;
  const last = blocks.length - 1;
  if (auto && typeof auto === 'object' && last >= 0 && !blocks[last].cacheControl) {
    blocks[last] = { ...blocks[last], cacheControl: auto as Record<string, unknown> };
    marks.push(last);
  }
  return marks;
}

interface Entry {
  expiresAt: number;
  ttl: CacheTtl;
}

/** The provider's cache of prefixes: one per simulator, emptied by its reset(). */
export class PromptCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bills one request and updates the cache: reads refresh their entries, writes add new ones. */
  bill(body: Record<string, unknown>, rule: TokenRule): CacheUsage {
    const blocks = promptBlocks(body);
    const breakpoints = breakpointsOf(body, blocks);
    const tokens = blocks.map((b) => tokenCount(b.text, rule));
    const total = tokens.reduce((n, t) => n + t, 0);
    const usage: CacheUsage = {
      input_tokens: total,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    };
    if (breakpoints.length === 0) return usage;

    const now = this.now();
    const model = typeof body.model === 'string' ? body.model : '';
    const hashes = prefixHashes(model, body, blocks);
    const upTo: number[] = [];
    tokens.reduce((n, t, i) => (upTo[i] = n + t), 0);

    this.dropExpired(now);
    // Reads: from each breakpoint, the nearest live entry within the lookback; the longest of them is read.
    let readAt = -1;
    for (const b of breakpoints) {
      for (let i = b; i >= 0 && i > b - LOOKBACK_BLOCKS; i--) {
        const hit = this.entries.get(hashes[i]);
        if (!hit) continue;
        hit.expiresAt = now + TTL_MS[hit.ttl];
        readAt = Math.max(readAt, i);
        break;
      }
    }
    // Writes: every breakpoint whose prefix reaches the minimum; tokens past the read prefix are billed once, at
    // the lifetime of the first breakpoint at or after them.
    const min = minCacheableTokens(model);
    let billedTo = readAt;
    for (const b of [...breakpoints].sort((x, y) => x - y)) {
      if (upTo[b] < min) continue;
      const ttl = ttlOf(blocks[b].cacheControl);
      const existing = this.entries.get(hashes[b]);
      const keep = existing && TTL_MS[existing.ttl] > TTL_MS[ttl] ? existing.ttl : ttl;
      this.entries.set(hashes[b], { ttl: keep, expiresAt: now + TTL_MS[keep] });
      if (b <= billedTo) continue;
      const written = upTo[b] - (billedTo >= 0 ? upTo[billedTo] : 0);
      usage.cache_creation[ttl === '1h' ? 'ephemeral_1h_input_tokens' : 'ephemeral_5m_input_tokens'] += written;
      billedTo = b;
    }
    usage.cache_read_input_tokens = readAt >= 0 ? upTo[readAt] : 0;
    usage.cache_creation_input_tokens =
      usage.cache_creation.ephemeral_5m_input_tokens + usage.cache_creation.ephemeral_1h_input_tokens;
    usage.input_tokens = total - usage.cache_read_input_tokens - usage.cache_creation_input_tokens;
    return usage;
  }

  private dropExpired(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

/** The identity of each prefix: a hash chained over the model and the blocks; messages also carry thinking and tool_choice. */
function prefixHashes(model: string, body: Record<string, unknown>, blocks: PromptBlock[]): string[] {
  let h = createHash('sha256').update(`model:${model}`).digest('hex');
  const messageContext = JSON.stringify({ thinking: body.thinking ?? null, tool_choice: body.tool_choice ?? null });
  let inMessages = false;
  return blocks.map((b) => {
    const hash = createHash('sha256').update(h).update('\n');
    if (b.section === 'messages' && !inMessages) {
      inMessages = true;
      hash.update(messageContext).update('\n');
    }
    h = hash.update(b.key).digest('hex');
    return h;
  });
}

/** Input tokens of a request with nothing read or written: the count_tokens answer and the uncached bill. */
export function promptTokens(body: Record<string, unknown>, rule: TokenRule): number {
  return promptBlocks(body).reduce((n, b) => n + tokenCount(b.text, rule), 0);
}
