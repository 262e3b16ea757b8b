// The byte-exact model rewrite of the direct-mode forwarder: only the top-level model value changes.

import { describe, expect, it } from 'vitest';
import { rewriteBodyModel, topLevelStringSpan } from './rewrite-body-model.js';

describe('rewriteBodyModel', () => {
  const b = (s: string) => Buffer.from(s, 'utf8');

  it('replaces only the top-level model value, keeping every other byte', () => {
    const body =
      '{"messages":[{"role":"user","content":"model \\"assistant-x\\"","model":"assistant-y"}], "model" : "assistant-sonnet-4-20250514" ,"n":1.0}';
    expect(rewriteBodyModel(b(body), 'claude-sonnet-4-20250514').toString()).toBe(
      body.replace('"assistant-sonnet-4-20250514"', '"claude-sonnet-4-20250514"'),
    );
  });

  it('returns the same buffer when nothing needs mapping', () => {
    const raw = b('{"model":"claude-3-5-haiku-20241022","x":"é"}');
    expect(rewriteBodyModel(raw, 'claude-3-5-haiku-20241022')).toBe(raw);
    const noModel = b('{"messages":[]}');
    expect(rewriteBodyModel(noModel, 'claude-3-5-haiku-20241022')).toBe(noModel);
  });

  it('handles multi-byte text and escapes before the model', () => {
    const body = '{"system":"☕ \\\\ \\" {[","model":"assistant-opus-4-20250514"}';
    expect(rewriteBodyModel(b(body), 'claude-opus-4-20250514').toString()).toBe(
      '{"system":"☕ \\\\ \\" {[","model":"claude-opus-4-20250514"}',
    );
    expect(topLevelStringSpan(b('{"model":{"model":"x"}}'), 'model')).toBeUndefined();
  });

  it('reads keys and model ids with escapes as JSON does', () => {
    // "mod\u0065l" is the key "model"; the value's escape is kept as text, then replaced whole.
    const body = '{"mod\\u0065l":"assistant-sonnet-4-20250514","x":"\\"model\\""}';
    expect(rewriteBodyModel(b(body), 'claude-sonnet-4-20250514').toString()).toBe(
      '{"mod\\u0065l":"claude-sonnet-4-20250514","x":"\\"model\\""}',
    );
    const escapedValue = b('{"model":"assistant-\\u0073onnet"}');
    expect(rewriteBodyModel(escapedValue, 'assistant-sonnet')).toBe(escapedValue);
    expect(topLevelStringSpan(b('{"model":"unterminated'), 'model')).toEqual({ start: 9, end: 22 });
    expect(rewriteBodyModel(b('{"model":"unterminated'), 'x').toString()).toBe('{"model":"unterminated');
  });
});
