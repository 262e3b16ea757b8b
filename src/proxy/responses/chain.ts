// Responses that chain by id (docs/responses-store.md): a request naming `previous_response_id` continues the
// conversation of that response. Its input is the earlier responses' input and output, oldest first, plus its own
// new items; the request is then parsed as if the client had sent all of it. Pure, so the rules are tested
// without a store:
// - an unknown or expired id is the provider's own `previous_response_not_found` (a 400 naming the field);
// - new items that repeat the chain (an item id or a tool call id it already holds: a whole-history resend mixed
//   with an id) are refused, never answered from a doubled history;
// - a tool output whose call is neither in the chain nor among the new items is refused, as the provider does:
//   the model would be answered about a call it never made;
// - a response whose output is a compaction item cuts the chain there: what came before is its summary's
//   (chainItems).

import { ProxyError, invalidField } from '../errors.js';
import type { ResponseLookup, StoredResponse } from './store.js';

/** The longest chain walked: a loop or a runaway chain ends here. */
const maxChain = 10_000;

function responseNotFound(id: string): ProxyError {
  return new ProxyError('invalid_request', `Previous response with id '${id.slice(0, 80)}' not found.`, {
    field: 'previous_response_id',
    issue: 'not found',
    code: 'previous_response_not_found',
  });
}

/** A request's input as items: a string is one user message. */
function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/** The chain that ends at `id`, oldest first; throws previous_response_not_found when any link is gone. */
export async function chainOf(id: string, lookup: ResponseLookup): Promise<StoredResponse[]> {
  const chain: StoredResponse[] = [];
  const seen = new Set<string>();
  for (let at: string | null = id; at !== null;) {
    if (seen.has(at) || chain.length >= maxChain) break;
    seen.add(at);
    const record = await lookup.get(at);
    if (!record) throw responseNotFound(id);
    chain.push(record);
    at = record.previous;
  }
  return chain.reverse();
}

function field(item: unknown, name: string): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const value = (item as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const callTypes = new Set(['function_call', 'custom_tool_call']);
const outputTypes = new Set(['function_call_output', 'custom_tool_call_output']);

const isCompaction = (item: unknown) => field(item, 'type') === 'compaction';
const keptRoles = new Set(['user', 'system', 'developer']);
/** A message the client wrote (a user message or an instruction): what a compaction keeps besides its summary. */
const isClientMessage = (item: unknown) =>
  (field(item, 'type') ?? 'message') === 'message' && keptRoles.has(field(item, 'role') ?? '');

/**
 * The chain's items, oldest first. A response whose output holds a compaction item (docs/compaction.md) replaced
 * the conversation before it: from there on, the chain is the client's own messages of before, then that output.
 */
function chainItems(chain: StoredResponse[]): unknown[] {
  let items: unknown[] = [];
  for (const r of chain) {
    const at = r.output.findIndex(isCompaction);
    if (at < 0) items.push(...r.input, ...r.output);
    else items = [...[...items, ...r.input].filter(isClientMessage), ...r.output.slice(at)];
  }
  return items;
}

/**
 * The whole input of a chained request: the chain's items, then the new ones. Refuses new items that contradict
 * the chain (see the file's head).
 */
export function chainedInput(chain: StoredResponse[], newInput: unknown): unknown[] {
  const earlier = chainItems(chain);
  const ids = new Set<string>();
  const calls = new Set<string>();
  for (const item of earlier) {
    const id = field(item, 'id');
    if (id) ids.add(id);
    const type = field(item, 'type');
    const call = field(item, 'call_id');
    if (call && type && callTypes.has(type)) calls.add(call);
  }
  const added = inputItems(newInput);
  added.forEach((item, i) => {
    const type = field(item, 'type');
    const id = field(item, 'id');
    const call = field(item, 'call_id');
    if ((id && ids.has(id)) || (call && type && callTypes.has(type) && calls.has(call)))
      throw invalidField(
        `input.${i}`,
        'repeats an item of the conversation previous_response_id names; send only the new items with it',
      );
    if (call && type && callTypes.has(type)) calls.add(call);
  });
  added.forEach((item, i) => {
    const type = field(item, 'type');
    const call = field(item, 'call_id');
    if (type && outputTypes.has(type) && call && !calls.has(call))
      throw invalidField(`input.${i}.call_id`, `has no tool call: no tool call found for output with call_id ${call}`);
  });
  return [...earlier, ...added];
}

/** The record a finished response leaves: its own new input, its output, and the response object. */
export function storedResponseOf(
  response: Record<string, unknown>,
  previous: string | null,
  newInput: unknown,
  now: number,
): StoredResponse {
  return {
    id: String(response.id),
    createdAt: now,
    previous,
    input: inputItems(newInput),
    output: Array.isArray(response.output) ? response.output : [],
    response,
  };
}
