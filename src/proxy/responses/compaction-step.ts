// The compaction step of a format whose requests may hold compaction items (the Responses API; docs/compaction.md),
// run by wire-routes.ts after the chain step and before the format's parse, and around the parse:
//   before   compaction items open into their summaries, and a compaction_trigger (or the compact endpoint) asks for
//            a compaction (responses/compaction/input.ts); in that case a conversation tool mode kept alive for the chain's
//            last response is ended: the summary replaces it, and a later request starts afresh from the summary
//   after    the parse: the request becomes the summary request (responses/compaction/summary-request.ts), and its answer the
//            sealed compaction item (formats/responses/compaction-answer.ts); the ledger row's purpose says so

import type { ProxyContext } from '../http/types.js';
import { readCompactionInput } from './compaction/input.js';
import { summaryRequest } from './compaction/summary-request.js';
import type { CompactionSeal } from './compaction/seal.js';
import type { WireFormat, WireRequest } from '../formats/format.js';
import type { ResponsesAnswerOptions } from '../formats/responses/request-to-native.js';
import type { Mode } from '../modes/mode.js';

interface CompactionStep {
  /** The body the format parses. */
  body: unknown;
  /** Makes the parsed request a compaction, when one was asked for; a no-op otherwise. */
  apply(parsed: WireRequest<unknown>): void;
}

export function compactionStep(
  ctx: ProxyContext,
  body: unknown,
  format: WireFormat<unknown>,
  mode: Mode,
  seal: CompactionSeal,
  now: () => number,
): CompactionStep {
  const read = readCompactionInput(body, seal);
  const compacts = format.compacts === 'always' || read.trigger;
  if (!compacts) return { body: read.body, apply: () => undefined };
  return {
    body: read.body,
    apply(parsed) {
      parsed.request = summaryRequest(parsed.request, mode.summaryKeepsTools);
      const options = parsed.answer as ResponsesAnswerOptions;
      options.compaction = {
        seal: (summary, model) => seal.seal({ summary, model, created: now() }),
        ...(format.compacts === 'always' ? { endpoint: { userMessages: read.userMessages } } : {}),
      };
      ctx.state.purpose = 'compaction';
      const previous = (body as { previous_response_id?: unknown } | null)?.previous_response_id;
      if (typeof previous === 'string') mode.backend.release?.(previous);
    },
  };
}
