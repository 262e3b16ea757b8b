// Tool mode routes (SPEC.md §1, §4; docs/tool-mode.md): the user's logged-in assistant CLI answers, through CliBackend.
//   POST /v1/chat/completions                  native chat request (§2.1) -> completion (§2.4) / stream §6.2
//   POST /cc|/sdk|/compat /v1/chat/completions compatible request (§2.2) -> completion (§2.4) / stream §6.1
//   POST /v1/messages, /cc/v1/messages         native message request -> native message / native event stream
//   POST /v1/messages/count_tokens, /cc/…    the provider's own count, through the CLI's login
// Every chat body is validated, translated to one NativeRequest, its model resolved, and answered by the one answer
// path (answer-chat.ts, docs/architecture.md "The flow of one chat") over the CLI backend built by components.ts.

import type { Backend } from '../backends/backend.js';
import { checkCliModelArgument, thinkingBudget } from '../translate/native-request-to-cli-input.js';
import { ProxyError } from '../errors.js';
import { compatChatRequestSchema, type CompatChatRequest } from '../formats/compat.js';
import { nativeMessagesRequestSchema } from '../formats/native-schemas.js';
import type { NativeRequest, NativeThinkingConfig } from '../formats/native.js';
import { validate } from '../formats/validate.js';
import { compatRequestToNative } from '../translate/compat-request-to-native.js';
import { nativeChatRequestToNative, parseNativeChatRequest } from '../translate/native-chat-request-to-native.js';
import type { ModelCatalog } from '../models/model-catalog.js';
import type { Profile } from '../profile.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from './define.js';
import { forwardToProvider } from '../upstream/forward.js';
import type { ProviderClient } from '../upstream/provider-client.js';
import { z } from 'zod';
import { answerChat, type Chat } from './answer-chat.js';

/** What a route's parser gives; the model fields are filled by withModel. */
type ParsedChat = Omit<Chat, 'requestedModel' | 'publicModel' | 'servedName'>;

export interface ToolParts {
  cli: Backend;
  catalog: ModelCatalog;
  /** For token counts: the CLI has no way to count (docs/tool-mode.md). */
  provider: ProviderClient;
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
const nativeHonoured = new Set(['model', 'messages', 'system', 'stream', 'max_tokens', 'thinking']);

/** The native `thinking` field (docs/tool-mode.md "Thinking"): the CLI thinks only when a request asks. */
const thinkingBodySchema = z.looseObject({
  thinking: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int('must be an integer').min(1) }),
      z.looseObject({ type: z.literal('disabled') }),
    ])
    .nullish(),
});

function nativeThinking(body: unknown): NativeThinkingConfig | undefined {
  const thinking = validate(thinkingBodySchema, body).thinking;
  if (!thinking) return undefined;
  return thinking.type === 'enabled' ? { type: 'enabled', budget_tokens: thinking.budget_tokens } : { type: 'disabled' };
}

/**
 * A requested budget that cannot stay below max_tokens and at least the provider's smallest budget is not honoured:
 * thinking stays off and the field is named in X-Proxy-Ignored-Params, never a request the provider refuses.
 */
function limitThinking(chat: ParsedChat, field: string, minBudget: number): ParsedChat {
  const { request } = chat;
  if (request.thinking?.type === 'enabled' && thinkingBudget(request, minBudget) === 0) {
    delete request.thinking;
    chat.ignored = [...chat.ignored.filter((k) => k !== field), field];
  }
  return chat;
}

function nativeChat(body: unknown): ParsedChat {
  refuseTools(body, ['tools', 'tool_choice'], '/api/v1/chat/completions');
  // A missing max_tokens gets a 400 that points OpenAI-format clients to /compat/v1 (docs/http.md).
  const parsed = parseNativeChatRequest(body);
  const request = nativeChatRequestToNative(parsed);
  delete request.stream;
  const thinking = nativeThinking(body);
  if (thinking) request.thinking = thinking;
  return {
    request,
    output: 'native-chat',
    stream: parsed.stream === true,
    ignored: ignoredOf(parsed, nativeHonoured, nativeNamed),
    warnings: [],
    includeUsage: false,
  };
}

function nativeMessages(body: unknown): ParsedChat {
  refuseTools(body, ['tools', 'tool_choice'], '/api/v1/messages');
  const parsed = validate(nativeMessagesRequestSchema, body);
  const request: NativeRequest = { model: parsed.model, messages: parsed.messages, max_tokens: parsed.max_tokens };
  if (parsed.system !== undefined) request.system = parsed.system;
  const thinking = nativeThinking(body);
  if (thinking) request.thinking = thinking;
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

function compatChat(body: unknown, api: Profile['api']): ParsedChat {
  refuseTools(body, ['tools', 'tool_choice', 'functions', 'function_call'], '/api/v1/chat/completions');
  const parsed: CompatChatRequest = validate(compatChatRequestSchema, body);
  // The model is resolved once, by withModel below. reasoning_effort becomes a thinking budget by the same table
  // and rules as in direct mode (profile.api.thinkingBudgets; docs/tool-mode.md "Thinking").
  const { request, warnings, ignored } = compatRequestToNative(parsed, {
    defaultMaxTokens: api.defaultMaxTokens,
    thinking: { budgets: api.thinkingBudgets, min: api.minThinkingBudget },
  });
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

export function registerTool(router: ProxyRouter, services: Services, parts: ToolParts): void {
  const { profile } = services;
  const { cli, catalog, provider } = parts;
  const minBudget = profile.api.minThinkingBudget;
  const native = (parse: (body: unknown) => ParsedChat) => (body: unknown) => limitThinking(parse(body), 'thinking', minBudget);
  const routes: Array<{ path: string; parse: (body: unknown) => ParsedChat }> = [
    { path: '/v1/chat/completions', parse: native(nativeChat) },
    ...['/cc/v1/chat/completions', '/sdk/v1/chat/completions', '/compat/v1/chat/completions'].map((path) => ({
      path,
      parse: (body: unknown) => limitThinking(compatChat(body, profile.api), 'reasoning_effort', minBudget),
    })),
    { path: '/v1/messages', parse: native(nativeMessages) },
    // The root /messages: SDKs that append /messages to a base URL without /v1 (docs/clients.md).
    { path: '/messages', parse: native(nativeMessages) },
    { path: '/cc/v1/messages', parse: native(nativeMessages) },
  ];

  // Token counts come from the provider itself, through the same OAuth login as direct mode (never an estimate).
  for (const path of ['/v1/messages/count_tokens', '/messages/count_tokens', '/cc/v1/messages/count_tokens']) {
    addRoute(router, services, {
      method: 'POST',
      path,
      json: true,
      handler: async (ctx) => {
        const body = validate(countTokensBodySchema, ctx.state.body);
        const resolved = catalog.resolve(body.model);
        ctx.state.model = body.model;
        ctx.state.rawBody = Buffer.from(JSON.stringify({ ...body, model: resolved.providerId }));
        await forwardToProvider(ctx, services, provider, 'POST', `${profile.api.messagesPath}/count_tokens`);
      },
    });
  }

  for (const { path, parse } of routes) {
    addRoute(router, services, {
      method: 'POST',
      path,
      json: true,
      handler: (ctx) => answerChat(ctx, services, cli, withModel(parse(ctx.state.body), catalog)),
    });
  }
}

/**
 * Resolves the requested model before any CLI starts: listed ids, provider ids, the CLI's aliases and MODEL_ALIASES
 * are accepted, anything else is a 404 model_not_found naming the available ids (docs/clients.md "Model ids").
 */
function withModel(chat: ParsedChat, catalog: ModelCatalog): Chat {
  const requestedModel = chat.request.model;
  // An id no CLI argument can hold is a malformed request (400), not an unknown model (404).
  checkCliModelArgument(requestedModel);
  const resolved = catalog.resolve(requestedModel);
  return {
    ...chat,
    request: { ...chat.request, model: resolved.cliModel },
    requestedModel,
    publicModel: resolved.id,
    servedName: (served) => catalog.publicName(served, resolved.id),
  };
}
