// Today's model rules, as the provider keeps them (its documentation, its 400s and what its own CLI 2.1.330 sends:
// docs/testing.md "Model rules"). Written here from those sources and not read from the proxy's profile, so a proxy
// whose catalog is wrong is caught. Served as `capabilities`, `max_input_tokens` and `max_tokens` in the model list,
// and checked on every message request while the `modelRules` knob is `strict` (the default).

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface SimModel {
  /** Thinking forms the model takes. */
  thinking: Array<'adaptive' | 'enabled'>;
  efforts: Effort[];
  structuredOutputs: boolean;
  maxTokens: number;
  maxInputTokens: number;
  /** Sampling settings: all, temperature or top_p (not both), none. */
  sampling: 'all' | 'one' | 'none';
  thinkingOff: boolean;
  forcedToolUse: boolean;
  /** False for a model that reads no PDF (a document with a base64 or URL source); absent: it reads them. */
  pdfInput?: boolean;
}

const all: Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];
const fifthGen: SimModel = {
  thinking: ['adaptive'],
  efforts: all,
  structuredOutputs: true,
  maxTokens: 128_000,
  maxInputTokens: 1_000_000,
  sampling: 'none',
  thinkingOff: false,
  forcedToolUse: false,
};
const adaptiveOnly: SimModel = { ...fifthGen, thinkingOff: true, forcedToolUse: true };
const adaptiveOrBudget: SimModel = {
  ...adaptiveOnly,
  thinking: ['adaptive', 'enabled'],
  efforts: ['low', 'medium', 'high', 'max'],
  maxInputTokens: 200_000,
  sampling: 'one',
};
const budget = (maxTokens: number, structuredOutputs: boolean, sampling: SimModel['sampling']): SimModel => ({
  thinking: ['enabled'],
  efforts: [],
  structuredOutputs,
  maxTokens,
  maxInputTokens: 200_000,
  sampling,
  thinkingOff: true,
  forcedToolUse: true,
});
const plain: SimModel = { ...budget(8192, false, 'all'), thinking: [] };

/** By the provider's id; an id not here is answered without model rules (the simulator's own test models). */
export const simModels: Record<string, SimModel> = {
  'claude-opus-5-5': fifthGen,
  'claude-sonnet-4-7': adaptiveOnly,
  'claude-opus-4-7': adaptiveOnly,
  'claude-opus-4-6': adaptiveOrBudget,
  'claude-sonnet-4-6': { ...adaptiveOrBudget, maxTokens: 64_000 },
  'claude-haiku-4-5-20251001': budget(64_000, true, 'one'),
  'claude-opus-4-5-20251101': { ...budget(64_000, true, 'one'), efforts: ['low', 'medium', 'high'] },
  'claude-sonnet-4-5-20250929': budget(64_000, true, 'one'),
  'claude-opus-4-1-20250805': budget(32_000, true, 'one'),
  'claude-opus-4-20250514': budget(32_000, false, 'all'),
  'claude-sonnet-4-20250514': budget(64_000, false, 'all'),
  'claude-3-7-sonnet-20250219': budget(64_000, false, 'all'),
  'claude-3-5-sonnet-20241022': plain,
  // PDF input came with the October 2024 release of 3.5 Sonnet, not the June one.
  'claude-3-5-sonnet-20240620': { ...plain, pdfInput: false },
  'claude-3-5-haiku-20241022': plain,
};

/** The model's rules under its id, or the undated name of a dated one (the provider accepts both). */
export function simModelOf(id: unknown): SimModel | undefined {
  if (typeof id !== 'string') return undefined;
  if (Object.hasOwn(simModels, id)) return simModels[id];
  const dated = Object.keys(simModels).find((k) => k.replace(/-\d{8}$/, '') === id);
  return dated ? simModels[dated] : undefined;
}

const yes = { supported: true };
const no = { supported: false };

/** The `capabilities` object of the provider's model list. */
export function capabilitiesOf(m: SimModel): Record<string, unknown> {
  return {
    batch: yes,
    citations: yes,
    image_input: yes,
    pdf_input: m.pdfInput === false ? no : yes,
    structured_outputs: m.structuredOutputs ? yes : no,
    context_management: m.thinking.length > 0 ? yes : no,
    thinking: {
      supported: m.thinking.length > 0,
      types: {
        adaptive: m.thinking.includes('adaptive') ? yes : no,
        enabled: m.thinking.includes('enabled') ? yes : no,
      },
    },
    effort: {
      supported: m.efforts.length > 0,
      ...Object.fromEntries(all.map((e) => [e, m.efforts.includes(e) ? yes : no])),
    },
  };
}

const set = (v: unknown) => v !== undefined && v !== null;

/** Where the request's first PDF document is (`messages.0.content.1`), or undefined when it has none. */
function pdfAt(body: Record<string, unknown>): string | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as Array<{ type?: unknown; source?: { type?: unknown } }>).entries())
      if (b.type === 'document' && (b.source?.type === 'base64' || b.source?.type === 'url'))
        return `messages.${i}.content.${j}`;
  }
  return undefined;
}

/** The provider's refusal of a request by the rules of its model, in its own words; undefined when it may go on. */
export function modelRuleRefusal(body: Record<string, unknown>): string | undefined {
  const m = simModelOf(body.model);
  if (!m) return undefined;
  const model = String(body.model);
  const thinking = body.thinking as { type?: unknown } | undefined;
  const config = (body.output_config ?? {}) as { effort?: unknown; format?: { type?: unknown; schema?: unknown } };
  if (typeof body.max_tokens === 'number' && body.max_tokens > m.maxTokens)
    return `max_tokens: ${body.max_tokens} > ${m.maxTokens}, which is the maximum allowed number of output tokens for ${model}`;
  if (thinking?.type === 'enabled' && !m.thinking.includes('enabled'))
    return 'thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort to control thinking behavior.';
  if (thinking?.type === 'adaptive' && !m.thinking.includes('adaptive'))
    return `thinking.type.adaptive is not supported for this model (${model})`;
  if (thinking?.type === 'disabled' && !m.thinkingOff)
    return `thinking.type.disabled is not supported for this model (${model}). Lower output_config.effort instead.`;
  for (const key of ['temperature', 'top_p', 'top_k'])
    if (m.sampling === 'none' && set(body[key])) return `\`${key}\` is deprecated for this model.`;
  if (m.sampling === 'one' && set(body.temperature) && set(body.top_p))
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  if (set(config.effort) && !m.efforts.includes(config.effort as Effort))
    return m.efforts.length === 0
      ? `output_config.effort: this model (${model}) does not support the effort parameter`
      : `output_config.effort: Input should be ${m.efforts.map((e) => `'${e}'`).join(', ')} for ${model}`;
  if (set(config.format)) {
    if (!m.structuredOutputs) return `output_config.format: structured outputs are not supported for ${model}`;
    if (config.format?.type !== 'json_schema' || typeof config.format.schema !== 'object' || !config.format.schema)
      return "output_config.format: Input should be {type: 'json_schema', schema: object}";
  }
  if (m.pdfInput === false) {
    const at = pdfAt(body);
    if (at) return `${at}: PDF input is not supported for ${model}`;
  }
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ strict?: unknown }>) : [];
  if (!m.structuredOutputs && tools.some((t) => t.strict === true))
    return `tools.strict: strict tool use is not supported for ${model}`;
  const choice = (body.tool_choice as { type?: unknown } | undefined)?.type;
  if (!m.forcedToolUse && (choice === 'any' || choice === 'tool'))
    return `tool_choice.type: forced tool use ('${String(choice)}') is not supported for this model (${model}). Use 'auto' or 'none'.`;
  return undefined;
}
