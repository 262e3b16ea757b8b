// Client matrix, direct mode, against a provider that keeps today's model rules (the simulator's strict default,
// test/simulator/model-rules.ts; docs/models.md): structured output through each client's own helper, and the
// settings an SDK or an IDE sends that today's flagship refuses, fitted to the model by the proxy.

import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, Output } from 'ai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { City, flagship, sdkModels } from './structured-clients.js';
import { ignoredParamsHeader } from '../../src/proxy/http/ignored-params.js';
import { startClientBed, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed({ ollamaPort: 0, ollamaMode: 'direct' });
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => bed.sim.reset());

const expected = { name: 'sample', population: 1, tags: ['sample'] };
const openai = () => new OpenAI({ baseURL: `${bed.url}/api/v1`, apiKey: 'dummy', maxRetries: 0 });

/** The settings of the last request the provider received. */
function upstream(): Record<string, unknown> {
  const last = bed.sim.requests('/v1/messages').at(-1);
  if (!last) throw new Error('no request reached the provider');
  const { messages: _m, system: _s, ...rest } = last.json as Record<string, unknown>;
  return rest;
}

const asksFormat = { output_config: { format: { type: 'json_schema', schema: expect.any(Object) } } };

describe("structured output on today's flagship, through each client's helper", () => {
  it('openai chat.completions.parse with zod', async () => {
    const completion = await openai().chat.completions.parse({
      model: flagship,
      messages: [{ role: 'user', content: 'a city' }],
      response_format: zodResponseFormat(City, 'city'),
    });
    expect(completion.choices[0].message.parsed).toEqual(expected);
    expect(upstream()).toMatchObject(asksFormat);
  });

  it('openai responses.parse with zod', async () => {
    const response = await openai().responses.parse({
      model: flagship,
      input: 'a city',
      text: { format: zodTextFormat(City, 'city') },
    });
    expect(response.output_parsed).toEqual(expected);
    expect(upstream()).toMatchObject(asksFormat);
  });

  it.each(sdkModels(() => ({ openAi: `${bed.url}/api/v1`, native: `${bed.url}/api/v1` })))(
    'AI SDK Output.object through %s',
    async (_name, model) => {
      const result = await generateText({
        model: model(),
        output: Output.object({ schema: City }),
        prompt: 'a city',
        maxRetries: 0,
      });
      expect(result.output).toEqual(expected);
      expect(upstream()).toMatchObject(asksFormat);
    },
  );

  it('LangChain withStructuredOutput', async () => {
    const chat = new ChatOpenAI({
      model: flagship,
      apiKey: 'dummy',
      maxRetries: 0,
      configuration: { baseURL: `${bed.url}/api/v1` },
    });
    expect(await chat.withStructuredOutput(City).invoke('a city')).toEqual(expected);
    expect(upstream()).toMatchObject(asksFormat);
  });

  it('ollama with a format schema (the Ollama listener in direct mode)', async () => {
    const status = bed.proxy.proxy.ollama();
    if (status.state !== 'listening') throw new Error(status.state);
    const answer = await new Ollama({ host: status.url }).chat({
      model: flagship,
      messages: [{ role: 'user', content: 'a city' }],
      format: z.toJSONSchema(City),
      options: { temperature: 0.3 },
    });
    expect(City.parse(JSON.parse(answer.message.content))).toEqual(expected);
    expect(upstream()).toMatchObject(asksFormat);
    expect(upstream()).not.toHaveProperty('temperature');
  });
});

describe('settings the flagship refuses, fitted before they go out', () => {
  const post = (body: Record<string, unknown>) =>
    fetch(`${bed.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer dummy' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
    });

  it('an IDE-style request with temperature and top_p: both dropped on the flagship, named', async () => {
    const res = await post({ model: flagship, temperature: 0.2, top_p: 0.95, max_tokens: 1000 });
    expect(res.status).toBe(200);
    expect(res.headers.get(ignoredParamsHeader)).toBe('temperature, top_p');
    expect(upstream()).not.toHaveProperty('temperature');
    expect(upstream()).not.toHaveProperty('top_p');
    // Where one of them is taken, temperature is kept.
    const sonnet = await post({ model: 'assistant-sonnet-4-6', temperature: 0.2, top_p: 0.95 });
    expect(sonnet.status).toBe(200);
    expect(sonnet.headers.get(ignoredParamsHeader)).toBe('top_p');
    expect(upstream()).toMatchObject({ temperature: 0.2, max_tokens: 4096 });
  });

  it('a reasoning effort: adaptive thinking at the nearest level, or a budget on a budget-only model', async () => {
    expect((await post({ model: flagship, reasoning_effort: 'low' })).status).toBe(200);
    expect(upstream()).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'low' },
      max_tokens: 32_000,
    });
    const sonnet = await post({ model: 'assistant-sonnet-4-6', reasoning_effort: 'xhigh' });
    expect(sonnet.status).toBe(200);
    expect(sonnet.headers.get(ignoredParamsHeader)).toBe('reasoning_effort');
    expect(upstream()).toMatchObject({ output_config: { effort: 'high' } });
    expect((await post({ model: 'assistant-haiku-4-5', reasoning_effort: 'medium', max_tokens: 8000 })).status).toBe(
      200,
    );
    expect(upstream()).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4096 }, max_tokens: 8000 });
    expect(upstream()).not.toHaveProperty('output_config');
  });

  it("the Responses API's reasoning.effort minimal on a model that always thinks: its lowest effort, named", async () => {
    const res = await fetch(`${bed.url}/api/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer dummy' },
      body: JSON.stringify({ model: flagship, input: 'hi', reasoning: { effort: 'minimal' }, temperature: 0.7 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get(ignoredParamsHeader)).toBe('reasoning.effort, temperature');
    expect(upstream()).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
  });

  it('max_tokens above the model maximum is lowered, named', async () => {
    const res = await post({ model: 'assistant-sonnet-4-6', max_completion_tokens: 100_000 });
    expect(res.status).toBe(200);
    expect(res.headers.get(ignoredParamsHeader)).toBe('max_completion_tokens');
    expect(upstream()).toMatchObject({ max_tokens: 64_000 });
  });

  it('what no change can fix is a 400 in the compatible shape, before any provider call', async () => {
    const res = await post({
      model: flagship,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; param: string; code: string } };
    expect(body.error).toMatchObject({ param: 'tool_choice', code: 'invalid_request_error' });
    expect(body.error.message).toMatch(/forces tool use, which assistant-opus-5-5 refuses.*docs\/models.md/);
    expect(bed.sim.requests('/v1/messages')).toHaveLength(0);
  });

  it("the native route passes the client's request as it is, and explains the provider's 400", async () => {
    // The AI SDK's anthropic provider does not know the neutral id: it forces a tool for JSON, which the model refuses.
    const model = createAnthropic({ baseURL: `${bed.url}/api/v1`, apiKey: 'dummy' })(flagship);
    const failed = generateText({ model, output: Output.object({ schema: City }), prompt: 'a city', maxRetries: 0 });
    await expect(failed).rejects.toThrow(
      /The model refused a setting it does not take \(docs\/models.md\).*forced tool use/,
    );
    expect(upstream()).toMatchObject({ tool_choice: { type: 'any' }, max_tokens: 4096 });
  });
});
