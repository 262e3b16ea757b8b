// What the two client matrices of today's models share (todays-models.test.ts in direct mode,
// todays-models-tool.test.ts in tool mode): the schema each client's helper asks for, and the AI SDK's three
// providers pointed at a mode's base URLs.

import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { z } from 'zod';

export const flagship = 'assistant-opus-5-5';
export const City = z.object({ name: z.string(), population: z.number(), tags: z.array(z.string()) });

/**
 * The AI SDK's providers for structured output, each a factory read when its test runs (the bed's URL is known only
 * then): `openAi` is the OpenAI-format base URL (`…/v1`), `native` the one the anthropic provider appends
 * `/messages` to.
 */
export function sdkModels(bases: () => { openAi: string; native: string }): Array<[string, () => LanguageModel]> {
  return [
    [
      '@ai-sdk/openai-compatible',
      () =>
        createOpenAICompatible({
          name: 'assistant-proxy',
          baseURL: bases().openAi,
          apiKey: 'dummy',
          supportsStructuredOutputs: true,
        }).chatModel(flagship),
    ],
    ['@ai-sdk/openai (Responses)', () => createOpenAI({ baseURL: bases().openAi, apiKey: 'dummy' })(flagship)],
    // The anthropic provider decides features by the id: the provider's own id (docs/models.md "Model ids for SDKs").
    ['@ai-sdk/anthropic', () => createAnthropic({ baseURL: bases().native, apiKey: 'dummy' })('claude-opus-5-5')],
  ];
}
