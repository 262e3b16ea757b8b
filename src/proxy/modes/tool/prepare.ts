// Tool mode's part of a chat (docs/tool-mode.md): the CLI answers, through the engine's CliBackend
// (modes/tool/engine/). The model is resolved by the catalog (an unknown id is a 404 before any CLI starts); what the
// CLI cannot honour is removed (cli-cannot-honour.ts) and named as ignored; the formats' effort
// and JSON schema (output_config) go to the CLI as its own flags, which fit them to the model itself
// (docs/tool-mode.md "Thinking", "Structured output"). Tools the provider runs itself are refused before the parse.

import type { Backend } from '../../chat/backend.js';
import { dropWhatCliCannotHonour } from './cli-cannot-honour.js';
import { invalidField } from '../../errors.js';
import { factsOf } from '../../models/fit-to-model.js';
import { fitEffortLevel } from './effort-level.js';
import type { Profile } from '../../profile.js';
import type { ListedCatalog } from '../../models/live-catalog.js';
import { providerRunToolIndex } from './translate/native-tools-to-mcp.js';
import { chatOf, type Mode } from '../mode.js';
import { checkDocuments } from '../../formats/documents.js';

/**
 * Tools the provider runs itself (web search, code execution, a computer...) cannot be offered through the CLI,
 * whose built-in tools are off for a client's tools: a 400 naming the tool, before the body's schema is checked
 * (docs/tool-mode.md "The client's own tools"). The format says which tool types are the client's own
 * (formats/format.ts).
 */
function refuseProviderTools(body: unknown, clientTypes: readonly string[], apiPath: string): void {
  if (typeof body !== 'object' || body === null) return;
  const found = providerRunToolIndex((body as Record<string, unknown>).tools, clientTypes);
  if (!found) return;
  const field = `tools.${found.index}.type`;
  throw invalidField(
    field,
    `a tool the provider runs itself ("${found.type.slice(0, 60)}") is not supported in tool mode`,
    `Invalid request: ${field}: "${found.type.slice(0, 60)}" is a tool the provider runs itself; tool mode offers only the client's own tools (${clientTypes.join(' or ')}) to the assistant CLI. Use direct mode (${apiPath}) for provider-run tools.`,
  );
}

export function toolMode(backend: Backend, catalog: ListedCatalog, profile: Profile): Mode {
  return {
    name: 'tool',
    summaryKeepsTools: false,
    backend,
    refuse(body, format) {
      if (format.clientTools) refuseProviderTools(body, format.clientTools.types, format.clientTools.directPath);
    },
    async prepare(ctx, parsed, answer) {
      const { request, clientNames } = parsed;
      const requestedModel = request.model;
      // What the CLI cannot honour leaves the request here, named for X-Proxy-Ignored-Params.
      const ignored = dropWhatCliCannotHonour(request, clientNames, parsed.ignored, profile.api.minThinkingBudget);
      // An unknown id re-reads the provider's list first (at most once a minute): a model shipped today is served.
      const resolved = await catalog.resolveFresh(requestedModel);
      // The effort level, the one model rule the CLI passes on as it is given.
      const effort = fitEffortLevel(request, factsOf(profile, resolved.id, resolved.info), clientNames);
      ignored.push(...effort.ignored.filter((name) => !ignored.includes(name)));
      parsed.warnings.push(...effort.warnings);
      // Documents the provider or the model cannot read are a 400 before any CLI starts (formats/documents.ts).
      checkDocuments(
        request,
        { id: resolved.id, readsPdf: resolved.info?.capabilities?.pdfInput },
        profile.api.documents,
      );
      // RFC 9111's Warning (299: a persistent warning) names the replacement of a deprecated model.
      if (resolved.deprecation) ctx.set('Warning', `299 - "${resolved.deprecation}"`);
      request.model = resolved.cliModel;
      return {
        ...chatOf(parsed, answer, ignored),
        requestedModel,
        publicModel: resolved.id,
        servedName: (served) => catalog.publicName(served, resolved.id),
      };
    },
  };
}
