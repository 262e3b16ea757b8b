// A plain chat (no client tools) as a source of the one turn loop (turn.ts; docs/tool-mode.md "Live conversations"):
// a request whose messages continue a live conversation by one user message is written only that message; otherwise
// a warm process of the pool started with exactly its spec (a process with no history) or a new one is given the
// whole conversation. After a successful turn the process is kept idle for the next turn when the request ended on a
// user turn (a prefill has no turn to continue).

import type { NativeRequest } from '../../formats/native.js';
import type { BackendContext } from '../backend.js';
import { historyAfterTurn } from '../../translate/conversation-history.js';
import type { CliConversation } from './cli-conversation.js';
import type { CliInputs } from './cli-inputs.js';
import { historyToKeep, type CliProcesses } from './processes.js';
import type { ProcessStarter } from './process-starter.js';
import { specKey, toSpec } from './spec.js';
import type { TurnSource } from './turn.js';
import type { WarmPool } from './warm-pool.js';

/** What a plain chat needs of the engine (engine.ts). */
export interface PlainTurnsHost {
  readonly registry: CliProcesses<CliConversation>;
  readonly pool: WarmPool<CliConversation>;
  readonly starter: ProcessStarter;
  readonly closing: boolean;
  startWithRoom(start: () => CliConversation, signal: AbortSignal): Promise<CliConversation>;
}

export function plainTurns(
  host: PlainTurnsHost,
  req: NativeRequest,
  inputs: CliInputs,
  link?: BackendContext['link'],
): TurnSource {
  const { head } = inputs;
  const spec = toSpec(head);
  const key = specKey(spec);
  let cliPath: string | undefined;
  return {
    async take() {
      // Where the CLI is and its working directory, ready before anything is taken (the 503 / 500 of a missing CLI).
      cliPath = await host.starter.prepare();
      // A live conversation this request continues: only the new user turn is written to it.
      const continued =
        head.turn !== undefined ? host.registry.takeContinuation(key, req.messages, link?.previous) : undefined;
      if (continued) {
        continued.write(head.turn!);
        return { proc: continued, how: 'continued' };
      }
      // The whole conversation for any other process (its input errors were thrown before anything started, unless
      // a live conversation could continue the request).
      const input = inputs.full();
      // A warm process started earlier with exactly this spec (warm-pool.ts); the pool learns from every request. A
      // warm process has no history: a conversation resumed from a transcript needs a process started on it.
      if (input.transcript !== undefined) return undefined;
      const warm = host.pool.take(spec);
      if (!warm) return undefined;
      warm.write(input.stdin);
      return { proc: warm, how: 'warm' };
    },
    async fresh(signal) {
      const path = (cliPath ??= await host.starter.prepare());
      const input = await host.starter.withAnnouncements(path, inputs.full(), signal);
      const proc = await host.startWithRoom(() => host.starter.start(path, input, key), signal);
      proc.write(input.stdin);
      return proc;
    },
    translate: () => ({}),
    finished(proc, answer) {
      if (head.turn === undefined || host.closing) return false;
      const history = historyToKeep(link?.previous, () => historyAfterTurn(req.messages, answer));
      const kept = host.registry.keep(proc, history);
      if (kept && link) host.registry.answered(proc, link.id);
      return kept;
    },
    paused: () => false,
  };
}
