// Client matrix (docs/clients.md): LangChain JS, ChatOpenAI (@langchain/openai) and ChatAnthropic
// (@langchain/anthropic), invoke and stream, in tool mode and in direct mode, where bindTools gets a tool call.

import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliReply, model, simReply, startClientBed, weatherTool, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed();
});
afterAll(async () => {
  await bed?.close();
});

const openai = (base: string) =>
  new ChatOpenAI({ model, apiKey: 'dummy', maxRetries: 0, configuration: { baseURL: `${bed.url}${base}` } });
const anthropic = (base: string) =>
  new ChatAnthropic({ model, apiKey: 'dummy', maxRetries: 0, anthropicApiUrl: `${bed.url}${base}` });

const clients: Array<{ name: string; tool: () => BaseChatModel; direct: () => ChatOpenAI | ChatAnthropic }> = [
  { name: 'ChatOpenAI', tool: () => openai('/compat/v1'), direct: () => openai('/api/v1') },
  { name: 'ChatAnthropic', tool: () => anthropic(''), direct: () => anthropic('/api') },
];

async function streamedText(chat: BaseChatModel): Promise<string[]> {
  const parts: string[] = [];
  for await (const chunk of await chat.stream('say hi'))
    if (typeof chunk.content === 'string' && chunk.content) parts.push(chunk.content);
  return parts;
}

for (const c of clients) {
  describe(`LangChain ${c.name}`, () => {
    it('tool mode: invoke answers the CLI text', async () => {
      const answer = await c.tool().invoke('say hi');
      expect(answer.content).toBe(cliReply);
      expect(answer.usage_metadata).toMatchObject({ output_tokens: 3 });
    });

    it('tool mode: stream streams token by token', async () => {
      expect(await streamedText(c.tool())).toEqual(['Hi ', 'from ', 'fake!']);
    });

    it('direct mode: invoke and stream answer the provider text', async () => {
      expect((await c.direct().invoke('say hi')).content).toBe(simReply);
      const parts = await streamedText(c.direct());
      expect(parts.join('')).toBe(simReply);
      expect(parts.length).toBeGreaterThan(1);
    });

    it('direct mode: bindTools gets a tool call, and the tool result is answered', async () => {
      const chat = c.direct().bindTools([{ type: 'function', function: weatherTool }]);
      const ask = new HumanMessage('Weather in Paris?');
      const first = (await chat.invoke([ask])) as AIMessage;
      expect(first.tool_calls).toMatchObject([{ name: 'get_weather', args: { location: 'Paris' } }]);
      const second = await chat.invoke([
        ask,
        first,
        new ToolMessage({ tool_call_id: first.tool_calls![0].id!, content: 'sunny' }),
      ]);
      expect(second.content).toBe('The tool said: sunny');
      let streamedCall: AIMessageChunk | undefined;
      for await (const chunk of await chat.stream([ask]))
        streamedCall = streamedCall ? streamedCall.concat(chunk) : chunk;
      expect(streamedCall?.tool_calls).toMatchObject([{ name: 'get_weather', args: { location: 'Paris' } }]);
    });
  });
}
