// The provider's own model list (GET /v1/models on the provider API), with the provider's ids mapped to the public
// (neutral) ones: what models/live-catalog.ts reads through the CLI's login at start, daily and on an unknown id.
// Every route's model list shows that catalog; a header says which catalog a client got (live, cached, fallback),
// so a missing login is visible without turning the model list into an error (clients ask it at start-up).

import { z } from 'zod';
import type { ModelInfo } from '../profile.js';
import { toNeutralModel } from '../profile.js';
import type { Services } from '../services.js';
import type { ClientAuth } from './client-auth.js';
import type { ProviderClient } from './provider-client.js';
import { fromErrorAnswer } from './upstream-error.js';
import { ProxyError } from '../errors.js';

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
    }),
  ),
});

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
    return {
      id,
      created: Number.isNaN(at) ? (known.get(id)?.created ?? 0) : Math.floor(at / 1000),
      ...(contextLength ? { contextLength } : {}),
    };
  });
}
