// The legacy function-calling form of a compatible request -> its `tools` form, before the body's schema is checked
// (docs/tool-mode.md "The client's own tools"). Pure; tested beside it.
// - `functions` become `tools`, `function_call` ("none", "auto" or {name}) becomes `tool_choice`;
// - an assistant message's `function_call` becomes one tool call, and a `function` role message its `tool` result.
//   The legacy form has no ids: the k-th call of the conversation gets the id `call_legacy_<k>`, and a function
//   message answers the call before it. Such results could never match a CLI waiting for the provider's ids, so the
//   CLI is not kept waiting (BackendContext.toolResultsReturn) and a legacy loop continues in a fresh process with
//   the transcript.
// A request that also has `tools`, or no `functions`, is returned unchanged.

const legacyCallIdPrefix = 'call_legacy_';

interface LegacyFunctionsResult {
  body: unknown;
  legacy: boolean;
}

export function legacyFunctionsToTools(body: unknown): LegacyFunctionsResult {
  if (typeof body !== 'object' || body === null) return { body, legacy: false };
  const record = body as Record<string, unknown>;
  if (
    !Array.isArray(record.functions) ||
    record.functions.length === 0 ||
    (Array.isArray(record.tools) && record.tools.length > 0)
  ) {
    return { body, legacy: false };
  }
  const { functions, function_call: call, ...rest } = record;
  const out: Record<string, unknown> = {
    ...rest,
    tools: functions.map((fn: unknown) => ({ type: 'function', function: fn })),
  };
  if (call === 'none' || call === 'auto') out.tool_choice = call;
  else if (typeof call === 'object' && call !== null)
    out.tool_choice = { type: 'function', function: { name: (call as { name?: unknown }).name } };
  if (Array.isArray(record.messages)) {
    let calls = 0;
    let lastId: string | undefined;
    out.messages = record.messages.map((m: unknown) => {
      if (typeof m !== 'object' || m === null) return m;
      const message = m as Record<string, unknown>;
      if (message.role === 'assistant' && typeof message.function_call === 'object' && message.function_call !== null) {
        const { function_call: fc, ...others } = message;
        lastId = `${legacyCallIdPrefix}${++calls}`;
        return { ...others, tool_calls: [{ id: lastId, type: 'function', function: fc }] };
      }
      if (message.role === 'function') {
        return { role: 'tool', tool_call_id: lastId ?? `${legacyCallIdPrefix}0`, content: message.content ?? '' };
      }
      return message;
    });
  }
  return { body: out, legacy: true };
}
