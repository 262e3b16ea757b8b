// THROWAWAY (docs/architecture.md "Modes"): a mode whose backend echoes the last user message as native events.
import type { Backend } from '../../backends/backend.js';
import type { NativeStreamEvent } from '../../formats/native.js';
import { chatOf, type Mode } from '../mode.js';

const echoBackend: Backend = {
  async *stream(req) {
    const last = req.messages.at(-1)?.content ?? '';
    const text = typeof last === 'string' ? last : last.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const events: NativeStreamEvent[] = [
      {
        type: 'message_start',
        message: {
          id: 'msg_echo',
          type: 'message',
          role: 'assistant',
          model: req.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `echo: ${text}` } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ];
    yield* events;
  },
};

export const echoMode: Mode = {
  name: 'echo',
  backend: echoBackend,
  prepare: (_ctx, parsed, answer) => ({
    ...chatOf(parsed, answer, parsed.ignored),
    requestedModel: parsed.request.model,
    publicModel: parsed.request.model,
    servedName: (served) => served,
  }),
};
