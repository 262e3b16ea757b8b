// The chain step of a format whose requests may name an earlier response (the Responses API's
// `previous_response_id`; docs/responses-store.md), run by wire-routes.ts before the format's parse and around its
// answer:
//   before   the response's id is made (unguessable, known before the backend is called, so tool mode can tie the
//            CLI process that answers to it); a named response's chain is read (the socket's own responses first)
//            and the request's input becomes the chain's items plus the new ones (responses/chain.ts)
//   after    a completed or incomplete answer is kept: in the store unless the request said `store: false`, and on a
//            socket in the connection's own memory whatever it said (Codex sends store:false and chains on its
//            socket)

import type { ProxyContext } from '../http/types.js';
import type { SseEvent } from '../http/sse.js';
import {
  newResponseId,
  type ConnectionResponses,
  type ResponseLookup,
  type ResponseStore,
  type StoredResponse,
} from './store.js';
import { chainOf, chainedInput, storedResponseOf } from './chain.js';
import type { ResponsesAnswerOptions } from '../formats/responses/request-to-native.js';
import type { AnswerWriter } from '../formats/format.js';
import type { Chat } from '../chat/chat.js';
import type { CompactionSeal } from './compaction/seal.js';

/** What every chained route shares in one proxy. */
export interface ResponseChains {
  store: ResponseStore;
  now: () => number;
  /** Seals and opens the compaction items of these chains (responses/compaction/seal.ts). */
  seal: CompactionSeal;
}

/** What the chain step gives one request. */
interface ChainedRequest {
  /** The body the format parses: the whole input when the request named a previous response. */
  body: unknown;
  /** For the backend: this response's id, and the one it continues. */
  link: { id: string; previous?: string };
  /** Sets the id and the echo of the chain on the format's answer options. */
  options(answer: unknown): void;
  /** The chat with its answer recorded and its link for the backend. */
  chat(chat: Chat): Chat;
}

type Body = Record<string, unknown>;

export async function chainRequest(ctx: ProxyContext, chains: ResponseChains): Promise<ChainedRequest> {
  const raw = ctx.state.body;
  const body: Body = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Body) : {};
  // A request that came on a Responses socket reads and keeps the connection's own responses (socket/connection.ts).
  const connection = ctx.state.socketResponses as ConnectionResponses | undefined;
  const lookup: ResponseLookup = connection ?? chains.store;
  const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  const id = newResponseId();
  const link = { id, ...(previous !== undefined ? { previous } : {}) };
  const stored = body.store !== false;
  let whole = raw;
  if (previous !== undefined) {
    const chain = await chainOf(previous, lookup);
    whole = { ...body, input: chainedInput(chain, body.input) };
  }
  const keep = (response: Record<string, unknown>) => {
    const record: StoredResponse = storedResponseOf(response, previous ?? null, body.input, chains.now());
    connection?.put(record);
    if (stored) chains.store.put(record);
  };
  return {
    body: whole,
    link,
    options(answer) {
      const options = answer as ResponsesAnswerOptions;
      options.id = id;
      options.previousResponseId = previous ?? null;
      options.store = stored;
    },
    chat: (chat) => ({ ...chat, answer: (meta) => recording(chat.answer(meta), keep), link: { ...link } }),
  };
}

const kept = new Set(['response.completed', 'response.incomplete']);

function keepFrom(events: SseEvent[], keep: (response: Record<string, unknown>) => void): SseEvent[] {
  for (const ev of events) {
    const data = ev.data as { type?: string; response?: Record<string, unknown> } | undefined;
    if (data && typeof data === 'object' && kept.has(data.type ?? '') && data.response) keep(data.response);
  }
  return events;
}

function recording(writer: AnswerWriter, keep: (response: Record<string, unknown>) => void): AnswerWriter {
  return {
    whole(message) {
      const response = writer.whole(message) as Record<string, unknown>;
      if (kept.has(`response.${String(response.status)}`)) keep(response);
      return response;
    },
    stream() {
      const inner = writer.stream();
      return {
        ...inner,
        step: (event) => keepFrom(inner.step(event), keep),
        finish() {
          const end = inner.finish();
          keepFrom(end.events, keep);
          return end;
        },
      };
    },
  };
}
