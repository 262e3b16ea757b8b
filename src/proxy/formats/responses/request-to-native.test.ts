import { describe, expect, it } from 'vitest';
import { isProxyError, type ProxyError } from '../../errors.js';
import { defaultProfile } from '../../profile.js';
import { responsesRequestToNative } from './request-to-native.js';

const context = { api: defaultProfile.api };
const parse = (body: unknown) => responsesRequestToNative(body, context);

function refusal(body: unknown): ProxyError {
  try {
    parse(body);
  } catch (err) {
    if (isProxyError(err)) return err;
    throw err;
  }
  throw new Error('parsed');
}

describe('responsesRequestToNative', () => {
  it('takes a string input as one user message, with the default max_tokens', () => {
    const out = parse({ model: 'assistant-sonnet-4-20250514', input: 'hi' });
    expect(out.request).toEqual({
      model: 'assistant-sonnet-4-20250514',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      max_tokens: 4096,
    });
    expect(out.stream).toBe(false);
    expect(out.ignored).toEqual([]);
  });

  it('takes previous_response_id as handled: the route resolved it into the input before this parse', () => {
    const out = parse({ model: 'm', input: 'x', previous_response_id: 'resp_1' });
    expect(out.ignored).toEqual([]);
    expect(out.request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'x' }] }]);
  });

  it('joins instructions and developer messages into the system prompt, and merges items of one role', () => {
    const out = parse({
      model: 'm',
      instructions: 'Be brief.',
      stream: true,
      store: false,
      max_output_tokens: 300,
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'read a.txt' }] },
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'I should read it.' }],
          encrypted_content: 'sig-1',
        },
        { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"cat a.txt"}' },
        { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'function_call_output', call_id: 'call_1', output: 'hello' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'done' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'display only' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'It says hello.' }] },
      ],
    });
    expect(out.request).toEqual({
      model: 'm',
      system: 'Be brief.\n\nYou are Codex.',
      max_tokens: 300,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read it.', signature: 'sig-1' },
            { type: 'tool_use', id: 'call_1', name: 'shell', input: { cmd: 'cat a.txt' } },
            { type: 'tool_use', id: 'call_2', name: 'apply_patch', input: { input: '*** Begin Patch' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'hello' },
            { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'done' }] },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'It says hello.' }] },
      ],
    });
    expect(out.stream).toBe(true);
    expect(out.ignored).toEqual([]);
  });

  it('offers function and custom tools, leaves the others out by name, and keeps the custom names for the answer', () => {
    const out = parse({
      model: 'm',
      input: 'x',
      tools: [
        {
          type: 'function',
          name: 'shell',
          description: 'Run a command',
          parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
          strict: false,
        },
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Edit files',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' },
        },
        { type: 'web_search', external_web_access: false },
        { type: 'namespace', name: 'multi_agent_v1', tools: [] },
        { type: 'tool_search' },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(out.request.tools).toEqual([
      {
        name: 'shell',
        description: 'Run a command',
        input_schema: { type: 'object', properties: { cmd: { type: 'string' } } },
      },
      {
        name: 'apply_patch',
        description: 'Edit files\n\nThe input is free-form text that must match this lark grammar:\nstart: "x"',
        input_schema: {
          type: 'object',
          properties: { input: { type: 'string', description: 'the free-form input of this tool' } },
          required: ['input'],
        },
      },
    ]);
    expect(out.request.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(out.ignored).toEqual(['tools.web_search', 'tools.namespace', 'tools.tool_search']);
    expect(out.warnings.some((w) => w.includes('web_search'))).toBe(true);
    expect(out.warnings.some((w) => w.includes('apply_patch') && w.includes('grammar'))).toBe(true);
    expect([...out.answer.customTools]).toEqual(['apply_patch']);
    expect(out.answer.parallelToolCalls).toBe(false);
  });

  it('maps tool_choice, reasoning effort, text.format and sampling settings', () => {
    const out = parse({
      model: 'm',
      input: 'x',
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: { type: 'function', name: 'f' },
      max_output_tokens: 8000,
      reasoning: { effort: 'low', summary: 'auto' },
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      top_p: 0.5,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'abc',
      client_metadata: { a: 1 },
    });
    expect(out.request.tool_choice).toEqual({ type: 'tool', name: 'f' });
    expect(out.request.tools).toEqual([{ name: 'f', input_schema: { type: 'object', properties: {} } }]);
    // Intent in native fields; the mode fits effort, sampling and the format to the model (docs/models.md).
    expect(out.request.thinking).toEqual({ type: 'adaptive' });
    expect(out.request.output_config).toEqual({
      effort: 'low',
      format: { type: 'json_schema', schema: { type: 'object' } },
    });
    expect(out.request.top_p).toBe(0.5);
    expect(out.request).not.toHaveProperty('system');
    expect(out.ignored).toEqual(['text.verbosity', 'prompt_cache_key', 'client_metadata']);
    expect(out.clientNames).toMatchObject({
      thinking: 'reasoning.effort',
      format: 'text.format',
      max_tokens: 'max_output_tokens',
    });
    expect(out.maxTokensDefaulted).toBeUndefined();
  });

  it('clamps temperature into the provider range with a warning', () => {
    const out = parse({ model: 'm', input: 'x', temperature: 1.5 });
    expect(out.request.temperature).toBe(1);
    expect(out.warnings).toEqual(['temperature 1.5 was clamped to 1 (the provider accepts 0 to 1)']);
  });

  it('leaves out input items it has no equivalent for, by name', () => {
    const out = parse({
      model: 'm',
      input: [
        { role: 'user', content: 'x' },
        { type: 'web_search_call', id: 'ws_1' },
        { type: 'web_search_call', id: 'ws_2' },
      ],
    });
    expect(out.request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'x' }] }]);
    expect(out.ignored).toEqual(['input.web_search_call']);
  });

  it('takes a request shaped as Codex 0.171 sends it, naming what it leaves out (docs/clients.md)', () => {
    const fn = (name: string) => ({
      type: 'function',
      name,
      description: name,
      strict: false,
      parameters: { type: 'object', properties: {} },
    });
    const out = parse({
      model: 'assistant-sonnet-4-20250514',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] },
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<collaboration_mode>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      ],
      tools: [
        ...['exec_command', 'write_stdin', 'request_user_input', 'view_image'].map(fn),
        { type: 'namespace', name: 'multi_agent_v1', description: 'agents', tools: [fn('spawn_agent')] },
        ...['get_goal', 'create_goal', 'update_goal'].map(fn),
        { type: 'web_search', external_web_access: false },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: '01a21ea5-6dab-7052-b77f-b76f07363a34',
      client_metadata: { 'x-codex-installation-id': 'c309f8a3' },
    });
    expect(out.request.system).toBe('<permissions instructions>\n\n<collaboration_mode>');
    expect(out.request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: '<environment_context>' },
          { type: 'text', text: 'hi' },
        ],
      },
    ]);
    expect(out.request.tools?.map((t) => t.name)).toEqual([
      'exec_command',
      'write_stdin',
      'request_user_input',
      'view_image',
      'get_goal',
      'create_goal',
      'update_goal',
    ]);
    expect(out.request.tool_choice).toEqual({ type: 'auto' });
    expect(out.ignored).toEqual(['tools.namespace', 'tools.web_search', 'prompt_cache_key', 'client_metadata']);
    expect(out.stream).toBe(true);
  });

  it.each([
    [{ input: 'x' }, 'model', 'is required'],
    [{ model: 'm' }, 'input', 'is required'],
    [
      { model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{' }] },
      'input.0.arguments',
      'must be valid JSON',
    ],
    [
      {
        model: 'm',
        input: [
          { role: 'user', content: 'x' },
          { type: 'function_call_output', output: 'y' },
        ],
      },
      'input.1.call_id',
      'is required',
    ],
    [{ model: 'm', input: 'x', tools: [{ type: 'function' }] }, 'tools.0.name', 'is required'],
    [{ model: 'm', input: 'x', reasoning: { effort: 'huge' } }, 'reasoning.effort', undefined],
    [{ model: 'm', input: 'x', max_output_tokens: 0 }, 'max_output_tokens', 'must be a positive integer'],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input.0.content.0.file_id',
      'refers to an uploaded file, and this proxy has no files API: send the file itself (file_data as a data URL)',
    ],
    [
      {
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'data:text/csv;base64,YQ==' }] }],
      },
      'input.0.content.0.file_data',
      undefined,
    ],
  ])('refuses %j with a 400 naming %s', (body, field, issue) => {
    const err = refusal(body);
    expect(err.status).toBe(400);
    expect(err.field).toBe(field);
    if (issue) expect(err.issue).toBe(issue);
  });
});
