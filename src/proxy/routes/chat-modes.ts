// What a mode adds to one parse of a client body (formats/format.ts WireRequest) before the one answer path
// (answer-chat.ts): which model id the upstream gets and which name the client sees, what the mode cannot honour,
// and the credential. A format knows nothing of modes; a mode knows nothing of formats (docs/architecture.md
// "Wire formats").
//   tool    the CLI (docs/tool-mode.md): the model resolved by the catalog (an unknown id is a 404 before any CLI
//           starts); what the CLI cannot honour is fitted by the engine (backends/cli/request-fit.ts) and named as
//           ignored; the formats' effort and JSON schema (output_config) go to the CLI as its own flags, which fit
//           them to the model itself (docs/tool-mode.md "Thinking", "Structured output")
//   direct  the provider API (docs/direct-mode.md): the request fitted to the model it names (models/fit-request.ts,
//           docs/models.md); the model prefix-mapped; the credential the client's auth calls for, and its feature
//           flags

import type { ProxyContext } from '../http/types.js';
import type { ModelCatalog } from '../models/model-catalog.js';
import type { ListedCatalog } from './models.js';
import type { Services } from '../services.js';
import { fitRequestToCli } from '../backends/cli/request-fit.js';
import { factsOf, fitEffortLevel, fitRequest } from '../models/fit-request.js';
import type { ModelInfo, Profile } from '../profile.js';
import { clientAuthOf, type ClientAuth } from '../upstream/client-auth.js';
import type { AnswerMeta, AnswerWriter, WireRequest } from '../formats/format.js';
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
  profile: Profile,
): Promise<Chat> {
  const { request, clientNames } = parsed;
  const requestedModel = request.model;
  // What the CLI cannot honour is the engine's rule; the route only names it (X-Proxy-Ignored-Params).
  const ignored = fitRequestToCli(request, clientNames, parsed.ignored, profile.api.minThinkingBudget);
  // An unknown id re-reads the provider's list first (at most once a minute): a model shipped today is served.
  const resolved = await catalog.resolveFresh(requestedModel);
  // The effort level, the one model rule the CLI passes on as it is given.
  const effort = fitEffortLevel(request, factsOf(profile, resolved.id, resolved.info), clientNames);
  ignored.push(...effort.ignored.filter((name) => !ignored.includes(name)));
  parsed.warnings.push(...effort.warnings);
  // RFC 9111's Warning (299: a persistent warning) names the replacement of a deprecated model.
  if (resolved.deprecation) ctx.set('Warning', `299 - "${resolved.deprecation}"`);
  request.model = resolved.cliModel;
  return {
    ...chatOf(parsed, answer, ignored),
    requestedModel,
    publicModel: resolved.id,
    servedName: (served) => catalog.publicName(served, resolved.id),
  };
}

/** The catalog's entry of a model id, or undefined for an id it does not know (direct mode sends it as it is). */
function listedInfo(catalog: ModelCatalog, id: string): { id: string; info?: ModelInfo } {
  try {
    const resolved = catalog.resolve(id);
    return { id: resolved.id, info: resolved.info };
  } catch {
    return { id };
  }
}

export function directChat<A>(
  parsed: WireRequest<A>,
  answer: (meta: AnswerMeta, options: A) => AnswerWriter,
  catalog: ModelCatalog,
  upstream: NonNullable<Chat['upstream']>,
  profile: Profile,
): Chat {
  const requestedModel = parsed.request.model;
  // Fitted to what the model takes before anything goes out; what it cannot take at all is a 400 here.
  const model = listedInfo(catalog, requestedModel);
  const fitted = fitRequest(parsed.request, factsOf(profile, model.id, model.info), parsed.clientNames, {
    maxTokensDefaulted: parsed.maxTokensDefaulted === true,
    api: profile.api,
  });
  parsed.request.model = catalog.providerModel(requestedModel);
  parsed.warnings.push(...fitted.warnings);
  return {
    ...chatOf(parsed, answer, [...new Set([...parsed.ignored, ...fitted.ignored])]),
    requestedModel,
    // Answers name the model the provider reports, as a listed id; the client's name only when none is reported.
    publicModel: requestedModel,
    servedName: (served) => catalog.publicName(served),
    upstream,
  };
}
