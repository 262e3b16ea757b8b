// Prompt-cache marks for direct mode's translated routes (docs/direct-mode.md "The prompt cache"). A client of the
// compatible, Responses or Ollama format cannot mark its history for the provider's cache, and the provider caches
// only what a request marks, so without marks every turn pays its whole history again. This step, pure, adds the
// marks a conversation needs to the native request before it goes out:
//
// - the growing end: the last block of the last message, so this request writes its whole prompt and the next one,
//   which repeats it and adds the answer and a new turn, reads it;
// - a bridge: the previous request's end (the last block of the user message before the newest assistant message),
//   when it lies more blocks back than the provider's lookback from the end: an answer with a dozen parallel tool
//   calls and their results adds more than that, and would miss without it;
// - the stable prefix: the end of the system prompt (or of the tools when there is none), which every conversation
//   of the same client shares.
//
// The provider's rules are kept (profile.api.promptCache): never more marks than it allows, the client's own marks
// and a top-level automatic one counted first; none on a thinking block or an empty text block; a 1-hour mark never
// after a 5-minute one. A one-off request (one user message, no tools) gets only the stable-prefix mark: nothing
// would read its message back, and a write costs more than plain input (docs/direct-mode.md says what it measured).
// Nothing the client sent is changed in place: a block that gains a mark is a copy, and so is each list on its path,
// because a chained Responses history is the stored one.

import type { PromptCacheRules } from '../../profile.js';
import type { NativeContentBlock, NativeRequest, NativeTool } from '../../formats/native.js';

/** The lifetime the marks ask for (the setting DIRECT_PROMPT_CACHE), or off. */
export type CacheTtl = '5m' | '1h';

type Mark = { type: 'ephemeral'; ttl?: '1h' };
type Marked = { cache_control?: unknown };

/** Where a block sits: a tool, a system block, or a message's content block (the prompt's order). */
type Place = { at: 'tools'; i: number } | { at: 'system'; i: number } | { at: 'messages'; m: number; c: number };

interface Planned {
  place: Place;
  /** Position in the prompt's order, for the lifetime rule. */
  order: number;
}

const ttlOf = (cc: unknown): CacheTtl =>
  typeof cc === 'object' && cc !== null && (cc as { ttl?: unknown }).ttl === '1h' ? '1h' : '5m';

function markable(block: NativeContentBlock | string, rules: PromptCacheRules): boolean {
  if (typeof block === 'string') return block !== '';
  if (rules.unmarkableTypes.includes(block.type)) return false;
  return !(block.type === 'text' && block.text === '');
}

/** The blocks of a message's content as the provider sees them (a string is one text block). */
const blocksOf = (content: string | NativeContentBlock[]): Array<NativeContentBlock | string> =>
  typeof content === 'string' ? [content] : content;

/** Every mark already in the request, with its prompt position, and whether a top-level one is there. */
function existingMarks(req: NativeRequest): { order: number; ttl: CacheTtl }[] {
  const out: { order: number; ttl: CacheTtl }[] = [];
  let order = 0;
  for (const tool of req.tools ?? []) {
    const cc = (tool as Marked).cache_control;
    if (cc) out.push({ order, ttl: ttlOf(cc) });
    order++;
  }
  if (Array.isArray(req.system))
    for (const block of req.system) {
      if (block.cache_control) out.push({ order, ttl: ttlOf(block.cache_control) });
      order++;
    }
  else if (req.system) order++;
  for (const message of req.messages)
    for (const block of blocksOf(message.content)) {
      const cc = typeof block === 'string' ? undefined : (block as Marked).cache_control;
      if (cc) out.push({ order, ttl: ttlOf(cc) });
      order++;
    }
  const auto = (req as Marked).cache_control;
  // The automatic mark sits on the last block: it counts, and its lifetime is the prompt's last.
  if (auto) out.push({ order, ttl: ttlOf(auto) });
  return out;
}

/** Offsets of each section in the prompt's order. */
function offsets(req: NativeRequest): { system: number; messages: number[] } {
  const tools = req.tools?.length ?? 0;
  const system = Array.isArray(req.system) ? req.system.length : req.system ? 1 : 0;
  const messages: number[] = [];
  let at = tools + system;
  for (const message of req.messages) {
    messages.push(at);
    at += blocksOf(message.content).length;
  }
  return { system: tools, messages };
}

/** The last markable block of message m, or undefined. */
function lastMarkable(req: NativeRequest, m: number, rules: PromptCacheRules, starts: number[]): Planned | undefined {
  const blocks = blocksOf(req.messages[m].content);
  for (let c = blocks.length - 1; c >= 0; c--)
    if (markable(blocks[c], rules)) return { place: { at: 'messages', m, c }, order: starts[m] + c };
  return undefined;
}

/** The end of the stable prefix: the system prompt's last markable block, else the last tool. */
function prefixEnd(req: NativeRequest, systemStart: number): Planned | undefined {
  if (typeof req.system === 'string' && req.system !== '') return { place: { at: 'system', i: 0 }, order: systemStart };
  if (Array.isArray(req.system))
    for (let i = req.system.length - 1; i >= 0; i--)
      if (req.system[i].text !== '') return { place: { at: 'system', i }, order: systemStart + i };
  const tools = req.tools?.length ?? 0;
  return tools > 0 ? { place: { at: 'tools', i: tools - 1 }, order: tools - 1 } : undefined;
}

/** The marks this request should gain, in priority order (end, bridge, prefix), before the budget is applied. */
function plan(req: NativeRequest, rules: PromptCacheRules): Planned[] {
  const { system, messages: starts } = offsets(req);
  const last = req.messages.length - 1;
  const prefix = prefixEnd(req, system);
  const oneOff = req.messages.length === 1 && !(req.tools && req.tools.length > 0);
  if (oneOff) return prefix ? [prefix] : [];
  const out: Planned[] = [];
  const end = lastMarkable(req, last, rules, starts);
  if (end) out.push(end);
  // The previous request ended at the user message before the newest assistant message.
  let answer = last;
  while (answer >= 0 && req.messages[answer].role !== 'assistant') answer--;
  for (let m = answer - 1; m >= 0; m--) {
    if (req.messages[m].role !== 'user') continue;
    const bridge = lastMarkable(req, m, rules, starts);
    if (bridge && (!end || end.order - bridge.order >= rules.lookbackBlocks)) out.push(bridge);
    break;
  }
  if (prefix && !out.some((p) => p.order === prefix.order)) out.push(prefix);
  return out;
}

function withMark<T extends object>(block: T, mark: Mark): T & Marked {
  return { ...block, cache_control: mark };
}

/**
 * The request with the marks its conversation needs (the header above), or the request itself when none is due
 * or the provider's limit is already reached. `ttl` is the lifetime asked for; a mark before a client's 1-hour mark
 * takes 1 hour, and one after a client's 5-minute mark takes 5 minutes, the order the provider requires.
 */
export function withCacheMarks(req: NativeRequest, ttl: CacheTtl, rules: PromptCacheRules): NativeRequest {
  const existing = existingMarks(req);
  const budget = rules.maxBreakpoints - existing.length;
  if (budget <= 0) return req;
  const taken = plan(req, rules)
    .filter((p) => !existing.some((e) => e.order === p.order))
    .slice(0, budget);
  if (taken.length === 0) return req;

  const markAt = (order: number): Mark => {
    let own = ttl;
    if (own === '1h' && existing.some((e) => e.order < order && e.ttl === '5m')) own = '5m';
    if (own === '5m' && existing.some((e) => e.order > order && e.ttl === '1h')) own = '1h';
    return own === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  };

  const out: NativeRequest = { ...req };
  for (const { place, order } of taken) {
    const mark = markAt(order);
    if (place.at === 'tools') {
      const tools = [...(out.tools ?? [])];
      tools[place.i] = withMark(tools[place.i], mark) as NativeTool;
      out.tools = tools;
    } else if (place.at === 'system') {
      const system = typeof out.system === 'string' ? [{ type: 'text' as const, text: out.system }] : [...out.system!];
      system[place.i] = withMark(system[place.i], mark);
      out.system = system;
    } else {
      const messages = out.messages === req.messages ? [...req.messages] : out.messages;
      const message = messages[place.m];
      const content =
        typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : [...message.content];
      content[place.c] = withMark(content[place.c], mark);
      messages[place.m] = { ...message, content };
      out.messages = messages;
    }
  }
  return out;
}
