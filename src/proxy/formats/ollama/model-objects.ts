// The proxy's models as the Ollama API describes models (docs/ollama.md): /api/tags, /api/show, /api/ps. Pure.
// The models run at the provider, so the fields about local files are stated plainly: size 0, no quantization, a
// digest that is a hash of the id (stable, so a client's cache stays valid; not a file's hash). What clients read
// is true: the name, the capabilities (completion, tools, vision, thinking) and the context length, in model_info
// under `<architecture>.context_length` where Copilot and others look for it.

import { createHash } from 'node:crypto';

/** The model facts the Ollama answers need, taken from the model catalog's entries. */
export interface OllamaModelFacts {
  id: string;
  /** Unix seconds (the catalog's `created`). */
  created: number;
  /** Tokens; the catalog's when it knows, else the list's documented 200K (docs/interface.md "Models"). */
  contextLength: number;
}

/** The architecture name model_info is keyed by. */
const ollamaArchitecture = 'assistant';

/** The models' context length when the catalog does not say (docs/interface.md "Models", "Limits": 200K tokens). */
const defaultContextLength = 200_000;

/** A catalog entry's context length, by either spelling, when it has one. */
export function contextLengthOf(info: object): number {
  const record = info as { contextLength?: unknown; context_length?: unknown };
  const value = record.contextLength ?? record.context_length;
  return typeof value === 'number' && value > 0 ? value : defaultContextLength;
}

function digestOf(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

function detailsOf(facts: OllamaModelFacts) {
  // The family is the id's middle part (assistant-sonnet-4-6 -> sonnet), when it has one.
  const family = facts.id.split('-').find((part, i) => i > 0 && /^[a-z]+$/.test(part)) ?? ollamaArchitecture;
  return { parent_model: '', format: 'remote', family, families: [family], parameter_size: '', quantization_level: '' };
}

function modifiedAt(facts: OllamaModelFacts): string {
  return new Date(facts.created * 1000).toISOString();
}

function ollamaTag(facts: OllamaModelFacts) {
  return {
    name: facts.id,
    model: facts.id,
    modified_at: modifiedAt(facts),
    size: 0,
    digest: digestOf(facts.id),
    details: detailsOf(facts),
  };
}

export function ollamaTags(models: readonly OllamaModelFacts[]) {
  return { models: models.map(ollamaTag) };
}

/**
 * What /api/show says of a model: its capabilities (tools and vision among them: images reach the model in both modes) and its
 * context length.
 */
export function ollamaShow(facts: OllamaModelFacts) {
  return {
    license: '',
    modelfile: `# ${facts.id} is served by the provider through this proxy; there is no local model file.\nFROM ${facts.id}\n`,
    parameters: '',
    template: '',
    details: detailsOf(facts),
    model_info: {
      'general.architecture': ollamaArchitecture,
      'general.basename': facts.id,
      'general.parameter_count': 0,
      [`${ollamaArchitecture}.context_length`]: facts.contextLength,
    },
    capabilities: ['completion', 'tools', 'vision', 'thinking'],
    modified_at: modifiedAt(facts),
  };
}

/**
 * /api/ps lists the models "in memory". Nothing is loaded on this machine, but every model can answer at once, so
 * all are listed with no size and an expiry far ahead: a client that waits for its model to be loaded goes on.
 */
export function ollamaPs(models: readonly OllamaModelFacts[], now: number) {
  const expires = new Date(now + 24 * 3_600_000).toISOString();
  return {
    models: models.map((m) => ({
      ...ollamaTag(m),
      expires_at: expires,
      size_vram: 0,
      context_length: m.contextLength,
    })),
  };
}
