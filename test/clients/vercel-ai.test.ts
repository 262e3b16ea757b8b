// Client matrix (docs/clients.md): the Vercel AI SDK (ai@6) with its openai-compatible provider and its anthropic
// provider, generateText and streamText, in tool mode and in direct mode, where a tool is called and its result
// fed back (stopWhen: two steps).

import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliReply, model, simReply, startClientBed, weatherTool, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed();
});
afterAll(async () => {
  await bed?.close();
});

const compatible = (base: string): LanguageModel =>
  createOpenAICompatible({ name: 'assistant-proxy', baseURL: `${bed.url}${base}`, apiKey: 'dummy' }).chatModel(model);
const anthropic = (base: string): LanguageModel =>
  createAnthropic({ baseURL: `${bed.url}${base}`, apiKey: 'dummy' })(model);

const providers: Array<{ name: string; tool: () => LanguageModel; direct: () => LanguageModel }> = [
  { name: '@ai-sdk/openai-compatible', tool: () => compatible('/compat/v1'), direct: () => compatible('/api/v1') },
  { name: '@ai-sdk/anthropic', tool: () => anthropic('/v1'), direct: () => anthropic('/api/v1') },
];

async function streamed(languageModel: LanguageModel): Promise<{ parts: string[]; finishReason: string }> {
  const result = streamText({ model: languageModel, prompt: 'say hi', maxRetries: 0 });
  const parts: string[] = [];
  for await (const part of result.textStream) parts.push(part);
  return { parts, finishReason: await result.finishReason };
}

const weather = tool({
  description: weatherTool.description,
  inputSchema: jsonSchema<{ location: string }>(weatherTool.parameters as never),
  execute: async ({ location }) => `sunny in ${location}`,
});

for (const provider of providers) {
  describe(`Vercel AI SDK, ${provider.name}`, () => {
    it('tool mode: generateText answers the CLI text', async () => {
      const result = await generateText({ model: provider.tool(), prompt: 'say hi', maxRetries: 0 });
      expect(result.text).toBe(cliReply);
      expect(result.finishReason).toBe('stop');
      expect(result.usage.outputTokens).toBe(3);
    });

    it('tool mode: streamText streams token by token', async () => {
      const { parts, finishReason } = await streamed(provider.tool());
      expect(parts).toEqual(['Hi ', 'from ', 'fake!']);
      expect(finishReason).toBe('stop');
    });

    it('direct mode: generateText and streamText answer the provider text', async () => {
      expect((await generateText({ model: provider.direct(), prompt: 'say hi', maxRetries: 0 })).text).toBe(simReply);
      const { parts } = await streamed(provider.direct());
      expect(parts.join('')).toBe(simReply);
      expect(parts.length).toBeGreaterThan(1);
    });

    it('direct mode: a tool is called and its result fed back, streamed and not', async () => {
      const done = await generateText({
        model: provider.direct(),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weather },
        stopWhen: stepCountIs(2),
        maxRetries: 0,
      });
      expect(done.steps[0].toolCalls).toMatchObject([{ toolName: 'get_weather', input: { location: 'Paris' } }]);
      expect(done.text).toBe('The tool said: sunny in Paris');
      const stream = streamText({
        model: provider.direct(),
        prompt: 'Weather in Paris?',
        tools: { get_weather: weather },
        stopWhen: stepCountIs(2),
        maxRetries: 0,
      });
      let text = '';
      for await (const part of stream.textStream) text += part;
      expect(text).toBe('The tool said: sunny in Paris');
      expect((await stream.steps)[0].toolCalls).toMatchObject([{ toolName: 'get_weather' }]);
    });
  });
}
