import { describe, expect, it } from 'vitest';
import { explainNativeRefusalBody } from './map-native-error.js';
import { fromErrorAnswer } from '../upstream/upstream-error.js';
import { explainModelRule, modelRuleExplanation } from './model-rule-refusal.js';

describe('the provider 400 for a model rule, explained', () => {
  it.each([
    [
      'thinking.type.enabled is not supported for this model. Use thinking.type.adaptive and output_config.effort',
      /only adaptive thinking/,
    ],
    ['`temperature` is deprecated for this model.', /no sampling settings/],
    [
      '`temperature` and `top_p` cannot both be specified for this model. Please use only one.',
      /temperature or top_p, not both/,
    ],
    ['thinking.type.disabled is not supported for this model (claude-opus-5-5).', /always thinks/],
    ["output_config.effort: Input should be 'low', 'medium', 'high', 'max' for claude-sonnet-4-6", /effort level/],
    [
      'max_tokens: 200000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-6',
      /maximum/,
    ],
    ["tool_choice.type: forced tool use ('any') is not supported for this model (claude-opus-5-5).", /forced tool use/],
  ])('%s', (said, explanation) => {
    expect(modelRuleExplanation(said)).toMatch(explanation);
    expect(explainModelRule(said)).toMatch(
      /^The model refused a setting it does not take \(docs\/models.md\)\. .* The provider said: /,
    );
  });

  it('leaves any other message alone', () => {
    expect(explainModelRule('messages: field required')).toBeUndefined();
    expect(explainModelRule('Overloaded')).toBeUndefined();
  });

  it("explains the translated routes' error and the forwarded body alike, keeping the shape", () => {
    const body = {
      type: 'error',
      error: { type: 'invalid_request_error', message: '`top_p` is deprecated for this model.' },
    };
    const err = fromErrorAnswer(400, {}, JSON.stringify(body));
    expect(err).toMatchObject({ kind: 'invalid_request', status: 400 });
    expect(err.message).toMatch(
      /no sampling settings.*The provider said: The provider answered 400 invalid_request_error: `top_p` is deprecated/,
    );
    const forwarded = JSON.parse(explainNativeRefusalBody(Buffer.from(JSON.stringify(body)))!.toString('utf8'));
    expect(forwarded).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/^The model refused a setting/) },
    });
    expect(
      explainNativeRefusalBody(Buffer.from(JSON.stringify({ type: 'error', error: { type: 'x', message: 'other' } }))),
    ).toBeUndefined();
  });
});
