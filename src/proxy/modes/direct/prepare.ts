// Direct mode's part of a chat (docs/direct-mode.md): the provider API answers, through DirectBackend. The request
// is fitted to the model it names (models/fit-to-model.ts, docs/models.md); the model prefix-mapped; the credential
// the client's auth calls for, and its feature flags; and the prompt-cache marks its conversation needs
// (cache-marks.ts, the setting DIRECT_PROMPT_CACHE).

import type { Backend } from '../../chat/backend.js';

import type { ProxyContext } from '../../http/types.js';

import { factsOf, fitToModel } from '../../models/fit-to-model.js';

import type { ModelCatalog, ResolvedModel } from '../../models/model-catalog.js';

import type { Services } from '../../services.js';

import { clientAuthOf, type ClientAuth } from '../../upstream/client-auth.js';

import type { Chat } from '../../chat/chat.js';
import { chatOf, type Mode } from '../mode.js';

import { withCacheMarks } from './cache-marks.js';

import { checkDocuments } from '../../formats/documents.js';

/** The provider expects a key in x-api-key; a compatible-format client can only send it as a bearer token. */
function asProviderKey(auth: ClientAuth): ClientAuth {
  return auth.kind === 'api-key'
    ? { kind: 'api-key', header: 'x-api-key', value: auth.value.replace(/^bearer\s+/i, '') }
    : auth;
}

/** The credential this request calls for, and the client's own feature flags passed on. */
function directUpstream(ctx: ProxyContext, services: Services): NonNullable<Chat['upstream']> {
  const { profile, config } = services;
  const clientFlags = ctx.get(profile.api.oauthBetaHeader);
  return {
    auth: asProviderKey(clientAuthOf(ctx.headers, profile, config.accessKey)),
    headers: clientFlags ? { [profile.api.oauthBetaHeader.toLowerCase()]: clientFlags } : undefined,
  };
}

/** The catalog's entry of a model id, or undefined for an id it does not know (direct mode sends it as it is). */
function listed(catalog: ModelCatalog, id: string): ResolvedModel | undefined {
  try {
    return catalog.resolve(id);
  } catch {
    return undefined;
  }
}

export function directMode(backend: Backend, catalog: ModelCatalog, services: Services): Mode {
  const { profile, config } = services;
  const cacheTtl = config.directPromptCache === 'off' ? undefined : config.directPromptCache === '1h' ? '1h' : '5m';
  return {
    name: 'direct',
    summaryKeepsTools: true,
    backend,
    prepare(ctx, parsed, answer) {
      const upstream = directUpstream(ctx, services);
      const requestedModel = parsed.request.model;
      // Fitted to what the model takes before anything goes out; what it cannot take at all is a 400 here.
      const model = listed(catalog, requestedModel);
      const fitted = fitToModel(
        parsed.request,
        factsOf(profile, model?.id ?? requestedModel, model?.info),
        parsed.clientNames,
        {
          maxTokensDefaulted: parsed.maxTokensDefaulted === true,
          api: profile.api,
        },
      );
      parsed.request = fitted.request;
      // Documents the provider or the model cannot read are a 400 here, before the provider is called.
      checkDocuments(
        parsed.request,
        { id: model?.id ?? requestedModel, readsPdf: model?.info?.capabilities?.pdfInput },
        profile.api.documents,
      );
      // A listed model is resolved once, above; any other name goes with only the neutral prefix mapped.
      parsed.request.model = model?.providerId ?? catalog.providerModel(requestedModel);
      parsed.warnings.push(...fitted.warnings);
      if (cacheTtl) parsed.request = withCacheMarks(parsed.request, cacheTtl, profile.api.promptCache);
      return {
        ...chatOf(parsed, answer, [...new Set([...parsed.ignored, ...fitted.ignored])]),
        requestedModel,
        // Answers name the model the provider reports, as a listed id; the client's name only when none is reported.
        publicModel: requestedModel,
        servedName: (served) => catalog.publicName(served),
        upstream,
      };
    },
  };
}
