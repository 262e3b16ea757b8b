// Client matrix (docs/clients.md): the official OpenAI JS SDK, streamed and not, in tool mode at /compat/v1 and at
// /v1 (where OpenAI-format clients land out of habit), and in direct mode at /api/v1 with a tool call round trip.

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInputTokens, cliReply, model, simReply, startClientBed, weatherTool, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed();
});
afterAll(async () => {
  await bed?.close();
});

const client = (base: string) => new OpenAI({ baseURL: `${bed.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'say hi' }];

async function streamedText(
  stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
): Promise<{ parts: string[]; finish: string[]; ids: Set<string> }> {
  const parts: string[] = [];
  const finish: string[] = [];
  const ids = new Set<string>();
  for await (const chunk of stream) {
    ids.add(chunk.id);
    const choice = chunk.choices[0];
    if (choice?.delta?.content) parts.push(choice.delta.content);
    if (choice?.finish_reason) finish.push(choice.finish_reason);
  }
  return { parts, finish, ids };
}

describe('OpenAI SDK, tool mode', () => {
  for (const base of ['/compat/v1', '/v1']) {
    // /v1 speaks the native chat format, where max_tokens is required (docs/interface.md "Native chat request").
    const limit = base === '/v1' ? { max_tokens: 100 } : {};

    it(`${base}: chat.completions.create answers the CLI's text`, async () => {
      const completion = await client(base).chat.completions.create({ model, messages, ...limit });
      expect(completion.choices[0].message.content).toBe(cliReply);
      expect(completion.choices[0].finish_reason).toBe('stop');
      expect(completion.model).toBe(model);
      expect(completion.usage).toMatchObject({
        prompt_tokens: cliInputTokens('say hi'),
        completion_tokens: 3,
        total_tokens: cliInputTokens('say hi') + 3,
      });
    });

    it(`${base}: streams the text token by token, one id, one finish_reason`, async () => {
      const { parts, finish, ids } = await streamedText(
        await client(base).chat.completions.create({ model, messages, stream: true, ...limit }),
      );
      expect(parts).toEqual(['Hi ', 'from ', 'fake!']);
      expect(finish).toEqual(['stop']);
      expect(ids.size).toBe(1);
    });

    it(`${base}: the stream helper (chat.completions.stream) assembles the final message`, async () => {
      const runner = client(base).chat.completions.stream({ model, messages, ...limit });
      const final = await runner.finalChatCompletion();
      expect(final.choices[0].message.content).toBe(cliReply);
    });
  }

  // The client's own tools in tool mode: test/tool-client-tools.test.ts (docs/tool-mode.md "The client's own tools").
  it('tools in tool mode are taken (the model decides whether to call them); a provider-run tool is a 400 pointing to direct mode', async () => {
    const done = await client('/compat/v1').chat.completions.create({
      model,
      messages,
      tools: [{ type: 'function', function: weatherTool }],
    });
    expect(done.choices[0].finish_reason).toBe('stop');
    const err = await client('/compat/v1')
      .chat.completions.create({
        model,
        messages,
        tools: [{ type: 'web_search' } as unknown as OpenAI.Chat.ChatCompletionTool],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('/api/v1/chat/completions');
  });
});

describe('OpenAI SDK, direct mode (/api/v1)', () => {
  const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: 'function', function: weatherTool }];

  it('answers the provider text, streamed and not', async () => {
    const done = await client('/api/v1').chat.completions.create({ model, messages });
    expect(done.choices[0].message.content).toBe(simReply);
    const { parts, finish } = await streamedText(
      await client('/api/v1').chat.completions.create({ model, messages, stream: true }),
    );
    expect(parts.join('')).toBe(simReply);
    expect(parts.length).toBeGreaterThan(1);
    expect(finish).toEqual(['stop']);
  });

  it('round-trips a tool call, streamed', async () => {
    const ask: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const runner = client('/api/v1').chat.completions.stream({ model, messages: ask, tools });
    const first = await runner.finalChatCompletion();
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({
      type: 'function',
      function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
    });
    const second = await client('/api/v1').chat.completions.create({
      model,
      tools,
      messages: [...ask, first.choices[0].message, { role: 'tool', tool_call_id: call!.id, content: 'sunny, 21 C' }],
    });
    expect(second.choices[0].message.content).toBe('The tool said: sunny, 21 C');
  });
});
