// Client body -> the response API's request (docs/interface.md "Response-API request"; docs/respapi-mode.md). Pure: no
// I/O, no logger.
//
// Two body forms are accepted:
// - the interface's chat form (`messages`): system/developer messages become part of `instructions`, user and
//   assistant messages become `input` message items; temperature and max_tokens map to the upstream's names;
//   any other field has no response-API meaning and is not forwarded (it is named in `ignored`);
// - the response API's own form (`input`, `instructions`, ...): forwarded as is, apart from the rules below.
// In both forms: the model id is checked against the profile's rm- list and mapped to the upstream name;
// our instruction prompt comes first in `instructions` (instructions.ts); `stream` is always true upstream
// (the upstream only streams); the profile's request defaults fill unset fields; parameters the upstream refuses
// (profile.respapi.unsupportedParams) are dropped and named in `ignored`.

import { ProxyError, invalidField } from '../errors.js';
import { respapiRequestSchema, type RespapiChatMessage as ChatMessage } from './schema.js';
import { validate } from '../formats/validate.js';
import { toRespapiUpstreamModel, type Profile } from '../profile.js';
import { combineInstructions } from './instructions.js';

export interface UpstreamPlan {
  /** The body sent upstream. */
  body: Record<string, unknown>;
  /** Client fields that were not forwarded, by the client's names (X-Proxy-Ignored-Params). */
  ignored: string[];
  /** Whether the client wants a stream (the upstream always streams). */
  clientStream: boolean;
  /** The neutral id the client asked for, and the upstream's name for it. */
  model: string;
  upstreamModel: string;
}

/** The chat form's fields (docs/interface.md "Response-API request"), which are translated rather than passed on. */
const chatFields = new Set(['model', 'messages', 'temperature', 'max_tokens', 'stream', 'instructions']);

function partsText(content: ChatMessage['content'], field: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((p, i) => {
      if (p.type === 'image_url') throw invalidField(`${field}.${i}`, 'must be text in a system message');
      return p.text;
    })
    .join('\n');
}

function toInputItem(m: ChatMessage, index: number): Record<string, unknown> {
  const field = `messages.${index}.content`;
  const textType = m.role === 'assistant' ? 'output_text' : 'input_text';
  const parts = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
  const content = parts.map((p, i) => {
    if (p.type !== 'image_url') return { type: textType, text: p.text };
    if (m.role === 'assistant') throw invalidField(`${field}.${i}`, 'images are only accepted in user messages');
    return { type: 'input_image', image_url: typeof p.image_url === 'string' ? p.image_url : p.image_url.url };
  });
  return { type: 'message', role: m.role, content };
}

export function respapiRequestToUpstream(raw: unknown, profile: Profile, ourInstructions: string): UpstreamPlan {
  const parsed = validate(respapiRequestSchema, raw);
  const model = parsed.model;
  if (!profile.respapiModels.some((m) => m.id === model)) {
    const known = profile.respapiModels.map((m) => m.id).join(', ');
    throw new ProxyError(
      'model_not_found',
      `The model '${model}' does not exist in response-API mode; use one of: ${known}`,
      { field: 'model', issue: 'not available' },
    );
  }
  if (parsed.messages !== undefined && parsed.input !== undefined) {
    throw invalidField(
      'messages',
      'cannot be combined with input',
      'Send either messages (the chat form, docs/interface.md "Response-API request") or input (the response API form), not both',
    );
  }
  if (parsed.messages === undefined && parsed.input === undefined) {
    throw invalidField(
      'messages',
      'is required',
      'Invalid request: messages is required (or input, in the response API form)',
    );
  }

  const upstreamModel = toRespapiUpstreamModel(profile, model);
  const ignored: string[] = [];
  let body: Record<string, unknown>;
  if (parsed.messages !== undefined) {
    const system = parsed.messages
      .map((m, i) => ({ m, i }))
      .filter(({ m }) => m.role === 'system' || m.role === 'developer');
    const turns = parsed.messages
      .map((m, i) => ({ m, i }))
      .filter(({ m }) => m.role === 'user' || m.role === 'assistant');
    if (turns.length === 0) throw invalidField('messages', 'must contain a user message');
    body = {
      model: upstreamModel,
      instructions: combineInstructions(
        ourInstructions,
        parsed.instructions ?? undefined,
        ...system.map(({ m, i }) => partsText(m.content, `messages.${i}.content`)),
      ),
      input: turns.map(({ m, i }) => toInputItem(m, i)),
    };
    for (const key of Object.keys(parsed)) if (!chatFields.has(key)) ignored.push(key);
  } else {
    const { model: _m, instructions: _i, stream: _s, max_tokens: _t, ...rest } = parsed;
    body = {
      ...rest,
      model: upstreamModel,
      instructions: combineInstructions(ourInstructions, parsed.instructions ?? undefined),
    };
  }
  // Client names -> upstream names; null means "unset" for common clients.
  const mapped: Array<[string, string, unknown]> = [
    ['temperature', 'temperature', parsed.temperature],
    ['max_tokens', 'max_output_tokens', parsed.max_tokens],
  ];
  const setBy = new Map<string, string>();
  for (const [clientName, upstreamName, value] of mapped) {
    if (value === undefined || value === null) {
      if (parsed.input !== undefined) delete body[clientName];
      continue;
    }
    body[upstreamName] = value;
    setBy.set(upstreamName, clientName);
  }
  for (const name of profile.respapi.unsupportedParams) {
    if (!(name in body)) continue;
    delete body[name];
    const clientName = setBy.get(name) ?? name;
    if (!ignored.includes(clientName)) ignored.push(clientName);
  }
  for (const [k, v] of Object.entries(profile.respapi.requestDefaults)) if (!(k in body)) body[k] = v;
  body.stream = true;
  return { body, ignored, clientStream: parsed.stream === true, model, upstreamModel };
}
