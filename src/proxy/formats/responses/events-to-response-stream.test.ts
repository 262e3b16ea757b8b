import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import type { NativeMessage, NativeStreamEvent } from '../native.js';
import {
  createResponseStreamState,
  failResponseStream,
  finishResponseStream,
  stepResponseStream,
} from './events-to-response-stream.js';
import { nativeMessageToResponse } from './message-to-response.js';

const meta = { model: 'assistant-sonnet-4-20250514', created: 1_700_000_000 };
const options = { customTools: new Set(['apply_patch']), parallelToolCalls: true, toolChoice: 'auto', tools: [] };

const start = (
  usage = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 },
): NativeStreamEvent => ({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});

/** Item ids are random; they are replaced by their kind so the expected stream can be written out. */
function run(events: NativeStreamEvent[]) {
  const state = createResponseStreamState('resp_1', meta, options);
  const out = events.flatMap((e) => stepResponseStream(e, state));
  const text = JSON.stringify(out).replace(/"(msg|rs|fc|ctc)_[0-9a-f]{32}"/g, '"$1_x"');
  return { state, out: JSON.parse(text) as Array<{ event: string; data: Record<string, unknown> }> };
}

describe('native events -> Responses stream', () => {
  it('streams text and a function call, every data object typed, ending with response.completed and usage', () => {
    const { out, state } = run([
      start(),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'shell', input: {} },
      },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"cmd":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"ls"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } },
      { type: 'message_stop' },
    ]);
    expect(out.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    out.forEach((e, i) => {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
    });
    expect(out[4].data).toEqual({
      type: 'response.output_text.delta',
      sequence_number: 4,
      item_id: 'msg_x',
      output_index: 0,
      content_index: 0,
      delta: 'Hel',
      logprobs: [],
    });
    expect(out[12].data).toEqual({
      type: 'response.function_call_arguments.done',
      sequence_number: 12,
      item_id: 'fc_x',
      output_index: 1,
      name: 'shell',
      arguments: '{"cmd":"ls"}',
    });
    const completed = out[14].data.response as Record<string, unknown>;
    expect(completed).toMatchObject({
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'assistant-sonnet-4-20250514',
      created_at: 1_700_000_000,
      output: [
        {
          type: 'message',
          id: 'msg_x',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
        },
        {
          type: 'function_call',
          id: 'fc_x',
          status: 'completed',
          call_id: 'toolu_1',
          name: 'shell',
          arguments: '{"cmd":"ls"}',
        },
      ],
      usage: {
        input_tokens: 17,
        input_tokens_details: { cached_tokens: 5 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 24,
      },
    });
    expect(finishResponseStream(state)).toEqual({ events: [] });
  });

  it('answers a freeform tool as a custom_tool_call with its text input, and thinking as a reasoning item', () => {
    const { out } = run([
      start(),
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Patch it.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 'toolu_2', name: 'apply_patch', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"input":"*** Begin Patch\\n"}' },
      },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]);
    expect(out.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(out[7].data.item).toEqual({
      type: 'reasoning',
      id: 'rs_x',
      summary: [{ type: 'summary_text', text: 'Patch it.' }],
      encrypted_content: 'sig',
    });
    expect(out[11].data.item).toEqual({
      type: 'custom_tool_call',
      id: 'ctc_x',
      status: 'completed',
      call_id: 'toolu_2',
      name: 'apply_patch',
      input: '*** Begin Patch\n',
    });
    // Thinking is counted inside output_tokens by the provider: no reasoning count is made up.
    expect((out[12].data.response as { usage: unknown }).usage).toEqual({
      input_tokens: 17,
      input_tokens_details: { cached_tokens: 5 },
      output_tokens: 9,
      total_tokens: 26,
    });
  });

  it('ends a max_tokens answer with response.incomplete', () => {
    const { out } = run([
      start(),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
    ]);
    const last = out.at(-1)!;
    expect(last.event).toBe('response.incomplete');
    expect(last.data.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  it('reports an error event and a stream cut short as response.failed with the code clients act on', () => {
    const { state } = run([start(), { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down.' } }]);
    expect(state.error?.kind).toBe('rate_limit');
    const failed = failResponseStream(state, new ProxyError('rate_limit', 'Slow down.', { retryAfter: 3 }));
    expect(failed).toHaveLength(1);
    expect(failed[0].event).toBe('response.failed');
    expect((failed[0].data as { response: unknown }).response).toMatchObject({
      status: 'failed',
      error: { code: 'rate_limit_exceeded', message: 'Slow down. Please try again in 3s.' },
    });

    const cut = run([start()]).state;
    expect(finishResponseStream(cut).error?.message).toBe('The stream ended without message_stop');
    const tooLong = failResponseStream(
      cut,
      new ProxyError('invalid_request', 'prompt is too long: 210000 tokens > 200000 maximum'),
    );
    expect((tooLong[0].data as { response: { error: { code: string } } }).response.error.code).toBe(
      'context_length_exceeded',
    );
  });
});

describe('a whole native message -> the Responses answer', () => {
  it('gives items in order, tool calls by kind, and the usage', () => {
    const message: NativeMessage = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 4 },
      content: [
        { type: 'text', text: 'Let me ' },
        { type: 'text', text: 'look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'shell', input: { cmd: 'ls' } },
        { type: 'tool_use', id: 'toolu_2', name: 'apply_patch', input: { input: 'patch' } },
      ],
    };
    const out = JSON.parse(
      JSON.stringify(nativeMessageToResponse(message, 'resp_2', meta, options)).replace(
        /"(msg|rs|fc|ctc)_[0-9a-f]{32}"/g,
        '"$1_x"',
      ),
    );
    expect(out).toEqual({
      id: 'resp_2',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'assistant-sonnet-4-20250514',
      output: [
        {
          type: 'message',
          id: 'msg_x',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Let me look.', annotations: [], logprobs: [] }],
        },
        {
          type: 'function_call',
          id: 'fc_x',
          status: 'completed',
          call_id: 'toolu_1',
          name: 'shell',
          arguments: '{"cmd":"ls"}',
        },
        {
          type: 'custom_tool_call',
          id: 'ctc_x',
          status: 'completed',
          call_id: 'toolu_2',
          name: 'apply_patch',
          input: 'patch',
        },
      ],
      usage: {
        input_tokens: 3,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 7,
      },
      error: null,
      incomplete_details: null,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      store: false,
      previous_response_id: null,
      metadata: {},
    });
  });
});
