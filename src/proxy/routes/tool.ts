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
import { invalidField } from '../errors.js';
import { providerRunToolIndex } from '../translate/native-tools-to-mcp.js';
import { legacyFunctionsToTools } from '../translate/legacy-functions-to-tools.js';
import { compatRequestToNative } from '../translate/compat-request-to-native.js';
import { nativeChatRequestToNative, parseNativeChatRequest } from '../translate/native-chat-request-to-native.js';
import type { ListedCatalog } from './models.js';
import type { ProxyContext } from '../http/types.js';
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
  catalog: ListedCatalog;
  /** For token counts: the CLI has no way to count (docs/tool-mode.md). */
  provider: ProviderClient;
}

/** A token-count body: its model is resolved like a chat's; the rest goes to the provider as sent. */
const countTokensBodySchema = z.looseObject({ model: z.string().min(1), messages: z.array(z.unknown()) });

/**
 * The native chat-completion format (SPEC.md §2.1) has no tools; the client's tools are taken on the message and
 * compatible routes (docs/tool-mode.md "The client's own tools"). Checked before anything else.
 */
function refuseTools(body: unknown, fields: string[]): void {
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

/**
 * Tools the provider runs itself (web search, code execution, a computer...) cannot be offered through the CLI,
 * whose built-in tools are off for a client's tools: a 400 naming the tool, before the body's schema is checked
 * (docs/tool-mode.md "Edges").
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
const nativeToolsHonoured = new Set([...nativeHonoured, 'tools', 'tool_choice']);

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
  refuseTools(body, ['tools', 'tool_choice']);
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
  refuseProviderTools(body, ['custom'], '/api/v1/messages');
  const parsed = validate(nativeMessagesRequestSchema, body);
  const request: NativeRequest = { model: parsed.model, messages: parsed.messages, max_tokens: parsed.max_tokens };
  if (parsed.system !== undefined) request.system = parsed.system;
  if (parsed.tools && parsed.tools.length > 0) {
    request.tools = parsed.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: t.input_schema }));
  }
  if (parsed.tool_choice) request.tool_choice = parsed.tool_choice;
  // The CLI has no way to forbid parallel tool calls (docs/tool-mode.md "tool_choice").
  const noParallel = parsed.tool_choice !== undefined && 'disable_parallel_tool_use' in parsed.tool_choice && parsed.tool_choice.disable_parallel_tool_use === true;
  const thinking = nativeThinking(body);
  if (thinking) request.thinking = thinking;
  return {
    request,
    output: 'messages',
    stream: parsed.stream === true,
    ignored: [...ignoredOf(parsed, nativeToolsHonoured, [...nativeNamed, 'metadata']), ...(noParallel ? ['tool_choice.disable_parallel_tool_use'] : [])],
    warnings: [],
    includeUsage: false,
  };
}

/** Compatible names of what the CLI cannot honour; penalties, user and the rest come from the translation. */
const compatNamed = ['temperature', 'top_p', 'stop'] as const;

function compatChat(raw: unknown, api: Profile['api']): ParsedChat {
  refuseProviderTools(raw, ['function'], '/api/v1/chat/completions');
  // The legacy `functions` form is taken as `tools`, and answered in its own form (docs/tool-mode.md).
  const { body, legacy } = legacyFunctionsToTools(raw);
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
  const named: string[] = compatNamed.filter((k) => parsed[k] !== undefined && parsed[k] !== null);
  // The CLI has no way to forbid parallel tool calls (docs/tool-mode.md "tool_choice").
  if (parsed.parallel_tool_calls === false && parsed.tools && parsed.tools.length > 0) named.push('parallel_tool_calls');
  return {
    request,
    output: 'compat',
    stream,
    ignored: [...new Set([...named, ...ignored])],
    warnings,
    includeUsage: parsed.stream_options?.include_usage === true,
    ...(legacy ? { legacyFunctions: true } : {}),
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
        const resolved = await catalog.resolveFresh(body.model);
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
      handler: async (ctx) => answerChat(ctx, services, cli, await withModel(ctx, parse(ctx.state.body), catalog)),
    });
  }
}

/**
 * Resolves the requested model before any CLI starts: listed ids, provider ids, the CLI's aliases and MODEL_ALIASES
 * are accepted, anything else is a 404 model_not_found naming the available ids (docs/clients.md "Model ids").
 */
async function withModel(ctx: ProxyContext, chat: ParsedChat, catalog: ListedCatalog): Promise<Chat> {
  const requestedModel = chat.request.model;
  // An id no CLI argument can hold is a malformed request (400), not an unknown model (404).
  checkCliModelArgument(requestedModel);
  // An unknown id re-reads the provider's list first (at most once a minute): a model shipped today is served.
  const resolved = await catalog.resolveFresh(requestedModel);
  // RFC 9111's Warning (299: a persistent warning) names the replacement of a deprecated model.
  if (resolved.deprecation) ctx.set('Warning', `299 - "${resolved.deprecation}"`);
  return {
    ...chat,
    request: { ...chat.request, model: resolved.cliModel },
    requestedModel,
    publicModel: resolved.id,
    servedName: (served) => catalog.publicName(served, resolved.id),
  };
}
