// The one step that fits a request to the model it goes to (docs/models.md "What the proxy does with each field").
// Every format's parse states the client's intent in neutral native fields (adaptive thinking with
// output_config.effort, thinking disabled, output_config.format, strict tools); this turns that intent into what
// the target model takes, by the model's capabilities (the catalog: the provider's list, else the profile's) and
// rules (profile-models.ts). Whatever is dropped or changed is named by the client's own field name, for
// X-Proxy-Ignored-Params, and said in words for the log. What no change can make acceptable is a 400 before any
// provider call. Pure: no I/O, and the request it is given is left as it is (the fitted one is a new object that
// shares what it did not change); tested beside it.

import { invalidField } from '../errors.js';

import type { NativeOutputFormat, NativeRequest } from '../formats/native.js';

import type { Profile, ReasoningEffort } from '../profile.js';

import type { ClientNames } from '../formats/format.js';

import {
  nativeEfforts,
  type ModelCapabilities,
  type ModelInfo,
  type ModelRules,
  type NativeEffort,
} from '../profile-models.js';

export interface ModelFacts {
  /** The model's neutral id, for messages. */
  id: string;
  capabilities: ModelCapabilities;
  rules: ModelRules;
  /** The largest max_tokens it takes, when known. */
  maxTokens?: number;
  /** False for a model the catalog does not know: the conservative rules. */
  known: boolean;
}

/** A model's facts: its listed capabilities and the profile's rules for its id; the conservative ones when unknown. */
export function factsOf(profile: Profile, id: string, info?: ModelInfo): ModelFacts {
  const capabilities = info?.capabilities;
  if (!capabilities) return { id, ...profile.unknownModel, known: false };
  const matched = profile.modelRules.find((r) => new RegExp(r.pattern).test(id))?.rules;
  const rules = { ...(matched ?? profile.unknownModel.rules) };
  // A model that takes only adaptive thinking refuses every sampling setting (docs/models.md).
  if (capabilities.thinking.length === 1 && capabilities.thinking[0] === 'adaptive') rules.sampling = 'none';
  return { id, capabilities, rules, ...(info.maxTokens ? { maxTokens: info.maxTokens } : {}), known: true };
}

interface FitOptions {
  /** max_tokens is the format's default, not the client's. */
  maxTokensDefaulted: boolean;
  api: Pick<Profile['api'], 'defaultMaxTokens' | 'thinkingMaxTokens' | 'thinkingBudgets' | 'minThinkingBudget'>;
}

interface FitResult {
  /** The request as the model takes it. */
  request: NativeRequest;
  /** Client field names dropped or changed, in order, each once. */
  ignored: string[];
  warnings: string[];
}

/** The supported level nearest to `wanted`; on a tie the lower one (less thinking than asked, never more). */
export function nearestEffort(wanted: NativeEffort, supported: readonly NativeEffort[]): NativeEffort | undefined {
  if (supported.includes(wanted)) return wanted;
  const at = nativeEfforts.indexOf(wanted);
  let best: NativeEffort | undefined;
  for (const level of supported) {
    const d = Math.abs(nativeEfforts.indexOf(level) - at);
    if (best === undefined || d < Math.abs(nativeEfforts.indexOf(best) - at)) best = level;
  }
  return best;
}

/** The instruction a model without structured outputs gets instead of output_config.format. */
function formatInstruction(format: NativeOutputFormat): string {
  return [
    'Respond only with a single valid JSON value that conforms to the JSON schema below.',
    'Do not add any text before or after it.',
    JSON.stringify(format.schema),
  ].join('\n');
}

/** Adds text after the request's system prompt, whatever its form. */
function appendSystem(request: NativeRequest, text: string): void {
  if (request.system === undefined || request.system === '') request.system = text;
  else if (typeof request.system === 'string') request.system = `${request.system}\n\n${text}`;
  else request.system = [...request.system, { type: 'text', text }];
}

class Named {
  readonly ignored: string[] = [];
  readonly warnings: string[] = [];
  constructor(private readonly names: ClientNames) {}
  say(field: keyof ClientNames | 'effort', why: string): void {
    const name = (field === 'effort' ? this.names.thinking : this.names[field]) ?? field;
    if (!this.ignored.includes(name)) this.ignored.push(name);
    this.warnings.push(`${name}: ${why}`);
  }
}

function thinks(request: NativeRequest, facts: ModelFacts): boolean {
  const type = request.thinking?.type;
  if (type === 'adaptive' || type === 'enabled') return true;
  // A model that cannot turn thinking off thinks whatever the request says.
  return type !== 'disabled' && !facts.rules.thinkingOff && facts.capabilities.thinking.includes('adaptive');
}

function fitMaxTokens(request: NativeRequest, facts: ModelFacts, options: FitOptions, out: Named): void {
  const { api } = options;
  if (options.maxTokensDefaulted) {
    const wanted = thinks(request, facts) ? api.thinkingMaxTokens : api.defaultMaxTokens;
    request.max_tokens = Math.min(wanted, facts.maxTokens ?? wanted);
  } else if (facts.maxTokens !== undefined && request.max_tokens > facts.maxTokens) {
    out.say('max_tokens', `${request.max_tokens} was lowered to ${facts.maxTokens}, the most ${facts.id} takes`);
    request.max_tokens = facts.maxTokens;
  }
}

/** The effort a budget stands for: the profile's level whose budget is nearest. */
function effortOfBudget(budget: number, budgets: Readonly<Record<ReasoningEffort, number>>): NativeEffort {
  let best: NativeEffort = 'medium';
  for (const e of ['low', 'medium', 'high', 'xhigh'] as const)
    if (Math.abs(budgets[e] - budget) < Math.abs(budgets[best as ReasoningEffort] - budget)) best = e;
  return best;
}

function setEffort(request: NativeRequest, facts: ModelFacts, wanted: NativeEffort | undefined, out: Named): void {
  const { efforts: supported } = facts.capabilities;
  const config = { ...request.output_config };
  delete config.effort;
  if (wanted !== undefined && supported.length > 0) {
    const level = nearestEffort(wanted, supported) as NativeEffort;
    if (level !== wanted)
      out.say('effort', `${wanted} became ${level}, the nearest level ${facts.id} takes (${supported.join(', ')})`);
    config.effort = level;
  } else if (wanted !== undefined && !request.thinking) {
    out.say('effort', `${facts.id} takes no effort setting`);
  }
  if (Object.keys(config).length > 0) request.output_config = config;
  else delete request.output_config;
}

function fitThinking(request: NativeRequest, facts: ModelFacts, options: FitOptions, out: Named): void {
  const { thinking: forms, efforts: supported } = facts.capabilities;
  const asked = request.thinking;
  let wanted = request.output_config?.effort;
  if (asked?.type === 'enabled' && !forms.includes('enabled') && forms.includes('adaptive')) {
    wanted = effortOfBudget(asked.budget_tokens, options.api.thinkingBudgets);
    out.say('thinking', `${facts.id} takes no thinking budget; adaptive thinking at effort ${wanted} instead`);
    request.thinking = { type: 'adaptive' };
  } else if (asked?.type === 'disabled' && forms.length === 0) {
    delete request.thinking; // nothing to turn off
  } else if (asked?.type === 'disabled' && !facts.rules.thinkingOff) {
    const lowest = supported[0];
    out.say('thinking', `${facts.id} always thinks; ${lowest ? `effort ${lowest}, the least it takes` : 'left on'}`);
    delete request.thinking;
    wanted = lowest;
    if (lowest) request.thinking = { type: 'adaptive' };
  } else if (asked?.type === 'adaptive' && forms.length === 0) {
    out.say('effort', `${facts.id} does not think; asked without thinking`);
    delete request.thinking;
    wanted = undefined;
  } else if (asked?.type === 'adaptive' && !forms.includes('adaptive')) {
    // A budget-only model: the effort's budget, below max_tokens (the provider requires it).
    const table = options.api.thinkingBudgets;
    const budget = Math.min(table[wanted === 'max' ? 'xhigh' : (wanted ?? 'medium')], request.max_tokens - 1);
    if (budget < options.api.minThinkingBudget) {
      out.say('effort', `thinking needs max_tokens above ${options.api.minThinkingBudget}; asked without thinking`);
      delete request.thinking;
    } else request.thinking = { type: 'enabled', budget_tokens: budget };
  }
  setEffort(request, facts, wanted, out);
}

function fitSampling(request: NativeRequest, facts: ModelFacts, out: Named): void {
  const thinking = request.thinking?.type === 'adaptive' || request.thinking?.type === 'enabled';
  for (const key of ['temperature', 'top_p', 'top_k'] as const) {
    if (request[key] === undefined) continue;
    if (facts.rules.sampling === 'none') out.say(key, `${facts.id} takes no sampling settings`);
    else if (thinking) out.say(key, 'the provider refuses it beside thinking');
    else if (key === 'top_p' && facts.rules.sampling === 'one' && request.temperature !== undefined)
      out.say(key, `${facts.id} takes temperature or top_p, not both; temperature was kept`);
    else continue;
    delete request[key];
  }
}

function fitStructuredOutput(request: NativeRequest, facts: ModelFacts, out: Named): void {
  if (facts.capabilities.structuredOutputs) return;
  const format = request.output_config?.format;
  if (format) {
    out.say('format', `${facts.id} has no structured outputs; asked for in the system prompt, not guaranteed to parse`);
    appendSystem(request, formatInstruction(format));
    const { format: _dropped, ...rest } = request.output_config ?? {};
    if (Object.keys(rest).length > 0) request.output_config = rest;
    else delete request.output_config;
  }
  if (!request.tools?.some((tool) => tool.strict !== undefined)) return;
  request.tools = request.tools.map((tool) => {
    if (tool.strict === undefined) return tool;
    out.say('strict', `${facts.id} has no strict tools; the tool's input is not guaranteed to match its schema`);
    const { strict: _dropped, ...rest } = tool;
    return rest;
  });
}

/** What no change can fix: a 400 before any provider call, naming the field and the reason. */
function refuseUnfit(request: NativeRequest, facts: ModelFacts, names: ClientNames): void {
  const choice = request.tool_choice?.type;
  const forced = choice === 'any' || choice === 'tool';
  const field = names.tool_choice ?? 'tool_choice';
  if (forced && !facts.rules.forcedToolUse)
    throw invalidField(
      field,
      'forces tool use, which the model refuses',
      `Invalid request: ${field} forces tool use, which ${facts.id} refuses; use "auto", or ask for JSON through structured output (docs/models.md)`,
    );
  if (forced && request.thinking && request.thinking.type !== 'disabled')
    throw invalidField(
      field,
      'forces tool use, which the provider refuses beside thinking',
      `Invalid request: ${field} forces tool use, which the provider refuses while the model thinks (${names.thinking ?? 'thinking'}); leave one of them out (docs/models.md)`,
    );
  if (!facts.capabilities.imageInput) {
    const at = request.messages.findIndex(
      (m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'image'),
    );
    if (at >= 0)
      throw invalidField(`messages.${at}`, `holds an image, and ${facts.id} takes no image input (docs/models.md)`);
  }
}

/**
 * `request` as the model takes it, a new object (the given one is not changed), with what was dropped or changed
 * named; throws the 400 of a request the model cannot take.
 */
export function fitToModel(
  given: NativeRequest,
  facts: ModelFacts,
  names: ClientNames,
  options: FitOptions,
): FitResult {
  // Each step below replaces the top-level fields it changes, never what they hold, so a shallow copy keeps `given`.
  const request: NativeRequest = { ...given };
  const out = new Named(names);
  fitMaxTokens(request, facts, options, out);
  fitThinking(request, facts, options, out);
  fitSampling(request, facts, out);
  fitStructuredOutput(request, facts, out);
  refuseUnfit(request, facts, names);
  return { request, ignored: out.ignored, warnings: out.warnings };
}
