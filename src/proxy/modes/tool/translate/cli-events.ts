// Every line the assistant CLI prints in stream-json mode passes through these narrow schemas
// (docs/principles.md "Validated in, typed out"). The shapes come from the recordings in fixtures/cli-recordings
// (README.md there): data, not a vendor contract, so unknown fields are ignored, unknown line and event types are
// reported as `unknown`, and a line that is not JSON or has the wrong shape for a known type is reported as `malformed`
// for the caller to log. Nothing throws.

import { z } from 'zod';

const count = z.number().int().nonnegative();

const cliUsageSchema = z.looseObject({
  input_tokens: count.optional(),
  output_tokens: count.optional(),
  cache_creation_input_tokens: count.nullish(),
  cache_read_input_tokens: count.nullish(),
});

/** A content block as the CLI prints it: any type; modes/tool/translate/cli-events-to-native-events.ts keeps what it knows. */
const cliBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.string().optional(),
  signature: z.string().optional(),
  data: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
});

const cliMessageSchema = z.looseObject({
  id: z.string(),
  model: z.string(),
  role: z.literal('assistant'),
  content: z.array(cliBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: cliUsageSchema.nullish(),
});

const cliDeltaSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  partial_json: z.string().optional(),
  thinking: z.string().optional(),
  signature: z.string().optional(),
});

/** The native stream events the CLI wraps in `stream_event` lines (README.md "Facts seen while recording"). */
const cliNativeEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: cliMessageSchema }),
  z.looseObject({ type: z.literal('content_block_start'), index: count, content_block: cliBlockSchema }),
  z.looseObject({ type: z.literal('content_block_delta'), index: count, delta: cliDeltaSchema }),
  z.looseObject({ type: z.literal('content_block_stop'), index: count }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: cliUsageSchema.nullish(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error'), error: z.looseObject({ type: z.string(), message: z.string() }) }),
]);

const knownEventTypes: ReadonlySet<string> = new Set(cliNativeEventSchema.options.map((o) => o.shape.type.value));

const cliSystemSchema = z.looseObject({
  type: z.literal('system'),
  subtype: z.string(),
  session_id: z.string().optional(),
  model: z.string().optional(),
  // subtype api_retry: the CLI retries a failed provider call by itself
  attempt: count.optional(),
  max_retries: count.optional(),
  retry_delay_ms: z.number().nonnegative().optional(),
  error_status: z.number().int().nullish(),
  error: z.string().nullish(),
});

const cliStreamEventSchema = z.looseObject({
  type: z.literal('stream_event'),
  event: cliNativeEventSchema,
  session_id: z.string().optional(),
  parent_tool_use_id: z.string().nullish(),
});

const cliAssistantSchema = z.looseObject({
  type: z.literal('assistant'),
  message: cliMessageSchema,
  session_id: z.string().optional(),
  parent_tool_use_id: z.string().nullish(),
  /** Present on the `<synthetic>` message the CLI prints when a call failed for good. */
  error: z.string().nullish(),
  api_error_status: z.number().int().nullish(),
  api_error_type: z.string().nullish(),
  is_api_error_message: z.boolean().nullish(),
});

const cliResultSchema = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  result: z.string().nullish(),
  /** With --json-schema: the object the model gave the CLI's StructuredOutput tool, validated by the CLI. */
  structured_output: z.unknown().optional(),
  stop_reason: z.string().nullish(),
  usage: cliUsageSchema.nullish(),
  session_id: z.string().optional(),
  api_error_status: z.number().int().nullish(),
  api_error_type: z.string().nullish(),
  terminal_reason: z.string().nullish(),
  duration_ms: z.number().nonnegative().nullish(),
  ttft_ms: z.number().nonnegative().nullish(),
});

export type CliUsage = z.output<typeof cliUsageSchema>;
export type CliBlock = z.output<typeof cliBlockSchema>;
export type CliMessage = z.output<typeof cliMessageSchema>;
export type CliNativeEvent = z.output<typeof cliNativeEventSchema>;
type CliSystemLine = z.output<typeof cliSystemSchema>;
type CliStreamEventLine = z.output<typeof cliStreamEventSchema>;
type CliAssistantLine = z.output<typeof cliAssistantSchema>;
export type CliResultLine = z.output<typeof cliResultSchema>;

export type CliLineParse =
  | { kind: 'system'; line: CliSystemLine }
  | { kind: 'stream_event'; line: CliStreamEventLine }
  | { kind: 'assistant'; line: CliAssistantLine }
  | { kind: 'result'; line: CliResultLine }
  /** The provider's quota windows as the CLI relays them; `info` is validated by the usage ledger (docs/usage.md). */
  | { kind: 'rate_limit'; info: unknown }
  /** A line or stream event type we do not use (e.g. `user` tool results of the CLI's own tools). */
  | { kind: 'unknown'; type: string }
  /** Not JSON, or a known type with the wrong shape. `text` is the start of the line, for the log. */
  | { kind: 'malformed'; reason: string; text: string };

const envelopeSchema = z.looseObject({ type: z.string() });
const cliRateLimitSchema = z.looseObject({ type: z.literal('rate_limit_event'), rate_limit_info: z.looseObject({}) });

function malformed(reason: string, line: string): CliLineParse {
  return { kind: 'malformed', reason, text: line.length > 200 ? `${line.slice(0, 200)}…` : line };
}

function shapeError(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue.path.map(String).join('.') || 'line'}: ${issue.message}`;
}

/** Parses one stdout line of the CLI (without its newline). Never throws. */
export function parseCliLine(line: string): CliLineParse {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return malformed('not JSON', line);
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return malformed('not an object with a string `type`', line);
  const { type } = envelope.data;

  if (type === 'stream_event') {
    const eventType = envelopeSchema.safeParse((envelope.data as { event?: unknown }).event);
    if (eventType.success && !knownEventTypes.has(eventType.data.type))
      return { kind: 'unknown', type: `stream_event/${eventType.data.type}` };
    const parsed = cliStreamEventSchema.safeParse(json);
    return parsed.success ? { kind: 'stream_event', line: parsed.data } : malformed(shapeError(parsed.error), line);
  }
  if (type === 'system') {
    const parsed = cliSystemSchema.safeParse(json);
    return parsed.success ? { kind: 'system', line: parsed.data } : malformed(shapeError(parsed.error), line);
  }
  if (type === 'assistant') {
    const parsed = cliAssistantSchema.safeParse(json);
    return parsed.success ? { kind: 'assistant', line: parsed.data } : malformed(shapeError(parsed.error), line);
  }
  if (type === 'result') {
    const parsed = cliResultSchema.safeParse(json);
    return parsed.success ? { kind: 'result', line: parsed.data } : malformed(shapeError(parsed.error), line);
  }
  if (type === 'rate_limit_event') {
    const parsed = cliRateLimitSchema.safeParse(json);
    return parsed.success
      ? { kind: 'rate_limit', info: parsed.data.rate_limit_info }
      : malformed(shapeError(parsed.error), line);
  }
  return { kind: 'unknown', type };
}
