// Client matrix, tool mode: the same clients as todays-models.test.ts (direct mode), answered through the fake CLI,
// which runs a JSON schema as the real CLI 2.1.330 does (test/fixtures/fake-cli-structured.mjs). Each client's own
// structured-output helper must parse the CLI's validated object, and the schema (on the CLI's stdin) and the effort
// (a flag) must reach the CLI (docs/tool-mode.md "Structured output", "Thinking"; docs/models.md).

import { ChatOpenAI } from '@langchain/openai';
import { generateText, Output } from 'ai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { City, flagship, sdkModels } from './structured-clients.js';
import { ignoredParamsHeader } from '../../src/proxy/http/ignored-params.js';
import type { FakeCliRecord } from '../fixtures/fake-cli.js';
import { cliReply, startClientBed, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed({ ollamaPort: 0, ollamaMode: 'tool' });
});
afterAll(async () => {
  await bed?.close();
});

// The fake CLI's object for a schema: the reply text for a string, 1 for a number, [] for an array.
const expected = { name: cliReply, population: 1, tags: [] };
const openai = () => new OpenAI({ baseURL: `${bed.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });

async function lastChat(): Promise<FakeCliRecord> {
  const last = (await bed.cli.chatRecords()).at(-1);
  if (!last) throw new Error('no CLI served a chat');
  return last;
}
const flagOf = (rec: FakeCliRecord, flag: string) => {
  const at = rec.argv.indexOf(flag);
  return at < 0 ? undefined : rec.argv[at + 1];
};
/** The schema the CLI was given (on its stdin, in its initialize request), parsed; undefined when none. */
async function cliSchema(): Promise<Record<string, unknown> | undefined> {
  const given = (await lastChat()).jsonSchema;
  return given === null ? undefined : (JSON.parse(given) as Record<string, unknown>);
}
const objectSchema = expect.objectContaining({ type: 'object', properties: expect.any(Object) });

describe("structured output in tool mode, through each client's helper", () => {
  it('openai chat.completions.parse with zod', async () => {
    const completion = await openai().chat.completions.parse({
      model: flagship,
      messages: [{ role: 'user', content: 'a city' }],
      response_format: zodResponseFormat(City, 'city'),
    });
    expect(completion.choices[0].message.parsed).toEqual(expected);
    expect(await cliSchema()).toEqual(objectSchema);
  });

  it('openai responses.parse with zod', async () => {
    const response = await openai().responses.parse({
      model: flagship,
      input: 'a city',
      text: { format: zodTextFormat(City, 'city') },
    });
    expect(response.output_parsed).toEqual(expected);
    expect(await cliSchema()).toEqual(objectSchema);
  });

  it.each(sdkModels(() => ({ openAi: `${bed.url}/compat/v1`, native: `${bed.url}/v1` })))(
    'AI SDK Output.object through %s',
    async (_name, model) => {
      const result = await generateText({
        model: model(),
        output: Output.object({ schema: City }),
        prompt: 'a city',
        maxRetries: 0,
      });
      expect(result.output).toEqual(expected);
      expect(await cliSchema()).toEqual(objectSchema);
    },
  );

  it('LangChain withStructuredOutput', async () => {
    const chat = new ChatOpenAI({
      model: flagship,
      apiKey: 'dummy',
      maxRetries: 0,
      configuration: { baseURL: `${bed.url}/compat/v1` },
    });
    expect(await chat.withStructuredOutput(City).invoke('a city')).toEqual(expected);
    expect(await cliSchema()).toEqual(objectSchema);
  });

  it('ollama with a format schema (the Ollama listener in tool mode)', async () => {
    const status = bed.proxy.proxy.ollama();
    if (status.state !== 'listening') throw new Error(status.state);
    const answer = await new Ollama({ host: status.url }).chat({
      model: flagship,
      messages: [{ role: 'user', content: 'a city' }],
      format: z.toJSONSchema(City),
    });
    expect(City.parse(JSON.parse(answer.message.content))).toEqual(expected);
    expect(await cliSchema()).toEqual(objectSchema);
  });
});

describe("today's flagship's refusals never reach it through the CLI", () => {
  const post = (body: Record<string, unknown>) =>
    fetch(`${bed.url}/compat/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer dummy' },
      body: JSON.stringify({ model: flagship, messages: [{ role: 'user', content: 'hi' }], ...body }),
    });

  it('an IDE-style request with temperature and top_p: answered, both named, neither given to the CLI', async () => {
    const res = await post({ temperature: 0.2, top_p: 0.95, max_tokens: 1000 });
    expect(res.status).toBe(200);
    expect(res.headers.get(ignoredParamsHeader)).toBe('temperature, top_p');
    expect((await lastChat()).argv.join(' ')).not.toMatch(/temperature|top_p/);
  });

  it('a reasoning effort reaches the CLI as its own --effort, at the level asked', async () => {
    expect((await post({ reasoning_effort: 'low', max_tokens: 8000 })).status).toBe(200);
    expect(flagOf(await lastChat(), '--effort')).toBe('low');
  });

  it('an effort level the model does not take becomes its nearest, named, before the CLI passes it on', async () => {
    const res = await post({ model: 'assistant-sonnet-4-6', reasoning_effort: 'xhigh', max_tokens: 8000 });
    expect(res.status).toBe(200);
    expect(res.headers.get(ignoredParamsHeader)).toBe('reasoning_effort');
    expect(flagOf(await lastChat(), '--effort')).toBe('high');
  });
});
