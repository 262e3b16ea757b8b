import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import type { NativeRequest } from '../../formats/native.js';
import { fitRequestToCli } from './request-fit.js';

const base = (over: Partial<NativeRequest>): NativeRequest => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 2000,
  messages: [{ role: 'user', content: 'hi' }],
  ...over,
});

describe('fitRequestToCli', () => {
  it("removes what the CLI cannot take and names it by the client's own field, each once", () => {
    const req = base({
      temperature: 0.2,
      stop_sequences: ['x'],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 5000 },
      max_tokens: 1000,
    });
    const named = fitRequestToCli(
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
    expect(fitRequestToCli(req, {}, [], 1024)).toEqual([]);
    expect(req.thinking).toEqual({ type: 'enabled', budget_tokens: 1500 });
    expect(() => fitRequestToCli(base({ model: 'a\0b' }), {}, [], 1024)).toThrow(ProxyError);
  });
});
