// The provider's models as the profile knows them (part of profile.ts, kept apart for its length; overridden the
// same way, through ASSISTANT_PROFILE_FILE): the offline fallback list with each model's capabilities and largest
// max_tokens, the rules the provider's own model list does not carry, and what an unknown model is taken to
// accept. Sources: the provider's model list and documentation, its 400s, and what its CLI sends (docs/models.md).

/** The provider's effort levels (output_config.effort), lowest first; which of them a model takes is in its
 * capabilities. */
export const nativeEfforts = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type NativeEffort = (typeof nativeEfforts)[number];

export interface ModelInfo {
  id: string;
  created: number;
  remark?: string;
  /** The smallest, cheapest model of the list: diagnose's tiny request uses it when no model of
   * clientSupport.smallestFamily is listed. */
  smallest?: boolean;
  /** Input context window in tokens, when the provider's list or the profile says it. */
  contextLength?: number;
  /** The largest max_tokens the model takes, when the provider's list or the profile says it. */
  maxTokens?: number;
  /** What the model takes, as the provider's list (or the profile's fallback) says (docs/models.md). */
  capabilities?: ModelCapabilities;
}

/** The capabilities the provider's model list gives each model (docs/models.md "What each model takes"). */
export interface ModelCapabilities {
  /** Thinking forms: `adaptive` (its depth is output_config.effort), `enabled` (a budget). Empty: no thinking. */
  thinking: Array<'adaptive' | 'enabled'>;
  /** The output_config.effort levels it takes; empty: no effort setting. */
  efforts: NativeEffort[];
  /** output_config.format (constrained decoding) and strict tools. */
  structuredOutputs: boolean;
  imageInput: boolean;
  pdfInput: boolean;
}

/** What a model refuses that the provider's list does not say, from its documentation and its 400s (docs/models.md). */
export interface ModelRules {
  /** The sampling settings it takes: all, only one of temperature and top_p (top_k aside), or none. */
  sampling: 'all' | 'one' | 'none';
  /** `thinking: {type: "disabled"}` is taken (the 5.x family always thinks). */
  thinkingOff: boolean;
  /** tool_choice `any` or `tool` is taken (the newest models refuse forced tool use). */
  forcedToolUse: boolean;
}

const adaptiveOnly = (efforts: ModelCapabilities['efforts']): ModelCapabilities => ({
  thinking: ['adaptive'],
  efforts,
  structuredOutputs: true,
  imageInput: true,
  pdfInput: true,
});
const budgetThinking = (structuredOutputs: boolean, efforts: ModelCapabilities['efforts'] = []): ModelCapabilities => ({
  thinking: ['enabled'],
  efforts,
  structuredOutputs,
  imageInput: true,
  pdfInput: true,
});
const noThinking: ModelCapabilities = {
  thinking: [],
  efforts: [],
  structuredOutputs: false,
  imageInput: true,
  pdfInput: true,
};
const allEfforts: ModelCapabilities['efforts'] = [...nativeEfforts];

/** Newest first by family; `created` orders them wherever they are shown. */
export const fallbackModels: ModelInfo[] = [
  {
    id: 'assistant-opus-5-5',
    created: 1790208000,
    remark: 'most capable',
    contextLength: 1_000_000,
    maxTokens: 128_000,
    capabilities: adaptiveOnly(allEfforts),
  },
  {
    id: 'assistant-opus-4-7',
    created: 1776297600,
    contextLength: 1_000_000,
    maxTokens: 128_000,
    capabilities: adaptiveOnly(allEfforts),
  },
  {
    id: 'assistant-opus-4-6',
    created: 1770249600,
    contextLength: 200_000,
    maxTokens: 128_000,
    capabilities: { ...adaptiveOnly(['low', 'medium', 'high', 'max']), thinking: ['adaptive', 'enabled'] },
  },
  {
    id: 'assistant-sonnet-4-6',
    created: 1771286400,
    remark: 'latest',
    contextLength: 200_000,
    maxTokens: 64_000,
    capabilities: { ...adaptiveOnly(['low', 'medium', 'high', 'max']), thinking: ['adaptive', 'enabled'] },
  },
  {
    id: 'assistant-haiku-4-5-20251001',
    created: 1759276800,
    contextLength: 200_000,
    maxTokens: 64_000,
    smallest: true,
    capabilities: budgetThinking(true),
  },
  {
    id: 'assistant-opus-4-5-20251101',
    created: 1761955200,
    contextLength: 200_000,
    maxTokens: 64_000,
    capabilities: budgetThinking(true, ['low', 'medium', 'high']),
  },
  {
    id: 'assistant-sonnet-4-5-20250929',
    created: 1759104000,
    contextLength: 200_000,
    maxTokens: 64_000,
    capabilities: budgetThinking(true),
  },
  {
    id: 'assistant-opus-4-1-20250805',
    created: 1754352000,
    contextLength: 200_000,
    maxTokens: 32_000,
    capabilities: budgetThinking(true),
  },
  {
    id: 'assistant-opus-4-20250514',
    created: 1747180800,
    contextLength: 200_000,
    maxTokens: 32_000,
    capabilities: budgetThinking(false),
  },
  {
    id: 'assistant-sonnet-4-20250514',
    created: 1747180800,
    contextLength: 200_000,
    maxTokens: 64_000,
    capabilities: budgetThinking(false),
  },
  {
    id: 'assistant-3-7-sonnet-20250219',
    created: 1739923200,
    contextLength: 200_000,
    maxTokens: 64_000,
    capabilities: budgetThinking(false),
  },
  {
    id: 'assistant-3-5-sonnet-20241022',
    created: 1729555200,
    contextLength: 200_000,
    maxTokens: 8192,
    capabilities: noThinking,
  },
  {
    id: 'assistant-3-5-sonnet-20240620',
    created: 1718841600,
    remark: 'legacy',
    contextLength: 200_000,
    maxTokens: 8192,
    // PDF input came with the October 2024 release of this model, not the June one.
    capabilities: { ...noThinking, pdfInput: false },
  },
  {
    id: 'assistant-3-5-haiku-20241022',
    created: 1729555200,
    contextLength: 200_000,
    maxTokens: 8192,
    capabilities: noThinking,
  },
];

/**
 * The rules by neutral id, first match wins. The 5.x family always thinks and refuses forced tool use; Opus 4.7 and
 * later refuse every sampling setting; from Opus 4.1 on, temperature and top_p are refused together.
 */
export const modelRules: Array<{ pattern: string; rules: ModelRules }> = [
  { pattern: '-(opus|sonnet|haiku)-5(-|$)', rules: { sampling: 'none', thinkingOff: false, forcedToolUse: false } },
  { pattern: '-(opus|sonnet|haiku)-4-[7-9](-|$)', rules: { sampling: 'none', thinkingOff: true, forcedToolUse: true } },
  { pattern: '-(opus|sonnet|haiku)-4-[1-6](-|$)', rules: { sampling: 'one', thinkingOff: true, forcedToolUse: true } },
  { pattern: '.', rules: { sampling: 'all', thinkingOff: true, forcedToolUse: true } },
];

/**
 * A model the catalog does not list (a name only the provider knows): what every current model takes. No sampling
 * settings (today's models refuse them), adaptive thinking at the three efforts all of them take, structured
 * outputs, no cap on max_tokens (the provider says its own), and thinking never turned off.
 */
export const unknownModel: { capabilities: ModelCapabilities; rules: ModelRules } = {
  capabilities: adaptiveOnly(['low', 'medium', 'high']),
  rules: { sampling: 'none', thinkingOff: false, forcedToolUse: true },
};
