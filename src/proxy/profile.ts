// Every provider-specific constant lives here and nowhere else (docs/architecture.md). The rest of the code
// speaks neutral words (docs/interface.md "Names": /compat, /respapi, assistant- and rm- model ids). Each value can be
// overridden: the upstream addresses and credential paths through the settings in config.ts (env, flags, settings
// file), and anything else through a JSON file named by ASSISTANT_PROFILE_FILE that is deep-merged over these defaults.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultCliProfile, type CliProfile } from './profile-cli.js';
import {
  fallbackModels,
  modelRules,
  unknownModel,
  type ModelCapabilities,
  type ModelInfo,
  type ModelRules,
} from './profile-models.js';

/** Quota header names and window names, as the provider and the response API report them (usage/quota-parse.ts). */
export interface QuotaNames {
  /** Provider (direct mode): `<prefix>-<abbr>-utilization` (a fraction), `-reset` (Unix s), `-status`. */
  providerPrefix: string;
  /** Provider window abbreviations -> neutral window names; an abbreviation not listed keeps its own name. */
  providerWindows: Record<string, string>;
  /** Response API: `x-<family>-primary-used-percent` (0-100), `-window-minutes`, `-reset-at` (Unix s). */
  respapiFamily: string;
  /** Window lengths in minutes -> neutral window names (others become `<minutes>_minute`). */
  windowMinutes: Record<string, string>;
  /**
   * Words of the provider's two billing refusals (usage/billing-lane.ts, docs/usage.md "Lanes"), matched
   * case-insensitively in its error message: third-party use billed to extra usage while extra usage is off, and a
   * subscription login used outside its CLI.
   */
  refusals: { thirdParty: string[]; cliOnly: string[] };
}

/** A model the provider has deprecated or retired, and what it says to use instead (docs/configuration.md "Models"). */
interface ModelDeprecation {
  /** The neutral id of the replacement. */
  replacement: string;
  /** The provider's end-of-life date (YYYY-MM-DD), when it has said one. */
  endOfLife?: string;
}

/** The compatible format's reasoning_effort values (formats/compat/schema.ts). */
export const reasoningEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof reasoningEfforts)[number];

/** What the provider's prompt cache allows in one request (docs/direct-mode.md "The prompt cache"). */
export interface PromptCacheRules {
  /** Most `cache_control` marks one request may carry, a top-level (automatic) one included; more is a 400. */
  maxBreakpoints: number;
  /** From a mark, the cache is looked up at that block and this many blocks in all before it. */
  lookbackBlocks: number;
  /** Content block types that may not carry a mark (and an empty text block never may). */
  unmarkableTypes: string[];
}

/** The documents the provider reads (docs/interface.md "Documents"). */
export interface DocumentRules {
  pdfMediaType: string;
  textMediaType: string;
  /** The provider's limit on one request's size, which bounds its documents together. */
  maxRequestBytes: number;
  /** Pages of one PDF the provider reads (stated in the docs; the provider checks it). */
  maxPdfPages: number;
}

export interface Profile {
  /** Display name of the provider, used in messages. */
  providerName: string;
  /** owned_by in model objects (docs/interface.md "Models"). */
  ownerName: string;
  cli: CliProfile;
  api: {
    baseUrl: string;
    messagesPath: string;
    modelsPath: string;
    /** Headers every OAuth-authenticated request must carry. */
    oauthHeaders: Record<string, string>;
    /** Feature flags that OAuth requests need; merged with the client's own, never replacing them. */
    oauthBetaHeader: string;
    oauthBetaFlags: string[];
    versionHeader: string;
    defaultVersion: string;
    /** A real provider key starts with one of these; anything else in x-api-key/Authorization is a dummy. */
    realKeyPrefixes: string[];
    /** OAuth access tokens start with this; they are never mistaken for API keys. */
    oauthTokenPrefix: string;
    /** max_tokens sent when a client sets no limit (the native API requires one) and the answer does not think,
     * lowered to the model's own maximum (docs/models.md "What the proxy does with each field"). */
    defaultMaxTokens: number;
    /** The same for an answer that thinks (asked for, or a model that always thinks): thinking counts against
     * max_tokens, so a plain answer's default would leave it no room. */
    thinkingMaxTokens: number;
    /** The thinking budget (tokens) a reasoning effort becomes on a model that takes only a budget (and in tool
     * mode, for the CLI); 0: no thinking. */
    thinkingBudgets: Record<ReasoningEffort, number>;
    /** The provider's smallest thinking budget (the CLI raises anything lower to it). */
    minThinkingBudget: number;
    /**
     * Direct mode asks the provider for a non-streamed message when the client does not stream, the request's
     * max_tokens is at most this, and the answer fits the first-byte deadline (below; docs/direct-mode.md): some
     * models allow only 8,192 non-streamed output tokens. Otherwise the answer is streamed upstream and collected.
     * 0: always streamed.
     */
    nonStreamingMaxTokens: number;
    /** How long a non-streamed answer may take per output token, by the provider's own estimate (its official
     * SDKs: an hour per 128,000 tokens). Nothing arrives until such an answer is whole, so it is asked for only when
     * max_tokens times this fits UPSTREAM_FIRST_BYTE_TIMEOUT_MS: that deadline holds on every route. */
    nonStreamingMsPerToken: number;
    /** The provider's prompt-cache rules that direct mode's marks keep (docs/direct-mode.md "The prompt cache"). */
    promptCache: PromptCacheRules;
    documents: DocumentRules;
  };
  credentials: {
    /** The CLI's OAuth credential file. */
    path: string;
    /** Key of the object that holds accessToken, refreshToken, expiresAt (ms). */
    rootKey: string;
    tokenUrl: string;
    clientId: string;
    /** Refresh this many ms before expiry. */
    refreshSkewMs: number;
  };
  respapi: {
    baseUrl: string;
    responsesPath: string;
    credentialsPath: string;
    tokenUrl: string;
    clientId: string;
    /** Header that carries the session id upstream. */
    sessionHeader: string;
    /** Header that carries the account id upstream. */
    accountHeader: string;
    /** Extra headers the response API expects. */
    extraHeaders: Record<string, string>;
    /** Upstream parameters the response API refuses; dropped with a warning. */
    unsupportedParams: string[];
    refreshSkewMs: number;
    loginHint: string;
    subscriptionHint: string;
    /** Public rm- model ids (respapiModels) -> the names the response API serves; see docs/respapi-mode.md. */
    modelMap: Record<string, string>;
    /** Fields every upstream request carries unless the client sets them (the backend refuses stored responses). */
    requestDefaults: Record<string, unknown>;
    /** JWT claim (and key inside it) holding the account id, used when the credential file has no account_id. */
    accountClaim: { claim: string; key: string };
  };
  /** Public model ids carry `neutral`; the provider's own ids carry `provider` (docs/interface.md "Names"). */
  modelIdPrefix: { neutral: string; provider: string };
  /** The offline fallback catalog: what is listed and accepted when the provider's own model list was never read
   * (docs/configuration.md "Models"). The live list adds to it; these ids stay accepted. */
  models: ModelInfo[];
  /** The rules each model keeps beyond its listed capabilities, by a pattern of its neutral id (the first match
   * wins; profile-models.ts). */
  modelRules: Array<{ pattern: string; rules: ModelRules }>;
  /** What a model the catalog does not know is taken to accept: the conservative rules (docs/models.md). */
  unknownModel: { capabilities: ModelCapabilities; rules: ModelRules; maxTokens?: number };
  /** Deprecated and retired models, by neutral id, as the provider announces them (its SDKs warn the same way). */
  modelDeprecations: Record<string, ModelDeprecation>;
  respapiModels: ModelInfo[];
  /** The provider's official client libraries, named in the desktop window's copy-ready snippets. */
  sdk: { jsPackage: string; jsClass: string; pyPackage: string; pyClass: string };
  /** What clients and first-run help need to know about the CLI (docs/clients.md). */
  /** Quota header names and window names (src/proxy/usage/quota-parse.ts). */
  quota: QuotaNames;
  clientSupport: {
    /** npm package of the assistant CLI, for the start-up summary and the README's quick start. */
    cliPackage: string;
    /** Model family words the CLI accepts as its model (it picks that family's current model). */
    cliModelAliases: string[];
    /** The family of the mid-priced model that snippets, docs and the Connect tab default to (its newest). */
    defaultFamily: string;
    /** The family of the smallest model: diagnose's test request uses its newest. */
    smallestFamily: string;
    /** Environment variable the CLI reads as the output-token limit of each answer (max_tokens in tool mode). */
    maxOutputTokensEnv: string;
  };
}

const home = homedir();

export const defaultProfile: Profile = {
  providerName: 'Anthropic',
  ownerName: 'anthropic',
  cli: defaultCliProfile,
  api: {
    baseUrl: 'https://api.anthropic.com',
    messagesPath: '/v1/messages',
    modelsPath: '/v1/models',
    // None by default: a request the proxy sends is the proxy's, and it does not claim to come from the CLI (the
    // provider decides how it is billed; docs/direct-mode.md "Who the provider sees").
    oauthHeaders: {},
    oauthBetaHeader: 'anthropic-beta',
    oauthBetaFlags: ['oauth-2025-04-20'],
    versionHeader: 'anthropic-version',
    defaultVersion: '2023-06-01',
    realKeyPrefixes: ['sk-ant-api'],
    oauthTokenPrefix: 'sk-ant-oat',
    defaultMaxTokens: 4096,
    thinkingMaxTokens: 32_000,
    thinkingBudgets: { none: 0, minimal: 0, low: 1024, medium: 4096, high: 16384, xhigh: 32768 },
    minThinkingBudget: 1024,
    nonStreamingMaxTokens: 8192,
    nonStreamingMsPerToken: 3_600_000 / 128_000,
    promptCache: { maxBreakpoints: 4, lookbackBlocks: 20, unmarkableTypes: ['thinking', 'redacted_thinking'] },
    documents: {
      pdfMediaType: 'application/pdf',
      textMediaType: 'text/plain',
      maxRequestBytes: 32 * 2 ** 20,
      maxPdfPages: 100,
    },
  },
  credentials: {
    path: join(home, '.claude', '.credentials.json'),
    rootKey: 'claudeAiOauth',
    tokenUrl: 'https://console.anthropic.com/v1/oauth/token',
    clientId: '9d1c250a-e61b-44d9-88ed-5944d1962f5e',
    refreshSkewMs: 5 * 60_000,
  },
  respapi: {
    baseUrl: 'https://chatgpt.com/backend-api/codex',
    responsesPath: '/responses',
    credentialsPath: join(home, '.codex', 'auth.json'),
    tokenUrl: 'https://auth.openai.com/oauth/token',
    clientId: 'app_EMoamEEZ73f0CkXaXp7hrann',
    sessionHeader: 'session_id',
    accountHeader: 'chatgpt-account-id',
    extraHeaders: { 'OpenAI-Beta': 'responses=experimental', originator: 'codex_cli_rs' },
    unsupportedParams: ['temperature', 'max_output_tokens', 'top_p'],
    refreshSkewMs: 5 * 60_000,
    loginHint: 'Log in with the response-API CLI (`codex login`) so that ~/.codex/auth.json exists',
    subscriptionHint: 'The response API needs an active paid subscription on the logged-in account',
    // The subscription backend serves only its current model family; each neutral id maps onto a tier of it
    // (most capable, coding-tuned, small). Override with ASSISTANT_PROFILE_FILE when the backend's names change.
    modelMap: { 'rm-4': 'gpt-5', 'rm-4-turbo': 'gpt-5-codex', 'rm-3.5-turbo': 'gpt-5-codex-mini' },
    requestDefaults: { store: false },
    accountClaim: { claim: 'https://api.openai.com/auth', key: 'chatgpt_account_id' },
  },
  modelIdPrefix: { neutral: 'assistant-', provider: 'claude-' },
  // The offline fallback (today's models, then the interface's 2025 list, each of those deprecated below) and the rules
  // the provider's list does not carry: profile-models.ts. The live list (models/live-catalog.ts) replaces what is
  // shown as soon as the provider's own list has been read once.
  models: fallbackModels,
  modelRules,
  unknownModel,
  // The provider's published deprecations (its Python SDK warns on the same ids).
  modelDeprecations: {
    'assistant-opus-4-20250514': { replacement: 'assistant-opus-4-6' },
    'assistant-sonnet-4-20250514': { replacement: 'assistant-sonnet-4-6', endOfLife: '2026-06-15' },
    'assistant-3-7-sonnet-20250219': { replacement: 'assistant-sonnet-4-6', endOfLife: '2026-02-19' },
    'assistant-3-5-sonnet-20241022': { replacement: 'assistant-sonnet-4-6', endOfLife: '2025-10-22' },
    'assistant-3-5-sonnet-20240620': { replacement: 'assistant-sonnet-4-6', endOfLife: '2025-10-22' },
    'assistant-3-5-haiku-20241022': { replacement: 'assistant-haiku-4-5-20251001', endOfLife: '2026-02-19' },
  },
  sdk: { jsPackage: '@anthropic-ai/sdk', jsClass: 'Anthropic', pyPackage: 'anthropic', pyClass: 'Anthropic' },
  respapiModels: [
    { id: 'rm-4', created: 1715367600 },
    { id: 'rm-4-turbo', created: 1712620800 },
    { id: 'rm-3.5-turbo', created: 1677610602 },
  ],
  // Subscription quota windows, as the provider and the response API report them on every answer (docs/usage.md).
  quota: {
    providerPrefix: 'anthropic-ratelimit-unified',
    providerWindows: {
      '5h': 'five_hour',
      '7d': 'seven_day',
      '7d_opus': 'seven_day_opus',
      '7d_sonnet': 'seven_day_sonnet',
    },
    respapiFamily: 'codex',
    windowMinutes: {
      '60': 'one_hour',
      '300': 'five_hour',
      '1440': 'one_day',
      '10080': 'seven_day',
      '43200': 'thirty_day',
    },
    // The provider's texts as reported publicly in 2026 (docs/usage.md "The two refusals").
    refusals: {
      thirdParty: ['third-party apps now draw from your extra usage', 'draw from your extra usage'],
      cliOnly: ['only authorized for use with claude code', 'credential is only authorized for use with'],
    },
  },
  clientSupport: {
    cliPackage: '@anthropic-ai/claude-code',
    cliModelAliases: ['sonnet', 'opus', 'haiku'],
    defaultFamily: 'sonnet',
    smallestFamily: 'haiku',
    maxOutputTokensEnv: 'CLAUDE_CODE_MAX_OUTPUT_TOKENS',
  },
};

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends (infer U)[] ? U[] : T[K] extends object ? DeepPartial<T[K]> : T[K];
};
export type ProfileOverrides = DeepPartial<Profile>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(over) || !isPlainObject(base)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = k in out ? deepMerge(out[k], v) : v;
  }
  return out as T;
}

/** The profile with overrides merged in (arrays replace, objects merge). */
export function createProfile(overrides: ProfileOverrides = {}): Profile {
  return deepMerge(defaultProfile, overrides);
}

/** Reads ASSISTANT_PROFILE_FILE (a JSON object of overrides) when set. Throws a readable message on failure. */
export function loadProfileOverrides(env: NodeJS.ProcessEnv): ProfileOverrides {
  const file = env.ASSISTANT_PROFILE_FILE;
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`ASSISTANT_PROFILE_FILE: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(parsed)) throw new Error('ASSISTANT_PROFILE_FILE: expected a JSON object of profile overrides');
  return parsed as ProfileOverrides;
}

/** Public (neutral) model id -> the provider's id, e.g. assistant-sonnet-4-20250514 -> the provider's name. */
export function toProviderModel(profile: Profile, id: string): string {
  const { neutral, provider } = profile.modelIdPrefix;
  return id.startsWith(neutral) ? provider + id.slice(neutral.length) : id;
}

/** Public rm- id -> the response API's model name (unlisted ids pass unchanged). */
export function toRespapiUpstreamModel(profile: Profile, id: string): string {
  return profile.respapi.modelMap[id] ?? id;
}

/** The provider's model id -> the public (neutral) id. */
export function toNeutralModel(profile: Profile, id: string): string {
  const { neutral, provider } = profile.modelIdPrefix;
  return id.startsWith(provider) ? neutral + id.slice(provider.length) : id;
}
