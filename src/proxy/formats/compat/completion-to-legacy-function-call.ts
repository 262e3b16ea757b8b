// Answers in the legacy function-calling form of the compatible format, for a request that sent `functions` (not
// `tools`): the first tool call becomes `message.function_call` / `delta.function_call` and the finish reason
// `function_call`; that form has one call per answer and no ids, so later calls are left out. Pure; tested beside it. docs/tool-mode.md "The client's own tools".

import type { CompatChunk, CompatCompletion } from './schema.js';

export function completionToLegacyFunctionCall(completion: CompatCompletion): CompatCompletion {
  return {
    ...completion,
    choices: completion.choices.map((choice) => {
      const { tool_calls: calls, ...message } = choice.message;
      if (!calls || calls.length === 0) return choice;
      return {
        ...choice,
        message: {
          ...message,
          function_call: { name: calls[0].function.name, arguments: calls[0].function.arguments },
        },
        finish_reason: choice.finish_reason === 'tool_calls' ? 'function_call' : choice.finish_reason,
      };
    }),
  };
}

/** One streamed chunk in the legacy form: tool call 0's deltas as function_call deltas, the others dropped. */
export function chunkToLegacyFunctionCall(chunk: CompatChunk): CompatChunk | undefined {
  const choice = chunk.choices[0];
  if (!choice) return chunk;
  const { tool_calls: calls, ...delta } = choice.delta;
  const finish = choice.finish_reason === 'tool_calls' ? 'function_call' : choice.finish_reason;
  if (!calls)
    return finish === choice.finish_reason ? chunk : { ...chunk, choices: [{ ...choice, finish_reason: finish }] };
  const first = calls.find((c) => c.index === 0);
  if (!first) return undefined;
  const fn = {
    ...(first.function.name !== undefined ? { name: first.function.name } : {}),
    arguments: first.function.arguments,
  };
  return { ...chunk, choices: [{ ...choice, delta: { ...delta, function_call: fn }, finish_reason: finish }] };
}
