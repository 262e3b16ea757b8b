import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from './index.js';
import { sampleOfSchema } from './schema-sample.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => sim.reset());

const key = { 'x-api-key': 'sk-ant-api03-test', 'content-type': 'application/json' };
const ask = [{ role: 'user', content: 'hi' }];

async function send(body: Record<string, unknown>): Promise<{ status: number; message?: string; json: any }> {
  const res = await fetch(`${sim.url}/v1/messages`, { method: 'POST', headers: key, body: JSON.stringify(body) });
  const json = await res.json();
  return { status: res.status, message: json?.error?.message, json };
}

const recorded = JSON.parse(readFileSync(new URL('./__fixtures__/real-cli-requests.json', import.meta.url), 'utf8'))
  .requests as Array<{ argv: string[]; body: Record<string, unknown> }>;

describe("today's model rules (the strict default)", () => {
  it.each([
    [
      'a thinking budget on an adaptive-only model',
      { model: 'claude-opus-4-7', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 } },
      /thinking.type.enabled is not supported for this model/,
    ],
    [
      'temperature on Opus 4.7',
      { model: 'claude-opus-4-7', max_tokens: 100, temperature: 0.5 },
      /`temperature` is deprecated for this model/,
    ],
    ['top_k on Opus 5.5', { model: 'claude-opus-5-5', max_tokens: 100, top_k: 5 }, /`top_k` is deprecated/],
    [
      'temperature and top_p together on Sonnet 4.6',
      { model: 'claude-sonnet-4-6', max_tokens: 100, temperature: 0.5, top_p: 0.9 },
      /cannot both be specified/,
    ],
    [
      'an effort level the model lacks',
      { model: 'claude-sonnet-4-6', max_tokens: 100, output_config: { effort: 'xhigh' } },
      /output_config.effort/,
    ],
    [
      'an effort on a model without one',
      { model: 'claude-haiku-4-5-20251001', max_tokens: 100, output_config: { effort: 'low' } },
      /does not support the effort parameter/,
    ],
    ['max_tokens above the maximum', { model: 'claude-sonnet-4-6', max_tokens: 64_001 }, /64001 > 64000/],
    [
      'thinking disabled on the 5.x family',
      { model: 'claude-opus-5-5', max_tokens: 100, thinking: { type: 'disabled' } },
      /thinking.type.disabled is not supported/,
    ],
    [
      'forced tool use on the newest',
      {
        model: 'claude-opus-5-5',
        max_tokens: 100,
        tools: [{ name: 't', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
      },
      /forced tool use/,
    ],
    [
      'structured output on a model without it',
      {
        model: 'claude-3-5-haiku-20241022',
        max_tokens: 100,
        output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      },
      /structured outputs are not supported/,
    ],
    [
      'adaptive thinking on a budget-only model',
      { model: 'claude-haiku-4-5', max_tokens: 100, thinking: { type: 'adaptive' } },
      /thinking.type.adaptive is not supported/,
    ],
  ])('refuses %s with a 400 in its own words', async (_what, body, words) => {
    const answer = await send({ ...body, messages: ask });
    expect(answer.status).toBe(400);
    expect(answer.json.error.type).toBe('invalid_request_error');
    expect(answer.message).toMatch(words);
  });

  it('accepts what each model takes', async () => {
    for (const body of [
      {
        model: 'claude-opus-5-5',
        max_tokens: 128_000,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'max' },
      },
      { model: 'claude-sonnet-4-6', max_tokens: 100, temperature: 0.5 },
      { model: 'claude-sonnet-4-20250514', max_tokens: 100, temperature: 0.5, top_p: 0.9 },
      {
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        tools: [{ name: 't', input_schema: { type: 'object' } }],
        tool_choice: { type: 'any' },
      },
    ])
      expect((await send({ ...body, messages: ask })).status).toBe(200);
  });

  it('accepts every request the real CLI 2.1.330 was recorded sending', async () => {
    for (const { argv, body } of recorded) {
      const answer = await send({ ...body, stream: false, messages: ask });
      expect({ argv, status: answer.status, message: answer.message }).toEqual({
        argv,
        status: 200,
        message: undefined,
      });
    }
  });

  it('checks only the older rules when lax', async () => {
    sim.knobs.modelRules = 'lax';
    expect((await send({ model: 'claude-opus-4-7', max_tokens: 100, temperature: 0.5, messages: ask })).status).toBe(
      200,
    );
  });
});

describe('structured output and the model list', () => {
  it('answers output_config.format with JSON that matches the schema', async () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        kind: { enum: ['a', 'b'] },
      },
      required: ['name', 'tags', 'kind'],
      additionalProperties: false,
    };
    const answer = await send({
      model: 'claude-opus-5-5',
      max_tokens: 100,
      messages: ask,
      output_config: { format: { type: 'json_schema', schema } },
    });
    expect(JSON.parse(answer.json.content[0].text)).toEqual({ name: 'sample', tags: ['sample'], kind: 'a' });
  });

  it('samples $ref, unions and nullable types as the clients generate them', () => {
    expect(
      sampleOfSchema({
        type: 'object',
        properties: {
          p: { $ref: '#/$defs/P' },
          n: { type: ['integer', 'null'] },
          u: { anyOf: [{ type: 'null' }, { type: 'boolean' }] },
        },
        $defs: { P: { type: 'object', properties: { x: { type: 'number' } } } },
      }),
    ).toEqual({ p: { x: 1 }, n: 1, u: true });
  });

  it('lists capabilities, max_input_tokens and max_tokens for every model', async () => {
    const body = await (await fetch(`${sim.url}/v1/models`, { headers: key })).json();
    const opus = body.data.find((m: { id: string }) => m.id === 'claude-opus-5-5');
    expect(opus).toMatchObject({
      max_input_tokens: 1_000_000,
      max_tokens: 128_000,
      capabilities: {
        structured_outputs: { supported: true },
        thinking: { supported: true, types: { adaptive: { supported: true }, enabled: { supported: false } } },
        effort: { supported: true, xhigh: { supported: true }, max: { supported: true } },
      },
    });
    for (const m of body.data) expect(m.capabilities, m.id).toBeDefined();
  });
});
