// Checks and readings that the native formats' parse shares (formats/<format>/index.ts): the native `thinking` and
// `output_config` fields, and the native chat format's refusal of tools. The body keys nothing reads are counted by
// request-rules.ts, with the rules every format shares.

import { z } from 'zod';
import { ProxyError } from '../errors.js';
import { nativeSamplingFields, type NativeOutputConfig, type NativeRequest } from './native.js';
import { validate } from './validate.js';
import { nativeEfforts } from '../profile-models.js';

/** The body keys both native formats read (the native chat format takes no tools; the messages format adds them). */
export const nativeBodyKeys = [
  'model',
  'messages',
  'system',
  'stream',
  'max_tokens',
  'thinking',
  'output_config',
  ...nativeSamplingFields,
] as const;

/**
 * The native `thinking` and `output_config` fields (docs/tool-mode.md "Thinking", "Structured output"): a budget,
 * adaptive thinking (today's models take only that; its depth is output_config.effort) or none, and the output
 * settings: an effort level and a JSON schema the answer must match. Each mode decides what it can honour of them.
 */
const thinkingBodySchema = z.looseObject({
  thinking: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int('must be an integer').min(1) }),
      z.looseObject({ type: z.literal('adaptive') }),
      z.looseObject({ type: z.literal('disabled') }),
    ])
    .nullish(),
  output_config: z
    .looseObject({
      effort: z.enum(nativeEfforts).nullish(),
      format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
    })
    .nullish(),
});

/** Sets the request's `thinking` and `output_config` from a native body (400 for a malformed one). */
export function readThinkingAndOutput(body: unknown, request: NativeRequest): void {
  const { thinking, output_config: output } = validate(thinkingBodySchema, body);
  if (thinking?.type === 'enabled') request.thinking = { type: 'enabled', budget_tokens: thinking.budget_tokens };
  else if (thinking) request.thinking = { type: thinking.type };
  const config: NativeOutputConfig = {};
  if (output?.effort) config.effort = output.effort;
  if (output?.format) config.format = { type: 'json_schema', schema: output.format.schema };
  if (config.effort || config.format) request.output_config = config;
}

/**
 * The native chat-completion format (docs/interface.md "Native chat request") has no tools; the client's tools are
 * taken on the message and compatible routes (docs/tool-mode.md "The client's own tools"). Checked before anything
 * else.
 */
export function refuseTools(body: unknown, fields: string[]): void {
  if (typeof body !== 'object' || body === null) return;
  const record = body as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    throw new ProxyError(
      'invalid_request',
      `Invalid request: ${field} is not supported on /v1/chat/completions (the native chat format has no tools); send tools to /v1/messages or /compat/v1/chat/completions.`,
      { field, issue: 'not supported on this route; use /v1/messages or /compat/v1/chat/completions' },
    );
  }
}
