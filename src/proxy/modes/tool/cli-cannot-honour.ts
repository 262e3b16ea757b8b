// What tool mode's CLI cannot honour in a native request, run by tool mode's prepare step (prepare.ts;
// docs/tool-mode.md "Parameters"): sampling settings and stop sequences are removed, the parallel-call switch has no
// CLI flag, and thinking (a budget, or adaptive) the CLI cannot keep below max_tokens is turned off. Each is named by
// the client's own field name, for X-Proxy-Ignored-Params. What it cannot take at all is a 400 before any CLI starts: a
// JSON schema for an answer that continues a prefilled assistant message (docs/tool-mode.md "Structured output"). No
// I/O, but it changes the request it is given, in place; tested beside it.

import { invalidField } from '../../errors.js';
import type { ClientNames } from '../../formats/format.js';
import { nativeSamplingFields, type NativeRequest } from '../../formats/native.js';
import { checkCliModelArgument } from './translate/native-request-to-cli-input.js';
import { thinkingBudget } from './translate/native-thinking-to-cli.js';

/**
 * Thinking (a budget, or adaptive) whose budget the CLI cannot keep below max_tokens and at least the provider's
 * smallest budget: thinking is turned off (never a request the provider refuses). True when it was.
 */
function dropUnfitThinking(request: NativeRequest, minBudget: number): boolean {
  const type = request.thinking?.type;
  if ((type !== 'enabled' && type !== 'adaptive') || thinkingBudget(request, minBudget) > 0) return false;
  delete request.thinking;
  return true;
}

/**
 * The CLI answers a JSON schema through a tool call of its own, which cannot continue a prefilled assistant message
 * (the provider refuses structured output after a prefill too): a 400 naming the client's field.
 */
function refusePrefilledSchema(request: NativeRequest, clientNames: ClientNames): void {
  if (!request.output_config?.format || request.messages.at(-1)?.role !== 'assistant') return;
  const field = clientNames.format ?? 'output_config.format';
  throw invalidField(
    field,
    'cannot continue a prefilled assistant message',
    `Invalid request: ${field}: a JSON schema for the answer cannot be combined with a conversation that ends with an assistant message (a prefill); end it with the user's message (docs/tool-mode.md "Structured output")`,
  );
}

/**
 * Removes from `request`, in place, what the CLI cannot honour, and returns the client's names of what was dropped, after `alreadyIgnored` (what
 * the format's own translation named), each once. Throws a 400 for a model id no CLI argument can hold (malformed,
 * not an unknown model), and for a JSON schema after a prefill.
 */
export function dropWhatCliCannotHonour(
  request: NativeRequest,
  clientNames: ClientNames,
  alreadyIgnored: string[],
  minBudget: number,
): string[] {
  checkCliModelArgument(request.model);
  refusePrefilledSchema(request, clientNames);
  const named: string[] = [];
  // The CLI has no flag for any sampling setting or stop sequence (docs/tool-mode.md "Parameters").
  for (const key of nativeSamplingFields) {
    if (request[key] === undefined) continue;
    delete request[key];
    named.push(clientNames[key] ?? key);
  }
  // The CLI has no way to forbid parallel tool calls (docs/tool-mode.md "The client's own tools").
  const choice = request.tool_choice;
  if (choice && 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true)
    named.push(clientNames.parallel_tool_calls ?? 'parallel_tool_calls');
  named.push(...alreadyIgnored);
  if (dropUnfitThinking(request, minBudget)) {
    const field = clientNames.thinking ?? 'thinking';
    // Last, once: the translation may have named it already (a budget it had to cut).
    const at = named.indexOf(field);
    if (at >= 0) named.splice(at, 1);
    named.push(field);
  }
  return [...new Set(named)];
}
