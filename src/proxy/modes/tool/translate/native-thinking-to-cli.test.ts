import { describe, expect, it } from 'vitest';
import type { NativeRequest } from '../../../formats/native.js';
import { createProfile } from '../../../profile.js';
import { nativeRequestToCliInput } from './native-request-to-cli-input.js';
import { cliEffort, schemaLine, thinkingBudget, thinkingFlags } from './native-thinking-to-cli.js';

const profile = createProfile();
const budgets = profile.api.thinkingBudgets;
type Fields = Pick<NativeRequest, 'thinking' | 'max_tokens' | 'output_config'>;
const req = (over: Partial<Fields>): Fields => ({ max_tokens: 8000, ...over });
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('thinkingBudget', () => {
  it('gives adaptive thinking max_tokens - 1 (what the CLI gives a budget-only model itself), off when too small', () => {
    expect(thinkingBudget(req({ thinking: { type: 'adaptive' } }), 1024)).toBe(7999);
    expect(thinkingBudget(req({ max_tokens: 1000, thinking: { type: 'adaptive' } }), 1024)).toBe(0);
    expect(thinkingBudget(req({ thinking: { type: 'disabled' } }), 1024)).toBe(0);
    expect(thinkingBudget(req({ output_config: { effort: 'high' } }), 1024)).toBe(0);
  });
});

describe('cliEffort', () => {
  it("passes output_config.effort as asked, whatever the thinking: a client's low stays low", () => {
    expect(cliEffort(req({ output_config: { effort: 'low' } }), budgets)).toBe('low');
    expect(cliEffort(req({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }), budgets)).toBe('max');
    expect(
      cliEffort(
        req({ thinking: { type: 'enabled', budget_tokens: 30000 }, output_config: { effort: 'low' } }),
        budgets,
      ),
    ).toBe('low');
  });

  it('turns a budget into the highest level whose profile budget it reaches', () => {
    const of = (budget_tokens: number) => cliEffort(req({ thinking: { type: 'enabled', budget_tokens } }), budgets);
    expect([of(500), of(1024), of(4095), of(4096), of(16384), of(40000)]).toEqual([
      'low',
      'low',
      'low',
      'medium',
      'high',
      'xhigh',
    ]);
  });

  it('gives none for adaptive thinking without an effort (the CLI default) or no thinking', () => {
    expect(cliEffort(req({ thinking: { type: 'adaptive' } }), budgets)).toBeUndefined();
    expect(cliEffort(req({}), budgets)).toBeUndefined();
    expect(cliEffort(req({ thinking: { type: 'disabled' } }), budgets)).toBeUndefined();
  });
});

describe('thinkingFlags and schemaLine', () => {
  it('gives the effort as a flag and the schema as the first stdin line, an initialize control request', () => {
    const asked = req({ output_config: { effort: 'high', format: { type: 'json_schema', schema } } });
    expect(thinkingFlags(asked, profile)).toEqual(['--effort', 'high']);
    expect(JSON.parse(schemaLine(asked, profile)!)).toEqual({
      type: 'control_request',
      request_id: 'schema',
      request: { subtype: 'initialize', jsonSchema: schema },
    });
    expect(schemaLine(asked, profile)!.endsWith('\n')).toBe(true);
    expect(thinkingFlags(req({}), profile)).toEqual([]);
    expect(schemaLine(req({}), profile)).toBeUndefined();
  });

  it('puts the effort after the model and the schema in initLine, never in the arguments: both in the spawn key', () => {
    const input = nativeRequestToCliInput(
      {
        model: 'm',
        max_tokens: 4000,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'low', format: { type: 'json_schema', schema } },
        messages: [{ role: 'user', content: 'x' }],
      },
      { profile },
    );
    const at = input.args.indexOf('--model');
    expect(input.args.slice(at, at + 4)).toEqual(['--model', 'm', '--effort', 'low']);
    expect(input.args.join(' ')).not.toContain('city');
    expect(input.initLine).toContain(JSON.stringify(schema));
    expect(input.env.MAX_THINKING_TOKENS).toBe('3999');
  });
});
