// The provider's native Messages API, as hand-written types (docs/principles.md "Validated in, typed out": outgoing
// shapes are discriminated unions written by hand; incoming bodies go through the zod schemas in native-schemas.ts).
// Everything inside the proxy is normalised to these shapes (docs/architecture.md "The flow of one chat").

import type { NativeEffort } from '../profile-models.js';

// ---- content blocks -------------------------------------------------------------------------------------------

interface NativeTextBlock {
  type: 'text';
  text: string;
  /** Prompt-caching marks and citations are passed through untouched. */
  cache_control?: unknown;
  citations?: unknown;
}

type NativeImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface NativeImageBlock {
  type: 'image';
  source: NativeImageSource;
  cache_control?: unknown;
}

/** A document the provider reads (docs/interface.md "Documents"): a PDF as base64 or a URL, plain text, or content
 * blocks. */
export type NativeDocumentSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'text'; media_type: string; data: string }
  /** Custom content: text blocks the provider cites one by one. */
  | { type: 'content'; content: string | unknown[] };

export interface NativeDocumentBlock {
  type: 'document';
  source: NativeDocumentSource;
  title?: string | null;
  context?: string | null;
  citations?: { enabled: boolean };
  cache_control?: unknown;
}

interface NativeToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: unknown;
}

export interface NativeToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<NativeTextBlock | NativeImageBlock>;
  is_error?: boolean;
  cache_control?: unknown;
}

/** Extended-thinking blocks are allowed to pass through (a client replays them in later turns). */
interface NativeThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

interface NativeRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type NativeContentBlock =
  | NativeTextBlock
  | NativeImageBlock
  | NativeDocumentBlock
  | NativeToolUseBlock
  | NativeToolResultBlock
  | NativeThinkingBlock
  | NativeRedactedThinkingBlock;

/** The blocks a response (or a stream's content_block_start) can carry. */
export type NativeResponseBlock =
  NativeTextBlock | NativeToolUseBlock | NativeThinkingBlock | NativeRedactedThinkingBlock;

// ---- request --------------------------------------------------------------------------------------------------

export type NativeRole = 'user' | 'assistant';

export interface NativeMessageParam {
  role: NativeRole;
  content: string | NativeContentBlock[];
}

export interface NativeTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  /** Strict tools: the provider guarantees the call's input matches input_schema. */
  strict?: boolean;
}

export type NativeToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

/** The native request's sampling settings and stop sequences, written once: the native formats pass them on as they
 * are, and a mode that cannot honour them (tool mode's CLI) names them as ignored. */
export const nativeSamplingFields = ['temperature', 'top_p', 'top_k', 'stop_sequences'] as const;
export type NativeSamplingField = (typeof nativeSamplingFields)[number];

export interface NativeMessagesRequest {
  model: string;
  messages: NativeMessageParam[];
  system?: string | NativeTextBlock[];
  max_tokens: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  stream?: boolean;
  tools?: NativeTool[];
  tool_choice?: NativeToolChoice;
  metadata?: { user_id?: string };
  /** Extended thinking as the client asked for it (or, on the translated direct route, from reasoning_effort);
   * tool mode turns thinking off without it (docs/tool-mode.md). */
  thinking?: NativeThinkingConfig;
  /** The provider's output settings: a reasoning effort (adaptive thinking's dial) and a JSON schema the answer must
   * match (constrained decoding). Every format's JSON-output and effort fields arrive here (docs/models.md). */
  output_config?: NativeOutputConfig;
}

/** `adaptive` is the only thinking today's adaptive-only models take; its depth is `output_config.effort`. */
type NativeThinkingConfig = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' };

export interface NativeOutputFormat {
  type: 'json_schema';
  schema: Record<string, unknown>;
}

export interface NativeOutputConfig {
  effort?: NativeEffort;
  format?: NativeOutputFormat;
}

/**
 * What a Backend receives (`Backend.stream(req, signal)`, docs/architecture.md "Modes"). `stream` is not part of it:
 * the backend decides how it talks to its upstream (a stream, collected by the route for a non-streaming client, or one
 * whole message through Backend.message: chat/backend.ts).
 */
export type NativeRequest = Omit<NativeMessagesRequest, 'stream'>;

// ---- response -------------------------------------------------------------------------------------------------

type KnownNativeStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';
/** A reason the provider adds later must not break parsing; formats/map-stop-reason.ts maps unknown ones. */
export type NativeStopReason = KnownNativeStopReason | (string & {});

export interface NativeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface NativeMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: NativeResponseBlock[];
  stop_reason: NativeStopReason | null;
  stop_sequence: string | null;
  usage: NativeUsage;
}

// ---- stream events --------------------------------------------------------------------------------------------

interface NativeMessageStartEvent {
  type: 'message_start';
  message: NativeMessage;
}

interface NativeContentBlockStartEvent {
  type: 'content_block_start';
  index: number;
  content_block: NativeResponseBlock;
}

export type NativeContentDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  /** A citation of the text block being streamed (documents with citations enabled, docs/interface.md "Documents"). */
  | { type: 'citations_delta'; citation: unknown };

interface NativeContentBlockDeltaEvent {
  type: 'content_block_delta';
  index: number;
  delta: NativeContentDelta;
}

interface NativeContentBlockStopEvent {
  type: 'content_block_stop';
  index: number;
}

/** Cumulative usage at the end of a message; the provider always sends output_tokens, the rest sometimes. */
type NativeDeltaUsage = Partial<NativeUsage> & { output_tokens: number };

interface NativeMessageDeltaEvent {
  type: 'message_delta';
  delta: { stop_reason: NativeStopReason | null; stop_sequence?: string | null };
  usage: NativeDeltaUsage;
}

interface NativeMessageStopEvent {
  type: 'message_stop';
}

interface NativePingEvent {
  type: 'ping';
}

export interface NativeErrorBody {
  type: string;
  message: string;
}

interface NativeErrorEvent {
  type: 'error';
  error: NativeErrorBody;
}

export type NativeStreamEvent =
  | NativeMessageStartEvent
  | NativeContentBlockStartEvent
  | NativeContentBlockDeltaEvent
  | NativeContentBlockStopEvent
  | NativeMessageDeltaEvent
  | NativeMessageStopEvent
  | NativePingEvent
  | NativeErrorEvent;

// ---- the native chat-completion stream (docs/interface.md "Native chat-completion stream") --------------------

/** Data-only events of POST /v1/chat/completions with stream true; the server frames them and ends with [DONE]. */
export type NativeChatStreamEvent =
  | { type: 'message_start'; message: NativeMessage }
  | { type: 'content_block_delta'; index: number; delta: { type: 'text_delta'; text: string } }
  | { type: 'message_delta'; delta: { stop_reason: NativeStopReason | null }; usage: { output_tokens: number } };
