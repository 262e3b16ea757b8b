// The provider's own model list (GET /v1/models on the provider API), with the provider's ids mapped to the public
// (neutral) ones: what models/live-catalog.ts reads through the CLI's login at start, daily and on an unknown id.
// Every route's model list shows that catalog; a header says which catalog a client got (live, cached, fallback),
// so a missing login is visible without turning the model list into an error (clients ask it at start-up).

import { z } from 'zod';

import { toNeutralModel } from '../profile.js';
import type { Services } from '../services.js';

import type { ClientAuth } from './client-auth.js';

import type { ProviderClient } from './provider-client.js';

import { fromErrorAnswer } from './upstream-error.js';

import { ProxyError } from '../errors.js';
import { nativeEfforts, type ModelCapabilities, type ModelInfo } from '../profile-models.js';

/** Response header naming where the list came from: `live`, `cached` or `fallback` (docs/configuration.md "Models"). */
export const modelsSourceHeader = 'x-proxy-models-source';

const providerListSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string().min(1),
      created_at: z.string().optional(),
      // The input window, under the names providers use for it; absent on older lists.
      max_input_tokens: z.number().int().positive().optional(),
      context_window: z.number().int().positive().optional(),
      context_length: z.number().int().positive().optional(),
      max_tokens: z.number().int().positive().optional(),
      capabilities: z.unknown().optional(),
    }),
  ),
});

const supported = z.looseObject({ supported: z.boolean() });
/** The provider's capabilities object: each feature `{supported}`, thinking's types and effort's levels inside. */
const capabilitiesSchema = z.looseObject({
  thinking: supported.extend({ types: z.record(z.string(), supported).optional() }).optional(),
  effort: z.record(z.string(), z.unknown()).optional(),
  structured_outputs: supported.optional(),
  image_input: supported.optional(),
  pdf_input: supported.optional(),
});

/** The provider's capabilities -> ours; undefined when absent or unreadable (the profile's are used then). */
export function capabilitiesOf(raw: unknown): ModelCapabilities | undefined {
  const parsed = capabilitiesSchema.safeParse(raw);
  if (raw === undefined || !parsed.success) return undefined;
  const c = parsed.data;
  const on = (v: unknown) => supported.safeParse(v).data?.supported === true;
  const thinking = c.thinking?.supported
    ? (['adaptive', 'enabled'] as const).filter((t) => on(c.thinking?.types?.[t]))
    : [];
  return {
    thinking: [...thinking],
    efforts: c.effort && on(c.effort) ? nativeEfforts.filter((e) => on(c.effort?.[e])) : [],
    structuredOutputs: on(c.structured_outputs),
    imageInput: on(c.image_input),
    pdfInput: on(c.pdf_input),
  };
}

/**
 * Ours -> the provider's capabilities object, the inverse of capabilitiesOf: what the model lists show clients, in
 * the shape the provider's own list has (docs/clients.md "Model ids").
 */
export function providerCapabilities(c: ModelCapabilities): Record<string, unknown> {
  const flag = (supported: boolean) => ({ supported });
  return {
    thinking: {
      supported: c.thinking.length > 0,
      types: { adaptive: flag(c.thinking.includes('adaptive')), enabled: flag(c.thinking.includes('enabled')) },
    },
    effort: {
      supported: c.efforts.length > 0,
      ...Object.fromEntries(nativeEfforts.map((e) => [e, flag(c.efforts.includes(e))])),
    },
    structured_outputs: flag(c.structuredOutputs),
    image_input: flag(c.imageInput),
    pdf_input: flag(c.pdfInput),
  };
}

/** Longest wait for the provider's list before answering the profile's (clients ask it at start-up). */
const listTimeoutMs = 10_000;

/** The provider's models as ModelInfo with public ids; throws a ProxyError when the provider cannot be asked. */
export async function fetchProviderModels(
  services: Services,
  client: ProviderClient,
  auth: ClientAuth,
  signal: AbortSignal,
): Promise<ModelInfo[]> {
  const { profile, config } = services;
  const answer = await client.send({
    method: 'GET',
    path: `${profile.api.modelsPath}?limit=1000`,
    headers: { accept: 'application/json' },
    auth,
    signal,
    firstByteTimeoutMs: Math.min(config.upstreamFirstByteTimeoutMs, listTimeoutMs),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw fromErrorAnswer(answer.statusCode, answer.headers, text);
  let parsed: z.output<typeof providerListSchema>;
  try {
    parsed = providerListSchema.parse(JSON.parse(text));
  } catch {
    throw new ProxyError('upstream', 'The provider answered the model list in an unexpected shape');
  }
  const known = new Map(profile.models.map((m) => [m.id, m]));
  return parsed.data.map((m) => {
    const id = toNeutralModel(profile, m.id);
    const at = m.created_at ? Date.parse(m.created_at) : Number.NaN;
    const contextLength = m.max_input_tokens ?? m.context_window ?? m.context_length ?? known.get(id)?.contextLength;
    // What the provider says of a model wins; a list without it keeps what the profile knows (docs/models.md).
    const maxTokens = m.max_tokens ?? known.get(id)?.maxTokens;
    const capabilities = capabilitiesOf(m.capabilities) ?? known.get(id)?.capabilities;
    return {
      id,
      created: Number.isNaN(at) ? (known.get(id)?.created ?? 0) : Math.floor(at / 1000),
      ...(contextLength ? { contextLength } : {}),
      ...(maxTokens ? { maxTokens } : {}),
      ...(capabilities ? { capabilities } : {}),
    };
  });
}
