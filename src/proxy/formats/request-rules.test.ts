import { describe, expect, it } from 'vitest';
import type { NativeRequest } from './native.js';
import {
  applyEffortIntent,
  applyTemperature,
  ignoredOf,
  nativeToolChoiceOf,
  nativeToolOf,
  outputFormatOf,
  stopSequencesOf,
  unreadKeys,
} from './request-rules.js';

const request = (): NativeRequest => ({ model: 'm', messages: [], max_tokens: 1 });

describe('request rules the client formats share', () => {
  it('clamps a temperature above 1 and warns under the client field name', () => {
    const warnings: string[] = [];
    const r = request();
    applyTemperature(r, 1.5, 'options.temperature', warnings);
    expect(r.temperature).toBe(1);
    expect(warnings).toEqual(['options.temperature 1.5 was clamped to 1 (the provider accepts 0 to 1)']);
    const unset = request();
    applyTemperature(unset, null, 'temperature', warnings);
    expect(unset).not.toHaveProperty('temperature');
  });

  it('drops whitespace-only stop sequences with one warning', () => {
    const warnings: string[] = [];
    expect(stopSequencesOf(['\n', 'END', ' '], warnings)).toEqual(['END']);
    expect(stopSequencesOf('\n', warnings)).toBeUndefined();
    expect(stopSequencesOf('x', warnings)).toEqual(['x']);
    expect(warnings).toEqual([
      'stop sequences made only of whitespace are not supported and were dropped',
      'stop sequences made only of whitespace are not supported and were dropped',
    ]);
  });

  it('a function tool without parameters takes an empty object schema; strict only when true', () => {
    expect(nativeToolOf({ name: 'f', description: '', strict: false })).toEqual({
      name: 'f',
      input_schema: { type: 'object', properties: {} },
    });
    expect(nativeToolOf({ name: 'f', description: 'd', parameters: { type: 'object' }, strict: true })).toEqual({
      name: 'f',
      description: 'd',
      input_schema: { type: 'object' },
      strict: true,
    });
  });

  it('tool_choice: parallel_tool_calls false rides along and alone asks for auto', () => {
    expect(nativeToolChoiceOf('none', undefined, false)).toEqual({ type: 'none' });
    expect(nativeToolChoiceOf('required', undefined, false)).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(nativeToolChoiceOf({}, 'f', true)).toEqual({ type: 'tool', name: 'f' });
    expect(nativeToolChoiceOf(undefined, undefined, false)).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(nativeToolChoiceOf('auto', undefined, undefined)).toEqual({ type: 'auto' });
    expect(nativeToolChoiceOf(undefined, undefined, true)).toBeUndefined();
  });

  it('output format and effort arrive as intent', () => {
    expect(outputFormatOf({ type: 'json_object' })).toEqual({
      type: 'json_schema',
      schema: { type: 'object', additionalProperties: true },
    });
    const r = request();
    r.output_config = { format: outputFormatOf({ type: 'json_schema', schema: { type: 'object' } }) };
    applyEffortIntent(r, 'high');
    expect(r.thinking).toEqual({ type: 'adaptive' });
    expect(r.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object' } }, effort: 'high' });
    const none = request();
    applyEffortIntent(none, 'minimal');
    expect(none.thinking).toEqual({ type: 'disabled' });
    expect(none).not.toHaveProperty('output_config');
  });

  it('names the keys nothing reads, in body order, and the named ones first', () => {
    const body = { zeta: 1, model: 'm', skipped: null, alpha: 'a', metadata: {} };
    expect(unreadKeys(body, new Set(['model']), 'options.')).toEqual([
      'options.zeta',
      'options.alpha',
      'options.metadata',
    ]);
    expect(ignoredOf(body, new Set(['model']), ['metadata'])).toEqual(['metadata', 'zeta', 'alpha']);
  });
});
