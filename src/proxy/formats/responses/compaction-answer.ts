// A compaction's answer in the Responses format (docs/compaction.md): the model's summary, sealed, as the one
// `compaction` output item the client keeps in place of the conversation. Built on the format's own writer, whose
// response object, usage and failure events it keeps; the summary is sealed once it is whole, so nothing of it is
// streamed:
//   stream   response.created, response.in_progress (as any answer) ... response.output_item.added and .done of the
//            compaction item, response.completed with it as the whole output. Codex's remote compaction needs
//            exactly one compaction item and response.completed; an answer with no text (the model called a tool
//            anyway) is response.failed, never an empty summary.
//   whole    the response object with that output; on the compact endpoint, the `response.compaction` object: the
//            input's user messages, then the compaction item.

import { ProxyError } from '../../errors.js';
import type { SseEvent } from '../../http/sse.js';
import type { NativeMessage } from '../native.js';
import type { AnswerWriter, StreamWriter } from '../format.js';
import { itemId } from './response-parts.js';
import type { CompactionAnswer, ResponsesOutputItem, ResponsesResponse } from './schema.js';

/** The summary an answer's output holds: its messages' text, without tool calls a model may have made anyway. */
function summaryOf(output: ResponsesOutputItem[]): string {
  return output
    .flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : []))
    .join('')
    .trim();
}

const noSummary = () =>
  new ProxyError('upstream', 'The model wrote no summary of the conversation, so it was not compacted; try again.');

function compactionItem(response: ResponsesResponse, compaction: CompactionAnswer): ResponsesOutputItem | undefined {
  const summary = summaryOf(response.output);
  if (summary === '') return undefined;
  return { type: 'compaction', id: itemId('cmp'), encrypted_content: compaction.seal(summary, response.model) };
}

/** A user message as the compact endpoint lists it: an output item with its text as input_text parts. */
function userMessageItem(item: unknown): Record<string, unknown> {
  const message = item as { id?: unknown; content?: unknown };
  const content =
    typeof message.content === 'string' ? [{ type: 'input_text', text: message.content }] : (message.content ?? []);
  return {
    type: 'message',
    id: typeof message.id === 'string' ? message.id : itemId('msg'),
    status: 'completed',
    role: 'user',
    content,
  };
}

/** What a client is told when the answer was sealed: the response, or the compact endpoint's object. */
function wholeOf(response: ResponsesResponse, item: ResponsesOutputItem, compaction: CompactionAnswer): unknown {
  if (!compaction.endpoint) return { ...response, status: 'completed', incomplete_details: null, output: [item] };
  return {
    id: response.id,
    object: 'response.compaction',
    created_at: response.created_at,
    output: [...compaction.endpoint.userMessages.map(userMessageItem), item],
    usage: response.usage,
  };
}

export function compactionWriter(inner: AnswerWriter, compaction: CompactionAnswer): AnswerWriter {
  return {
    whole(message: NativeMessage) {
      const response = inner.whole(message) as ResponsesResponse;
      const item = compactionItem(response, compaction);
      if (!item) throw noSummary();
      return wholeOf(response, item, compaction);
    },
    stream(): StreamWriter {
      const writer = inner.stream();
      let sequence = 0;
      let error: ProxyError | undefined;
      const event = (type: string, fields: Record<string, unknown>): SseEvent => ({
        event: type,
        data: { type, ...fields, sequence_number: sequence++ },
      });
      const renumber = (events: SseEvent[]) =>
        events.map((e) => event(e.event ?? '', { ...(e.data as Record<string, unknown>) }));
      const sealed = (response: ResponsesResponse): SseEvent[] => {
        const item = compactionItem(response, compaction);
        if (!item) {
          error = noSummary();
          return [];
        }
        return [
          event('response.output_item.added', { output_index: 0, item }),
          event('response.output_item.done', { output_index: 0, item }),
          event('response.completed', {
            response: { ...response, status: 'completed', incomplete_details: null, output: [item] },
          }),
        ];
      };
      const pass = (events: SseEvent[]): SseEvent[] =>
        events.flatMap((e) => {
          if (e.event === 'response.created' || e.event === 'response.in_progress') return renumber([e]);
          // A summary cut short by the output limit still stands for the conversation better than none.
          if (e.event === 'response.completed' || e.event === 'response.incomplete')
            return sealed((e.data as { response: ResponsesResponse }).response);
          return [];
        });
      return {
        step: (ev) => pass(writer.step(ev)),
        failed: () => error !== undefined || writer.failed(),
        finish() {
          if (error) return { events: [], error };
          const end = writer.finish();
          return { events: pass(end.events), ...(end.error ? { error: end.error } : {}) };
        },
        errors: { ...writer.errors, streamEvents: (err, id) => renumber(writer.errors.streamEvents(err, id)) },
      };
    },
  };
}
