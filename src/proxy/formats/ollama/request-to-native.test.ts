import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import { modelOfOllamaName, ollamaChatToNative, ollamaGenerateToNative } from './request-to-native.js';
import { ollamaChatRequestSchema, ollamaGenerateRequestSchema } from './schemas.js';

const options = { defaultMaxTokens: 4096 };
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const chat = (body: unknown) => ollamaChatToNative(ollamaChatRequestSchema.parse(body), options);
const generate = (body: unknown) => ollamaGenerateToNative(ollamaGenerateRequestSchema.parse(body), options);

describe('Ollama chat -> native', () => {
  it('keeps the whole conversation: system prompts joined, images typed from their bytes, roles merged', () => {
    const out = chat({
      model: 'assistant-sonnet-4-20250514:latest',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Look', images: [png] },
        { role: 'user', content: 'and answer' },
        { role: 'assistant', content: 'Sure.' },
        { role: 'system', content: 'Use French.' },
        { role: 'user', content: 'Go' },
      ],
    });
    expect(out.request).toEqual({
      model: 'assistant-sonnet-4-20250514:latest',
      system: 'Be brief.\n\nUse French.',
      max_tokens: 4096,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'text', text: 'Look' },
            { type: 'text', text: 'and answer' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Sure.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      ],
    });
    // Ollama streams unless told not to.
    expect(out.stream).toBe(true);
    expect(out.loadOnly).toBe(false);
    expect(modelOfOllamaName('assistant-sonnet-4-20250514:latest')).toBe('assistant-sonnet-4-20250514');
    expect(modelOfOllamaName('sonnet')).toBe('sonnet');
  });

  it('pairs tool results with their calls by id, then by name, then in order', () => {
    const out = chat({
      model: 'm',
      stream: false,
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
        { type: 'function', function: { name: 'get_time' } },
      ],
      messages: [
        { role: 'user', content: 'Weather and time?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'toolu_1', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
            { function: { name: 'get_time', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', content: '14:00', tool_name: 'get_time' },
        { role: 'tool', content: 'sunny', tool_call_id: 'toolu_1' },
      ],
    });
    expect(out.stream).toBe(false);
    expect(out.request.tools).toEqual([
      { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(out.request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_1_1', name: 'get_time', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1_1', content: '14:00' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
        ],
      },
    ]);
  });

  it('reads options into their native fields and names everything it cannot honour', () => {
    const out = chat({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      options: {
        num_predict: 200,
        temperature: 1.5,
        top_p: 0.9,
        top_k: 40,
        stop: ['END', '\n'],
        seed: 7,
        num_ctx: 8192,
      },
      keep_alive: '5m',
      format: 'json',
    });
    expect(out.request).toMatchObject({
      max_tokens: 200,
      temperature: 1,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
    });
    expect(out.request.output_config).toEqual({
      format: { type: 'json_schema', schema: { type: 'object', additionalProperties: true } },
    });
    expect(out.maxTokensDefaulted).toBe(false);
    expect(out.ignored.sort()).toEqual(['keep_alive', 'options.num_ctx', 'options.seed']);
    expect(out.warnings.join(' ')).toMatch(/clamped to 1/);
    expect(out.warnings.join(' ')).toMatch(/whitespace/);
  });

  it('turns think into the intent of a reasoning effort, and a schema format into output_config.format', () => {
    const out = chat({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      think: 'high',
      format: { type: 'object', properties: { a: { type: 'string' } } },
      options: { temperature: 0.3 },
    });
    expect(out.request).toMatchObject({
      thinking: { type: 'adaptive' },
      output_config: {
        effort: 'high',
        format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } } } },
      },
      temperature: 0.3,
    });
    expect(out.maxTokensDefaulted).toBe(true);
    expect(
      chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], think: true }).request.output_config,
    ).toEqual({
      effort: 'medium',
    });
    expect(chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], think: false }).request).not.toHaveProperty(
      'thinking',
    );
  });

  it('sees a chat without messages as a model load, and refuses what it cannot express', () => {
    expect(chat({ model: 'm', messages: [] }).loadOnly).toBe(true);
    expect(chat({ model: 'm' }).loadOnly).toBe(true);
    expect(() =>
      chat({ model: 'm', messages: [{ role: 'user', content: 'x', images: ['bm90IGFuIGltYWdl'] }] }),
    ).toThrow(ProxyError);
    expect(() =>
      chat({
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', content: 'orphan' },
        ],
      }),
    ).toThrow(/no tool call before it/);
    expect(() =>
      chat({
        model: 'm',
        messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '[1]' } }] }],
      }),
    ).toThrow(/arguments/);
  });
});

describe('Ollama generate -> native', () => {
  it('makes the prompt one user message with its images and the system prompt, and names the local-runtime fields', () => {
    const out = generate({
      model: 'm',
      prompt: 'Describe',
      system: 'Be brief.',
      images: [png],
      stream: false,
      raw: true,
      context: [1, 2],
      suffix: 'end',
    });
    expect(out.request).toEqual({
      model: 'm',
      system: 'Be brief.',
      max_tokens: 4096,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            { type: 'text', text: 'Describe' },
          ],
        },
      ],
    });
    expect(out.stream).toBe(false);
    expect(out.ignored.sort()).toEqual(['context', 'raw', 'suffix']);
    expect(generate({ model: 'm' }).loadOnly).toBe(true);
  });
});
