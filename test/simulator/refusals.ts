// What the provider refuses before it answers, as its documentation (extended thinking, prompt caching, PDF support)
// states, in its own words and shape: HTTP 400, `invalid_request_error`. The simulator checks these so that a proxy which passes on a
// request the provider would refuse is caught in tests, not by users. Returns the message of the first refusal, or
// undefined when the request may go on.

import { breakpointsOf, promptBlocks, ttlOf } from './prompt-cache.js';

const thinkingDocs = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
const MAX_BREAKPOINTS = 4;
const MIN_THINKING_BUDGET = 1024;

function thinkingRefusal(body: Record<string, unknown>): string | undefined {
  const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (!thinking || typeof thinking !== 'object' || thinking.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget)) return 'thinking.enabled.budget_tokens: Field required';
  if (budget < MIN_THINKING_BUDGET)
    return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`;
  if (typeof body.max_tokens === 'number' && budget >= body.max_tokens) {
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${thinkingDocs}#max-tokens-and-context-window-size`;
  }
  const considerations = `Please consult our documentation at ${thinkingDocs}#important-considerations-when-using-extended-thinking`;
  if (body.temperature !== undefined && body.temperature !== null && body.temperature !== 1) {
    return `\`temperature\` may only be set to 1 when thinking is enabled. ${considerations}`;
  }
  if (body.top_k !== undefined && body.top_k !== null)
    return `\`top_k\` must be unset when thinking is enabled. ${considerations}`;
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    return `\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${considerations}`;
  }
  const choice = (body.tool_choice as { type?: unknown } | undefined)?.type;
  if (choice === 'any' || choice === 'tool') return 'Thinking may not be enabled when tool_choice forces tool use.';
  return undefined;
}

function samplingRefusal(body: Record<string, unknown>): string | undefined {
  if (body.max_tokens === undefined) return 'max_tokens: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return 'max_tokens: Input should be greater than or equal to 1';
  }
  const t = body.temperature;
  if (typeof t === 'number' && (t < 0 || t > 1))
    return `temperature: Input should be ${t < 0 ? 'greater than or equal to 0' : 'less than or equal to 1'}`;
  return undefined;
}

function cacheRefusal(body: Record<string, unknown>): string | undefined {
  const blocks = promptBlocks(body);
  for (const b of blocks) {
    const cc = b.cacheControl;
    if (!cc) continue;
    if (cc.type !== 'ephemeral') return `${b.path}.cache_control.type: Input should be 'ephemeral'`;
    if (cc.ttl !== undefined && cc.ttl !== '5m' && cc.ttl !== '1h')
      return `${b.path}.cache_control.ephemeral.ttl: Input should be '5m' or '1h'`;
    if (b.section !== 'tools' && b.type === 'text' && b.text === '')
      return `${b.path}: cache_control cannot be set for empty text blocks`;
  }
  const marks = breakpointsOf(body, blocks);
  if (marks.length > MAX_BREAKPOINTS)
    return `A maximum of ${MAX_BREAKPOINTS} blocks with \`cache_control\` may be provided. Found ${marks.length}.`;
  // Lifetimes may only shorten along the prompt: a 1-hour breakpoint after a 5-minute one is refused.
  let seenShort = false;
  for (const i of [...marks].sort((x, y) => x - y)) {
    const ttl = ttlOf(blocks[i].cacheControl);
    if (ttl === '1h' && seenShort) {
      return `${blocks[i].path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: \`tools\`, \`system\`, \`messages\`.`;
    }
    if (ttl === '5m') seenShort = true;
  }
  return undefined;
}

/** A document the provider cannot read: a base64 source that is not a PDF, a text source that is not plain text. */
function documentRefusal(body: Record<string, unknown>): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as Array<{ type?: unknown; source?: Record<string, unknown> }>).entries()) {
      if (b.type !== 'document') continue;
      const at = `messages.${i}.content.${j}.document.source`;
      if (b.source?.type === 'base64' && b.source.media_type !== 'application/pdf')
        return `${at}.base64.media_type: Input should be 'application/pdf'`;
      if (b.source?.type === 'text' && b.source.media_type !== 'text/plain')
        return `${at}.text.media_type: Input should be 'text/plain'`;
    }
  }
  return undefined;
}

/** The provider's refusal of a native Messages request, or undefined. Checked after the body's basic shape. */
export function refusalOf(body: Record<string, unknown>): string | undefined {
  return samplingRefusal(body) ?? thinkingRefusal(body) ?? cacheRefusal(body) ?? documentRefusal(body);
}
