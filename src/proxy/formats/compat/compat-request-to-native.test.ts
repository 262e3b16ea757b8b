import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import { compatChatRequestSchema, type CompatChatRequest } from './schema.js';
import { compatRequestToNative } from './compat-request-to-native.js';
import { defaultProfile } from '../../profile.js';

const options = { defaultMaxTokens: 4096, documents: defaultProfile.api.documents };
const body = (extra: Record<string, unknown>): CompatChatRequest =>
  compatChatRequestSchema.parse({
    model: 'assistant-sonnet-4-20250514',
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });

describe('compatRequestToNative', () => {
  it('translates a plain request (docs/interface.md "Compatible chat request") with the default max_tokens', () => {
    expect(compatRequestToNative(body({}), options)).toEqual({
      request: {
        model: 'assistant-sonnet-4-20250514',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        max_tokens: 4096,
      },
      warnings: [],
      ignored: [],
    });
  });

  it('passes the model id as sent (the route resolves it once)', () => {
    expect(compatRequestToNative(body({}), options).request.model).toBe('assistant-sonnet-4-20250514');
  });

  describe('reasoning_effort: the intent, fitted to the model by the mode (docs/models.md)', () => {
    it('becomes adaptive thinking with that effort, sampling settings left for the fit step', () => {
      const result = compatRequestToNative(body({ reasoning_effort: 'xhigh', temperature: 0.2 }), options);
      expect(result.request).toMatchObject({
        thinking: { type: 'adaptive' },
        output_config: { effort: 'xhigh' },
        temperature: 0.2,
      });
      expect(result.ignored).toEqual([]);
    });

    it('asks for no thinking at none or minimal', () => {
      for (const effort of ['none', 'minimal'] as const) {
        const result = compatRequestToNative(body({ reasoning_effort: effort }), options);
        expect(result.request.thinking).toEqual({ type: 'disabled' });
        expect(result.request).not.toHaveProperty('output_config');
      }
    });
  });

  it('folds system and developer into system, merges same-role turns, converts tools and results', () => {
    const result = compatRequestToNative(
      body({
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Also this:' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '18C' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '24C' }] },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'weather',
              description: 'Current weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
          { type: 'function', function: { name: 'now' } },
        ],
        tool_choice: 'required',
        parallel_tool_calls: false,
        max_tokens: 100,
        max_completion_tokens: 200,
        temperature: 0.5,
        top_p: 0.9,
        stop: 'END',
        stream: true,
        stream_options: { include_usage: true },
      }),
      options,
    );
    expect(result).toEqual({
      request: {
        model: 'assistant-sonnet-4-20250514',
        system: 'You are terse.\n\nUse metric units.',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather in Paris and Rome?' },
              { type: 'text', text: 'Also this:' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
              { type: 'tool_result', tool_use_id: 'call_2', content: '24C' },
            ],
          },
        ],
        max_tokens: 200,
        temperature: 0.5,
        top_p: 0.9,
        stop_sequences: ['END'],
        stream: true,
        tools: [
          {
            name: 'weather',
            description: 'Current weather',
            input_schema: { type: 'object', properties: { city: { type: 'string' } } },
          },
          { name: 'now', input_schema: { type: 'object', properties: {} } },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
      },
      warnings: [],
      ignored: [],
    });
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [
      { type: 'function', function: { name: 'now' } },
      { type: 'tool', name: 'now' },
    ],
  ])('tool_choice %j -> %j', (choice, expected) => {
    const tools = [{ type: 'function', function: { name: 'now' } }];
    expect(compatRequestToNative(body({ tools, tool_choice: choice }), options).request.tool_choice).toEqual(expected);
  });

  it('clamps temperature, ignores the rest with warnings (docs/interface.md "Parameter translation")', () => {
    const result = compatRequestToNative(
      body({
        temperature: 1.7,
        presence_penalty: 0.5,
        frequency_penalty: -1,
        user: 'u1',
        seed: 3,
        logprobs: true,
        stop: ['\n', 'STOP'],
        tool_choice: 'auto',
        reasoning_effort: 'low',
      }),
      options,
    );
    expect(result.request).toEqual({
      model: 'assistant-sonnet-4-20250514',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      max_tokens: 4096,
      temperature: 1,
      stop_sequences: ['STOP'],
      thinking: { type: 'adaptive' },
      output_config: { effort: 'low' },
    });
    expect(result.warnings).toEqual([
      'temperature 1.7 was clamped to 1 (the provider accepts 0 to 1)',
      'stop sequences made only of whitespace are not supported and were dropped',
      'presence_penalty is not supported by the provider and was ignored',
      'frequency_penalty is not supported by the provider and was ignored',
      'logprobs are not available from the provider and were not returned',
    ]);
    expect(result.ignored).toEqual([
      'tool_choice',
      'presence_penalty',
      'frequency_penalty',
      'logprobs',
      'user',
      'seed',
    ]);
  });

  it('turns response_format into output_config.format: a schema as given, json_object as any object', () => {
    const json = compatRequestToNative(
      body({
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'hi' },
        ],
        response_format: { type: 'json_object' },
        reasoning_effort: 'low',
      }),
      options,
    );
    expect(json.request.system).toBe('S');
    expect(json.request.output_config).toEqual({
      effort: 'low',
      format: { type: 'json_schema', schema: { type: 'object', additionalProperties: true } },
    });
    expect(json.warnings).toEqual([]);
    const schema = compatRequestToNative(
      body({
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'point',
            strict: true,
            schema: { type: 'object', properties: { x: { type: 'number' } } },
          },
        },
      }),
      options,
    );
    expect(schema.request.output_config).toEqual({
      format: { type: 'json_schema', schema: { type: 'object', properties: { x: { type: 'number' } } } },
    });
    expect(compatRequestToNative(body({ response_format: { type: 'text' } }), options).request).not.toHaveProperty(
      'output_config',
    );
  });

  it('keeps strict on strict function tools', () => {
    const fn = { name: 'f', parameters: { type: 'object' }, strict: true };
    const result = compatRequestToNative(body({ tools: [{ type: 'function', function: fn }] }), options);
    expect(result.request.tools).toEqual([{ name: 'f', input_schema: { type: 'object' }, strict: true }]);
  });

  it('accepts empty tool-call arguments and drops empty turns with a warning', () => {
    const result = compatRequestToNative(
      body({
        messages: [
          { role: 'user', content: 'time?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'now', arguments: '' } }],
          },
          { role: 'tool', tool_call_id: 'c', content: '12:00' },
          { role: 'assistant', content: '' },
        ],
      }),
      options,
    );
    expect(result.request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'time?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'now', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: '12:00' }] },
    ]);
    expect(result.warnings).toEqual(['messages.3 (assistant) has no content and was left out']);
  });

  it.each([
    [
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{bad' } }],
        },
      ],
      'messages.0.tool_calls.0.function.arguments',
      'must be valid JSON',
    ],
    [
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }],
        },
      ],
      'messages.0.tool_calls.0.function.arguments',
      'must be a JSON object',
    ],
    [
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }],
      'messages.0.content.0.image_url.url',
      'must be a data: URL or an http(s) URL',
    ],
    [
      [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,abc' } }] }],
      'messages.0.content.0.image_url.url',
      'must be a base64 data URL (data:<type>;base64,...)',
    ],
    [
      [{ role: 'system', content: 'only a system prompt' }],
      'messages',
      'must contain at least one user or assistant message',
    ],
  ])('400 on %j', (messages, field, issue) => {
    let caught: unknown;
    try {
      compatRequestToNative(body({ messages }), options);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProxyError);
    expect(caught).toMatchObject({ status: 400, field, issue });
  });
});
