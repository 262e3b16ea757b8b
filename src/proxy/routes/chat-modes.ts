// What a mode adds to one parse of a client body (wire/wire-format.ts WireRequest) before the one answer path
// (answer-chat.ts): which model id the upstream gets and which name the client sees, what the mode cannot honour,
// and the credential. A format knows nothing of modes; a mode knows nothing of formats (docs/architecture.md
// "Wire formats").
//   tool    the CLI (docs/tool-mode.md): the model resolved by the catalog (an unknown id is a 404 before any CLI
//           starts); sampling settings, stop sequences and parallel-call control are named as ignored; a thinking
//           budget that cannot fit below max_tokens leaves thinking off, named as ignored
//   direct  the provider API (docs/direct-mode.md): everything is passed on; the model prefix-mapped; the
//           credential the client's auth calls for, and its feature flags

import type { ProxyContext } from '../http/types.js';
import type { ModelCatalog } from '../models/model-catalog.js';
import type { ListedCatalog } from './models.js';
import type { NativeRequest } from '../formats/native.js';
import type { Services } from '../services.js';
import { checkCliModelArgument, thinkingBudget } from '../translate/native-request-to-cli-input.js';
import { clientAuthOf, type ClientAuth } from '../upstream/client-auth.js';
import type { AnswerMeta, AnswerWriter, WireRequest } from '../wire/wire-format.js';
import type { Chat } from './answer-chat.js';

/** The provider expects a key in x-api-key; a compatible-format client can only send it as a bearer token. */
export function asProviderKey(auth: ClientAuth): ClientAuth {
  return auth.kind === 'api-key'
    ? { kind: 'api-key', header: 'x-api-key', value: auth.value.replace(/^bearer\s+/i, '') }
    : auth;
}

/** Direct mode: the credential this request calls for, and the client's own feature flags passed on. */
export function directUpstream(ctx: ProxyContext, services: Services): NonNullable<Chat['upstream']> {
  const { profile, config } = services;
  const clientFlags = ctx.get(profile.api.oauthBetaHeader);
  return {
    auth: asProviderKey(clientAuthOf(ctx.headers, profile, config.accessKey)),
    headers: clientFlags ? { [profile.api.oauthBetaHeader.toLowerCase()]: clientFlags } : undefined,
  };
}

/**
 * A thinking budget the CLI cannot keep below max_tokens and at least the provider's smallest budget: thinking is
 * turned off (never a request the provider refuses). True when it was.
 */
export function dropUnfitThinking(request: NativeRequest, minBudget: number): boolean {
  if (request.thinking?.type !== 'enabled' || thinkingBudget(request, minBudget) > 0) return false;
  delete request.thinking;
  return true;
}

/** Native fields the CLI cannot take (docs/tool-mode.md): removed, and named by the client's field. */
const cliCannot = ['temperature', 'top_p', 'top_k', 'stop_sequences'] as const;

function chatOf<A>(
  parsed: WireRequest<A>,
  answer: (meta: AnswerMeta, options: A) => AnswerWriter,
  ignored: string[],
): Omit<Chat, 'requestedModel' | 'publicModel' | 'servedName'> {
  return {
    request: parsed.request,
    stream: parsed.stream,
    answer: (meta) => answer(meta, parsed.answer),
    ignored,
    warnings: parsed.warnings,
    ...(parsed.toolResultsReturn === false ? { toolResultsReturn: false } : {}),
    ...(parsed.asksNothing ? { asksNothing: true } : {}),
  };
}

export async function toolChat<A>(
  ctx: ProxyContext,
  parsed: WireRequest<A>,
  answer: (meta: AnswerMeta, options: A) => AnswerWriter,
  catalog: ListedCatalog,
  minBudget: number,
): Promise<Chat> {
  const { request, clientNames } = parsed;
  const named: string[] = [];
  for (const key of cliCannot) {
    if (request[key] === undefined) continue;
    delete request[key];
    named.push(clientNames[key] ?? key);
  }
  // The CLI has no way to forbid parallel tool calls (docs/tool-mode.md "tool_choice").
  const choice = request.tool_choice;
  if (choice && 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true)
    named.push(clientNames.parallel_tool_calls ?? 'parallel_tool_calls');
  named.push(...parsed.ignored);
  if (dropUnfitThinking(request, minBudget)) {
    const field = clientNames.thinking ?? 'thinking';
    // Last, once: the translation may have named it already (a budget it had to cut).
    const at = named.indexOf(field);
    if (at >= 0) named.splice(at, 1);
    named.push(field);
  }
  const requestedModel = request.model;
  // An id no CLI argument can hold is a malformed request (400), not an unknown model (404).
  checkCliModelArgument(requestedModel);
  // An unknown id re-reads the provider's list first (at most once a minute): a model shipped today is served.
  const resolved = await catalog.resolveFresh(requestedModel);
  // RFC 9111's Warning (299: a persistent warning) names the replacement of a deprecated model.
  if (resolved.deprecation) ctx.set('Warning', `299 - "${resolved.deprecation}"`);
  request.model = resolved.cliModel;
  return {
    ...chatOf(parsed, answer, [...new Set(named)]),
    requestedModel,
    publicModel: resolved.id,
    servedName: (served) => catalog.publicName(served, resolved.id),
  };
}

export function directChat<A>(
  parsed: WireRequest<A>,
  answer: (meta: AnswerMeta, options: A) => AnswerWriter,
  catalog: ModelCatalog,
  upstream: NonNullable<Chat['upstream']>,
): Chat {
  const requestedModel = parsed.request.model;
  parsed.request.model = catalog.providerModel(requestedModel);
  return {
    ...chatOf(parsed, answer, parsed.ignored),
    requestedModel,
    // Answers name the model the provider reports, as a listed id; the client's name only when none is reported.
    publicModel: requestedModel,
    servedName: (served) => catalog.publicName(served),
    upstream,
  };
}
