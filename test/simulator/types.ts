// Shapes shared by the simulator's route files: what a test can tune (knobs), what the simulator records, and the
// mutable state the handlers share. Kept apart from index.ts so the route files import no server code.

import type { ServerResponse } from 'node:http';
import type { CacheUsage, PromptCache, TokenRule } from './prompt-cache.js';

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. /v1/messages. */
  path: string;
  /** Query string without the leading '?', '' when none (the CLI sends ?beta=true). */
  query: string;
  /** The full request target as received. */
  url: string;
  /** Header names lower-cased; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  /** The body parsed as JSON, or undefined when it was empty or not JSON. */
  json: unknown;
  timestamp: number;
  /** True when the client went away before the simulator finished its answer. */
  aborted: boolean;
  /** The status the simulator answered with, once it has (unset while pending or when the connection was cut). */
  answeredStatus?: number;
  /** What a /v1/messages answer billed for the prompt (prompt-cache.ts), once it was accepted. */
  billed?: CacheUsage;
}

export interface FailWith {
  status: 400 | 401 | 403 | 404 | 413 | 429 | 500 | 503 | 529;
  /** Seconds, sent as retry-after (429 always carries one, default 1). */
  retryAfter?: number;
  /** Fail only this many requests, then answer normally again. Unset: fail until the knob is cleared. */
  times?: number;
  message?: string;
}

/**
 * - truncate: end the response cleanly after half the deltas, without message_delta/message_stop.
 * - reset: destroy the socket after half the deltas (no terminating chunk: the client sees a network error).
 * - stall: stop writing after half the deltas; the socket stays open until close() or the client aborts.
 * - error: send an in-stream `event: error` (overloaded_error) after half the deltas, then end.
 * A non-streamed native message answer has the same faults (docs/testing.md "Faults"): it is then sent chunked
 * (jsonChunks, at least 2 writes) and truncate/reset/stall happen after half the writes; error answers 200 with the
 * error object as the body.
 */
export type StreamFault = 'truncate' | 'reset' | 'stall' | 'error';

export type TokenSet = Set<string> | string[];

export interface OverageState {
  /** Extra usage is billing this answer (`-overage-in-use: true`, representative claim `overage`). */
  inUse: boolean;
  /** `allowed`, `allowed_warning` or `rejected` (extra usage off or exhausted); default allowed when inUse, else rejected. */
  status?: string;
  /** A fraction of the extra-usage allowance. */
  utilization?: number;
  /** Unix seconds. */
  resetsAt?: number;
  /** Why extra usage is off, e.g. `out_of_credits`, `org_level_disabled`. */
  disabledReason?: string;
  /** The overall unified status; default allowed. */
  unifiedStatus?: string;
}

export interface SimulatorKnobs {
  /** Text of every native reply. */
  replyText: string;
  /** Split the reply into this many pieces; unset: one piece per word (trailing space kept). */
  chunkCount?: number;
  /** Delay before each stream delta after the first. */
  chunkIntervalMs: number;
  /** Held back before the first content delta of a stream (after message_start; in the response API after
   * response.created), e.g. to tell the role chunk from the first token. */
  firstDeltaDelayMs: number;
  /** Prompt-cache token counts reported in every usage instead of what the prompt cache billed (prompt-cache.ts):
   * native cache fields (writes as 5-minute ones); the response API's cached_tokens. */
  cacheTokens?: { read: number; write: number };
  /** Delay before the response starts (status line and headers). */
  latencyMs: number;
  /**
   * A non-streamed message answer sent without a content-length, chunked (Transfer-Encoding: chunked), in this many
   * writes, each on its own turn of the event loop (or chunkIntervalMs apart), as a provider behind a re-chunking
   * CDN sends it; a streamFault applies after half the writes (StreamFault). Unset or 0: one write with a
   * content-length. 'alternate': every other answer chunked in 2 writes, the rest with a length.
   */
  jsonChunks?: number | 'alternate';
  /** Send a `ping` event after content_block_start, like the real API. */
  ping: boolean;
  /** When non-empty, only these x-api-key / bearer values are accepted on the native API. */
  acceptTokens: TokenSet;
  /** Input of the tool_use block answered when the request has tools. */
  toolInput: unknown;
  /** Drive a coding agent's own tool loop (agent-tool-loop.ts): read this file with the agent's read tool, then
   * answer with its content. Unset: the plain tool_use of toolInput. */
  agentToolLoop?: {
    /** The file the model asks the agent to read (absolute: every agent's read tool takes one). */
    path: string;
    /** Text put before the quoted file content in the final answer; default "The file says:". */
    answerPrefix?: string;
  };
  /** The model the answers name instead of the one the request asked for (a provider that served another one). */
  answerModel?: string;
  /** Answer a request that carries tools with a tool_use block (default). Off: always answer text, as a model
   * that chose not to call a tool does (the real CLI sends its own tools with every request). */
  answerTools: boolean;
  /** The tool the tool_use blocks name, when the request offers it (a scripted model that asks for one tool, whatever
   * else the client sends); unset: the request's tools in turn. */
  toolName?: string;
  /** How many tool_use blocks one answer carries (default 1); the i-th names the request's tool i modulo their count. */
  toolCalls?: number;
  /** Text block sent before the tool_use block; unset: the tool_use block comes alone. */
  toolPreamble?: string;
  /**
   * The tool a model calls once the results of its other calls are back, when the request offers it (by name, or by
   * a name the CLI's MCP prefix `mcp__<server>__` is put before): a structured-output tool after the client's own
   * tools, say. Its own result back is answered with text. Unset: results are answered with text.
   */
  finalTool?: { name: string; input: unknown };
  failWith?: FailWith;
  streamFault?: StreamFault;
  /** The error event a streamFault of `error` sends; unset: the provider's overloaded error. */
  streamError?: { type: string; message: string };
  /** Refresh tokens the CLI token endpoint accepts; unset: any non-empty one. */
  validRefreshTokens?: TokenSet;
  /** Remove a refresh token from validRefreshTokens once used (the real endpoint rotates them). */
  rotateRefreshTokens: boolean;
  refreshFail: boolean;
  /** Delay of both token endpoints, so concurrent refreshers can pile up. */
  refreshDelayMs: number;
  respapiReplyText: string;
  /** When non-empty, only these bearer JWTs are accepted on the response API. */
  respapiAcceptTokens: TokenSet;
  respapiNoSubscription: boolean;
  respapiFailWith?: FailWith;
  respapiRefreshFail: boolean;
  /** Account id put into minted response-API tokens. */
  respapiAccountId: string;
  /** Cut the connection right after reading a request, before any status line (every route; fault tests). A
   * path (or prefix ending in '*') limits it to those requests. */
  dropBeforeHeaders?: boolean | string;
  /** Extra response headers on every native API answer (e.g. the subscription quota headers direct mode reads). */
  quotaHeaders?: Record<string, string>;
  /**
   * The subscription's billing state as the provider reports it on every native answer (billing.ts): unified
   * status and representative claim, and the overage (extra usage) status, in-use flag, utilization and disabled
   * reason. Unset: none of these headers.
   */
  overage?: OverageState;
  /**
   * Refuse native chats as the provider does for billing reasons (billing.ts), HTTP 400 invalid_request_error in its
   * own words: `extra_usage_off` (third-party use of a subscription while extra usage is off), `cli_only_credential`
   * (a subscription login used outside its CLI). `when`: `always`, or by what the provider reportedly looks at
   * (`third-party`: a tool named with a single-underscore `mcp_` prefix, or an OAuth request whose system prompt
   * does not open with the CLI's own billing block). `times` as failWith.
   */
  billingRefusal?: {
    reason: 'extra_usage_off' | 'cli_only_credential';
    when?: 'always' | 'third-party';
    times?: number;
  };
  /** Extra response headers on every streamed response-API answer (its rate-limit headers). */
  respapiQuotaHeaders?: Record<string, string>;
  /** How prompt tokens are counted (prompt-cache.ts): `words` (default) or `bytes` (4 bytes a token). */
  tokenRule: TokenRule;
  /**
   * Today's model rules (model-rules.ts): `strict` (the default) refuses, in the provider's words, what the model a
   * request names does not take (a thinking budget on adaptive-only models, sampling settings, an effort level, a
   * max_tokens above its maximum, forced tool use on the newest...); `lax` checks only the older rules (refusals.ts).
   */
  modelRules: 'strict' | 'lax';
}

export function defaultKnobs(): SimulatorKnobs {
  return {
    replyText: 'Hi from the simulator!',
    chunkCount: undefined,
    chunkIntervalMs: 0,
    firstDeltaDelayMs: 0,
    latencyMs: 0,
    jsonChunks: undefined,
    ping: true,
    acceptTokens: new Set(),
    toolInput: { location: 'Paris' },
    answerTools: true,
    toolPreamble: undefined,
    failWith: undefined,
    streamFault: undefined,
    validRefreshTokens: undefined,
    rotateRefreshTokens: false,
    refreshFail: false,
    refreshDelayMs: 0,
    respapiReplyText: 'Hi from the response API!',
    respapiAcceptTokens: new Set(),
    respapiNoSubscription: false,
    respapiFailWith: undefined,
    respapiRefreshFail: false,
    respapiAccountId: 'acct-sim-1',
    tokenRule: 'words',
    modelRules: 'strict',
  };
}

export function tokenSetSize(set: TokenSet | undefined): number {
  if (!set) return 0;
  return Array.isArray(set) ? set.length : set.size;
}

export function tokenSetHas(set: TokenSet, value: string): boolean {
  return Array.isArray(set) ? set.includes(value) : set.has(value);
}

export function tokenSetAdd(set: TokenSet, value: string): void {
  if (Array.isArray(set)) set.push(value);
  else set.add(value);
}

export function tokenSetDelete(set: TokenSet, value: string): void {
  if (Array.isArray(set)) {
    const i = set.indexOf(value);
    if (i >= 0) set.splice(i, 1);
  } else set.delete(value);
}

/** What the route handlers share; owned by index.ts. */
export interface SimulatorState {
  knobs: SimulatorKnobs;
  tokenRefreshes: number;
  respapiTokenRefreshes: number;
  /** Next number of a sequence (msg, toolu, req, token, resp...), starting at 1 per name. */
  next(name: string): number;
  /** Marks a response the simulator itself cut (reset, close()), so it is not recorded as a client abort. */
  serverCut: WeakSet<ServerResponse>;
  /** The provider's prompt cache (prompt-cache.ts), emptied by reset(). */
  promptCache: PromptCache;
  /** Called with every billed /v1/messages request (SimulatorOptions.onBilled). */
  onBilled?: (record: RecordedRequest) => void;
}

export interface RouteContext {
  state: SimulatorState;
  record: RecordedRequest;
  res: ServerResponse;
}
