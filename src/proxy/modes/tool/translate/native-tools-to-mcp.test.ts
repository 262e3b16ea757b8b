import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliLine } from './cli-events.js';
import type { NativeRequest, NativeStreamEvent } from '../../../formats/native.js';
import { createProfile } from '../../../profile.js';
import { createCliTranslateState, stepCliLine } from './cli-events-to-native-events.js';
import { mcpConfigJson, planClientTools, providerRunToolIndex, toolResultToMcp } from './native-tools-to-mcp.js';

const t = createProfile().cli.clientTools;
const schema = { type: 'object', properties: { city: { type: 'string' } } };
const req = (extra: Partial<NativeRequest>): NativeRequest => ({
  model: 'm',
  max_tokens: 10,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

describe('planClientTools', () => {
  it('offers each tool as an MCP tool of the same name, description and schema, and maps the CLI name back', () => {
    const plan = planClientTools(
      req({
        tools: [
          { name: 'read_file', description: 'Read', input_schema: schema },
          { name: 'ls', input_schema: {} },
        ],
      }),
      t,
    );
    expect(plan).toEqual({
      tools: [
        { name: 'read_file', description: 'Read', inputSchema: schema },
        { name: 'ls', inputSchema: { type: 'object' } },
      ],
      clientToolNames: new Map([
        ['mcp__c__read_file', 'read_file'],
        ['mcp__c__ls', 'ls'],
      ]),
    });
  });

  it('offers nothing without tools or with tool_choice none', () => {
    expect(planClientTools(req({}), t)).toBeUndefined();
    expect(
      planClientTools(req({ tools: [{ name: 'a', input_schema: schema }], tool_choice: { type: 'none' } }), t),
    ).toBeUndefined();
  });

  it('turns any and a named tool into an instruction; a named tool is the only one offered', () => {
    const tools = [
      { name: 'a', input_schema: schema },
      { name: 'b', input_schema: schema },
    ];
    expect(planClientTools(req({ tools, tool_choice: { type: 'any' } }), t)?.instruction).toBe(
      'Answer this turn by calling one or more of the available tools, not with text alone.',
    );
    const named = planClientTools(req({ tools, tool_choice: { type: 'tool', name: 'b' } }), t);
    expect(named?.tools.map((x) => x.name)).toEqual(['b']);
    expect(named?.instruction).toBe('Answer this turn by calling the tool mcp__c__b.');
    expect(() => planClientTools(req({ tools, tool_choice: { type: 'tool', name: 'zz' } }), t)).toThrow(
      /tool_choice.name.*names no tool/,
    );
  });

  it('refuses names the CLI cannot offer, with the field', () => {
    const bad = (name: string) => () => planClientTools(req({ tools: [{ name, input_schema: schema }] }), t);
    expect(bad('files.read')).toThrow(/tools\.0\.name.*letters, digits/);
    expect(bad('x'.repeat(57))).toThrow(/at most 56/);
    expect(bad('x'.repeat(56))).not.toThrow();
    expect(() =>
      planClientTools(
        req({
          tools: [
            { name: 'a', input_schema: schema },
            { name: 'a', input_schema: schema },
          ],
        }),
        t,
      ),
    ).toThrow(/tools\.1\.name.*defined twice/);
  });
});

describe('toolResultToMcp', () => {
  it('keeps text, the error flag and base64 images', () => {
    expect(toolResultToMcp({ type: 'tool_result', tool_use_id: 'x', content: 'ok' }, 'f')).toEqual({
      content: [{ type: 'text', text: 'ok' }],
    });
    expect(toolResultToMcp({ type: 'tool_result', tool_use_id: 'x', is_error: true }, 'f')).toEqual({
      content: [],
      isError: true,
    });
    expect(
      toolResultToMcp(
        {
          type: 'tool_result',
          tool_use_id: 'x',
          content: [
            { type: 'text', text: 'a' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } },
          ],
        },
        'f',
      ),
    ).toEqual({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AAA', mimeType: 'image/png' },
      ],
    });
    expect(() =>
      toolResultToMcp(
        {
          type: 'tool_result',
          tool_use_id: 'x',
          content: [{ type: 'image', source: { type: 'url', url: 'http://x' } }],
        },
        'm.0',
      ),
    ).toThrow(/m\.0\.content\.0.*base64/);
  });
});

describe('providerRunToolIndex and mcpConfigJson', () => {
  it('finds a tool type that is not a client tool', () => {
    expect(providerRunToolIndex([{ name: 'a' }, { type: 'custom', name: 'b' }], ['custom'])).toBeUndefined();
    expect(
      providerRunToolIndex([{ name: 'a' }, { type: 'web_search_20250305', name: 'web_search' }], ['custom']),
    ).toEqual({ index: 1, type: 'web_search_20250305' });
    expect(providerRunToolIndex(undefined, ['function'])).toBeUndefined();
  });

  it('writes one HTTP server with the secret as a bearer header and the call limit', () => {
    expect(JSON.parse(mcpConfigJson(t, 'http://127.0.0.1:1/mcp', 's3cret', 5000))).toEqual({
      mcpServers: {
        c: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer s3cret' }, timeout: 5000 },
      },
    });
  });
});

describe('the recorded tool loop of the real CLI, through the CLI-line translator', () => {
  const lines = readFileSync(
    new URL('../../../../../test/fixtures/cli-recordings/mcp-tool.stdout', import.meta.url),
    'utf8',
  )
    .split('\n')
    .filter(Boolean);
  const clientToolNames = new Map([
    ['mcp__c__get_weather', 'get_weather'],
    ['mcp__c__get_time', 'get_time'],
  ]);

  it('passes the calls on under the client names and pauses after the message that calls them', () => {
    const state = createCliTranslateState({
      notLoggedInPattern: 'x',
      loginHint: 'y',
      model: 'assistant-sonnet-4-20250514',
      clientToolNames,
    });
    const events: NativeStreamEvent[] = [];
    let pause: string[] | undefined;
    for (const line of lines) {
      const step = stepCliLine(parseCliLine(line), state);
      events.push(...step.events);
      if (step.pause) {
        pause = step.pause;
        break;
      }
    }
    expect(pause).toEqual(['toolu_sim_1', 'toolu_sim_2']);
    const starts = events.filter((e) => e.type === 'content_block_start');
    expect(starts).toEqual([
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_sim_1', name: 'get_time', input: {} },
      },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_sim_2', name: 'get_weather', input: {} },
      },
    ]);
    const json = (index: number) =>
      events
        .flatMap((e) =>
          e.type === 'content_block_delta' && e.index === index && e.delta.type === 'input_json_delta'
            ? [e.delta.partial_json]
            : [],
        )
        .join('');
    expect(JSON.parse(json(0))).toEqual({ city: 'Paris' });
    expect(JSON.parse(json(1))).toEqual({ city: 'Paris' });
    expect(events.slice(-2)).toEqual([
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 4532, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
      { type: 'message_stop' },
    ]);
  });

  it('after the results, answers with the rest and takes what earlier answers reported off the whole-process usage', () => {
    const resumeAt = lines.findIndex((l) => l.includes('"type":"user"'));
    const state = createCliTranslateState({
      notLoggedInPattern: 'x',
      loginHint: 'y',
      clientToolNames,
      usageBase: { input_tokens: 4532, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    const events: NativeStreamEvent[] = [];
    for (const line of lines.slice(resumeAt)) events.push(...stepCliLine(parseCliLine(line), state).events);
    const text = events
      .flatMap((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? [e.delta.text] : []))
      .join('');
    expect(text).toMatch(/^The tool said: sunny \(get_time\) \| sunny \(get_weather\)/);
    expect(events.find((e) => e.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { input_tokens: 4543, output_tokens: 13 },
    });
  });
});
