// Tool mode routes (SPEC.md §1, §4; docs/tool-mode.md): the user's logged-in assistant CLI answers, through CliBackend.
//   POST /v1/chat/completions                  native chat request (§2.1) -> completion (§2.4) / stream §6.2
//   POST /cc|/sdk|/compat /v1/chat/completions compatible request (§2.2) -> completion (§2.4) / stream §6.1
//   POST /v1/messages, /cc/v1/messages         native message request -> native message / native event stream
// Every body is validated, translated to one NativeRequest, and answered from the backend's one event stream
// (DESIGN.md "The flow of one chat"): collected for JSON answers, translated chunk by chunk for streams.

import { findCli } from '../health/find-cli.js';
import { CliBackend } from '../backends/cli-backend.js';
import { checkCliModelArgument } from '../backends/native-request-to-cli-input.js';
import { ProxyError } from '../errors.js';
import { compatChatRequestSchema, type CompatChatRequest } from '../formats/compat.js';
import { nativeMessagesRequestSchema } from '../formats/native-schemas.js';
import type { NativeRequest } from '../formats/native.js';
import { validate } from '../formats/validate.js';
import { compatRequestToNative } from '../translate/compat-request-to-native.js';
import { nativeChatRequestToNative, parseNativeChatRequest } from '../translate/native-chat-request-to-native.js';
import { createModelCatalog, type ModelCatalog } from '../models/model-catalog.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from './define.js';
import { forwardToProvider } from '../upstream/forward.js';
import { ProviderClient } from '../upstream/provider-client.js';
import { z } from 'zod';
import { answerChat, type ChatOutput } from './tool-answer.js';

/** What one route hands to the answer step. */
export interface ToolChat {
  request: NativeRequest;
  output: ChatOutput;
  stream: boolean;
  /** Client field names the CLI cannot honour (SPEC.md §2.2, §8: never dropped silently). */
  ignored: string[];
  warnings: string[];
  /** Compatible streams only: stream_options.include_usage. */
  includeUsage: boolean;
  /** The listed `assistant-` id the requested model resolved to (set by registerTool; docs/clients.md "Model ids"). */
  publicModel?: string;
  /** The name to show clients for the model an answer reports (the CLI may echo an alias). */
  servedName?: (served: string) => string;
}

/** A token-count body: its model is resolved like a chat's; the rest goes to the provider as sent. */
const countTokensBodySchema = z.looseObject({ model: z.string().min(1), messages: z.array(z.unknown()) });

const apiHint = 'Tool calling is not available in tool mode, because the CLI runs its own tools; send tool requests to direct mode';

/** SPEC.md §1: "Tool calls cannot be used" in tool mode; point to /api/ before anything else is checked. */
function refuseTools(body: unknown, fields: string[], apiPath: string): void {
  if (typeof body !== 'object' || body === null) return;
  const record = body as Record<string, unknown>;
  for (const field of fields) {
    const value = record[field];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    throw new ProxyError('invalid_request', `Invalid request: ${field} is not supported here. ${apiHint} (${apiPath}).`, {
      field,
      issue: `not supported in tool mode; use ${apiPath}`,
    });
  }
}

/** Body keys the CLI cannot honour: the named sampling parameters when present, plus keys nothing reads. */
function ignoredOf(body: Record<string, unknown>, honoured: ReadonlySet<string>, named: readonly string[]): string[] {
  const present = (k: string) => body[k] !== undefined && body[k] !== null;
  const out = named.filter(present);
  for (const key of Object.keys(body)) if (!honoured.has(key) && !named.includes(key) && present(key)) out.push(key);
  return out;
}

/** What the CLI cannot take: no sampling settings, no stop sequences (docs/tool-mode.md). max_tokens is honoured. */
const nativeNamed = ['temperature', 'top_p', 'top_k', 'stop_sequences'] as const;
const nativeHonoured = new Set(['model', 'messages', 'system', 'stream', 'max_tokens']);

function nativeChat(body: unknown): ToolChat {
  refuseTools(body, ['tools', 'tool_choice'], '/api/v1/chat/completions');
  // A missing max_tokens gets a 400 that points OpenAI-format clients to /compat/v1 (docs/http.md).
  const parsed = parseNativeChatRequest(body);
  const request = nativeChatRequestToNative(parsed);
  delete request.stream;
  return {
    request,
    output: 'native-chat',
    stream: parsed.stream === true,
    ignored: ignoredOf(parsed, nativeHonoured, nativeNamed),
    warnings: [],
    includeUsage: false,
  };
}

function nativeMessages(body: unknown): ToolChat {
  refuseTools(body, ['tools', 'tool_choice'], '/api/v1/messages');
  const parsed = validate(nativeMessagesRequestSchema, body);
  const request: NativeRequest = { model: parsed.model, messages: parsed.messages, max_tokens: parsed.max_tokens };
  if (parsed.system !== undefined) request.system = parsed.system;
  return {
    request,
    output: 'messages',
    stream: parsed.stream === true,
    ignored: ignoredOf(parsed, nativeHonoured, [...nativeNamed, 'metadata']),
    warnings: [],
    includeUsage: false,
  };
}

/** Compatible names of what the CLI cannot honour; penalties, user and the rest come from the translation. */
const compatNamed = ['temperature', 'top_p', 'stop'] as const;

function compatChat(body: unknown, defaultMaxTokens: number): ToolChat {
  refuseTools(body, ['tools', 'tool_choice', 'functions', 'function_call'], '/api/v1/chat/completions');
  const parsed: CompatChatRequest = validate(compatChatRequestSchema, body);
  // Tool mode passes the client's model id through; the backend maps it for the CLI (docs/tool-mode.md).
  const { request, warnings, ignored } = compatRequestToNative(parsed, { defaultMaxTokens });
  const stream = request.stream === true;
  delete request.stream;
  delete request.temperature;
  delete request.top_p;
  delete request.stop_sequences;
  const named = compatNamed.filter((k) => parsed[k] !== undefined && parsed[k] !== null);
  return {
    request,
    output: 'compat',
    stream,
    ignored: [...new Set([...named, ...ignored])],
    warnings,
    includeUsage: parsed.stream_options?.include_usage === true,
  };
}

export function registerTool(router: ProxyRouter, services: Services): void {
  const { config, profile, deps } = services;
  const backend = new CliBackend({
    config,
    profile,
    logger: services.logger,
    childEnv: deps.childEnv,
    envPath: deps.envPath,
    usage: services.usage,
    findCli: () =>
      findCli({ cliPath: config.cliPath, names: profile.cli.executableNames, extraPaths: profile.cli.extraSearchPaths, envPath: deps.envPath }),
  });
  services.onClose(() => backend.close());
  services.healthExtras.set('cli_children', () => ({ children: backend.childCount(), slots: backend.slotCounts() }));
  services.healthExtras.set('cli_pool', () => backend.poolSnapshot());

  const routes: Array<{ path: string; parse: (body: unknown) => ToolChat }> = [
    { path: '/v1/chat/completions', parse: nativeChat },
    ...['/cc/v1/chat/completions', '/sdk/v1/chat/completions', '/compat/v1/chat/completions'].map((path) => ({
      path,
      parse: (body: unknown) => compatChat(body, profile.api.defaultMaxTokens),
    })),
    { path: '/v1/messages', parse: nativeMessages },
    { path: '/cc/v1/messages', parse: nativeMessages },
  ];
  const catalog = createModelCatalog(profile, config.modelAliases);

  // Token counts come from the provider itself, through the same OAuth login as direct mode (never an estimate):
  // the CLI has no way to count (docs/tool-mode.md). The client is made on first use and closed with the proxy.
  let provider: ProviderClient | undefined;
  services.onClose(() => provider?.close());
  for (const path of ['/v1/messages/count_tokens', '/cc/v1/messages/count_tokens']) {
    addRoute(router, services, {
      method: 'POST',
      path,
      mode: 'tool',
      json: true,
      handler: async (ctx) => {
        const body = validate(countTokensBodySchema, ctx.state.body);
        const resolved = catalog.resolve(body.model);
        ctx.state.model = body.model;
        ctx.state.rawBody = Buffer.from(JSON.stringify({ ...body, model: resolved.providerId }));
        provider ??= new ProviderClient(services);
        await forwardToProvider(ctx, services, provider, 'POST', `${profile.api.messagesPath}/count_tokens`);
      },
    });
  }

  for (const { path, parse } of routes) {
    addRoute(router, services, {
      method: 'POST',
      path,
      mode: 'tool',
      json: true,
      handler: (ctx) => answerChat(ctx, services, backend, withModel(parse(ctx.state.body), catalog)),
    });
  }
}

/**
 * Resolves the requested model before any CLI starts: listed ids, provider ids, the CLI's aliases and MODEL_ALIASES
 * are accepted, anything else is a 404 model_not_found naming the available ids (docs/clients.md "Model ids").
 */
function withModel(chat: ToolChat, catalog: ModelCatalog): ToolChat {
  // An id no CLI argument can hold is a malformed request (400), not an unknown model (404).
  checkCliModelArgument(chat.request.model);
  const resolved = catalog.resolve(chat.request.model);
  chat.request.model = resolved.cliModel;
  chat.publicModel = resolved.id;
  chat.servedName = (served) => catalog.publicName(served, resolved.id);
  return chat;
}
