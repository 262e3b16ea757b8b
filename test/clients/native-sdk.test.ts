// Client matrix (docs/clients.md): the official native SDK (@anthropic-ai/sdk), streamed and not, in tool mode at
// the root (the SDK appends /v1) and /cc, and in direct mode at /api with a tool call round trip.

import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInputTokens, cliReply, model, simReply, startClientBed, weatherTool, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed();
});
afterAll(async () => {
  await bed?.close();
});

const client = (base: string) => new Anthropic({ baseURL: `${bed.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'say hi' }];

describe('native SDK, tool mode', () => {
  for (const base of ['', '/cc']) {
    it(`${base || '/'}: messages.create answers the CLI's text`, async () => {
      const message = await client(base).messages.create({ model, max_tokens: 100, messages });
      expect(message).toMatchObject({
        type: 'message',
        role: 'assistant',
        model,
        stop_reason: 'end_turn',
        content: [{ type: 'text', text: cliReply }],
      });
      expect(message.usage).toMatchObject({ input_tokens: cliInputTokens('say hi'), output_tokens: 3 });
    });

    it(`${base || '/'}: messages.stream streams token by token`, async () => {
      const texts: string[] = [];
      const stream = client(base).messages.stream({ model, max_tokens: 100, messages });
      stream.on('text', (t) => texts.push(t));
      const final = await stream.finalMessage();
      expect(texts).toEqual(['Hi ', 'from ', 'fake!']);
      expect(final.stop_reason).toBe('end_turn');
    });

    it(`${base || '/'}: messages.create with stream: true yields raw events ending in message_stop`, async () => {
      const events = await client(base).messages.create({ model, max_tokens: 100, messages, stream: true });
      const types: string[] = [];
      for await (const event of events) types.push(event.type);
      expect(types[0]).toBe('message_start');
      expect(types.at(-1)).toBe('message_stop');
      expect(types.filter((t) => t === 'content_block_delta')).toHaveLength(3);
    });
  }
});

describe('native SDK, direct mode (/api)', () => {
  const tools: Anthropic.Tool[] = [
    { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters },
  ];

  it('answers the provider text, streamed and not', async () => {
    const message = await client('/api').messages.create({ model, max_tokens: 100, messages });
    expect(message.content).toEqual([{ type: 'text', text: simReply }]);
    const texts: string[] = [];
    const stream = client('/api').messages.stream({ model, max_tokens: 100, messages });
    stream.on('text', (t) => texts.push(t));
    await stream.finalMessage();
    expect(texts.join('')).toBe(simReply);
    expect(texts.length).toBeGreaterThan(1);
  });

  it('round-trips a tool call, streamed', async () => {
    const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client('/api').messages.stream({ model, max_tokens: 200, messages: ask, tools }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(use).toMatchObject({ name: 'get_weather', input: { location: 'Paris' } });
    const second = await client('/api').messages.create({
      model,
      max_tokens: 200,
      tools,
      messages: [
        ...ask,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: 'sunny, 21 C' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'The tool said: sunny, 21 C' }]);
  });
});
