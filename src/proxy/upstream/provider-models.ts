// GET /api/models (SPEC.md §4, §2.6): the provider's own model list when the credentials work, with the provider's
// ids mapped to the public (neutral) ones; otherwise the profile's list. A header says which one the client got,
// so a missing login is visible without turning the model list into an error (clients ask it at start-up).

import { z } from 'zod';
import type { ModelInfo } from '../profile.js';
import { toNeutralModel } from '../profile.js';
import type { Services } from '../services.js';
import type { ClientAuth } from './client-auth.js';
import type { ProviderClient } from './provider-client.js';
import { fromErrorAnswer } from './upstream-error.js';
import { ProxyError } from '../errors.js';

/** Response header naming where the list came from: `provider` or `profile`. */
export const modelsSourceHeader = 'x-proxy-models-source';

const providerListSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().min(1), created_at: z.string().optional() })),
});

/** Longest wait for the provider's list before answering the profile's (clients ask it at start-up). */
const listTimeoutMs = 10_000;

/** The provider's models as ModelInfo with public ids; throws a ProxyError when the provider cannot be asked. */
export async function fetchProviderModels(services: Services, client: ProviderClient, auth: ClientAuth, signal: AbortSignal): Promise<ModelInfo[]> {
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
  const known = new Map(profile.models.map((m) => [m.id, m.created]));
  return parsed.data.map((m) => {
    const id = toNeutralModel(profile, m.id);
    const at = m.created_at ? Date.parse(m.created_at) : Number.NaN;
    return { id, created: Number.isNaN(at) ? (known.get(id) ?? 0) : Math.floor(at / 1000) };
  });
}
