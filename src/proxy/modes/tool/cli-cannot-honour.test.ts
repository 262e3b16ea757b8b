import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import type { NativeRequest } from '../../formats/native.js';
import { dropWhatCliCannotHonour } from './cli-cannot-honour.js';

const base = (over: Partial<NativeRequest>): NativeRequest => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 2000,
  messages: [{ role: 'user', content: 'hi' }],
  ...over,
});

describe('dropWhatCliCannotHonour', () => {
  it("removes what the CLI cannot take and names it by the client's own field, each once", () => {
    const req = base({
      temperature: 0.2,
      stop_sequences: ['x'],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 5000 },
      max_tokens: 1000,
    });
    const named = dropWhatCliCannotHonour(
      req,
      { temperature: 'options.temperature', thinking: 'think' },
      ['think', 'keep_alive'],
      1024,
    );
    expect(named).toEqual(['options.temperature', 'stop_sequences', 'parallel_tool_calls', 'keep_alive', 'think']);
    expect(req.temperature).toBeUndefined();
    expect(req.stop_sequences).toBeUndefined();
    // A budget that cannot fit below max_tokens and above the smallest budget: thinking off.
    expect(req.thinking).toBeUndefined();
  });

  it('keeps a thinking budget that fits, and refuses a model id no command line can hold', () => {
    const req = base({ thinking: { type: 'enabled', budget_tokens: 1500 } });
    expect(dropWhatCliCannotHonour(req, {}, [], 1024)).toEqual([]);
    expect(req.thinking).toEqual({ type: 'enabled', budget_tokens: 1500 });
    expect(() => dropWhatCliCannotHonour(base({ model: 'a\0b' }), {}, [], 1024)).toThrow(ProxyError);
  });

  it('turns adaptive thinking off when max_tokens leaves no room for the smallest budget, named', () => {
    const fits = base({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
    expect(dropWhatCliCannotHonour(fits, {}, [], 1024)).toEqual([]);
    expect(fits.thinking).toEqual({ type: 'adaptive' });
    const small = base({ max_tokens: 500, thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
    expect(dropWhatCliCannotHonour(small, { thinking: 'reasoning_effort' }, [], 1024)).toEqual(['reasoning_effort']);
    expect(small.thinking).toBeUndefined();
    // The effort is still passed on: adaptive-only models think whatever the budget.
    expect(small.output_config).toEqual({ effort: 'low' });
  });

  it('refuses a JSON schema after a prefilled assistant message with a 400 naming the field, before any CLI starts', () => {
    const prefill = base({
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '{"a":' },
      ],
    });
    expect(() => dropWhatCliCannotHonour(prefill, {}, [], 1024)).toThrow(/prefill/);
    expect(() => dropWhatCliCannotHonour(prefill, { format: 'response_format' }, [], 1024)).toThrow(
      expect.objectContaining({ status: 400, field: 'response_format' }),
    );
  });
});
