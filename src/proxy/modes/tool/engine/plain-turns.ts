// A plain chat (no client tools) as a source of the one turn loop (turn.ts; docs/tool-mode.md "Live conversations"):
// a request whose messages continue a live conversation by one user message is written only that message; otherwise
// a warm process of the pool started with exactly its spec (a process with no history) or a new one is given the
// whole conversation. After a successful turn the process is kept idle for the next turn when the request ended on a
// user turn (a prefill has no turn to continue).

import type { RequestPlan } from './request-plan.js';
import type { ChainLink, TurnCapabilities } from './turn-capabilities.js';
import type { TurnSource } from './turn.js';

export function plainTurns(can: TurnCapabilities, plan: RequestPlan, link: ChainLink): TurnSource {
  let cliPath: string | undefined;
  return {
    async take() {
      // Where the CLI is and its working directory, ready before anything is taken (the 503 / 500 of a missing CLI).
      cliPath = await can.ready();
      // A live conversation this request continues: only the new user turn is written to it.
      const continued = plan.turn !== undefined ? can.continuation(plan, link) : undefined;
      if (continued) {
        continued.write(plan.turn!);
        return { proc: continued, how: 'continued' };
      }
      // The whole conversation for any other process (its input errors were thrown before anything started, unless
      // a live conversation could continue the request).
      const input = plan.full();
      // A warm process started earlier with exactly this spec (warm-pool.ts); the pool learns from every request. A
      // warm process has no history: a conversation resumed from a transcript needs a process started on it.
      if (input.transcript !== undefined) return undefined;
      const warm = can.warm(plan);
      if (!warm) return undefined;
      warm.write(input.stdin);
      return { proc: warm, how: 'warm' };
    },
    async fresh(signal) {
      const path = (cliPath ??= await can.ready());
      const input = await can.announced(path, plan.full(), signal);
      const proc = await can.start(path, input, plan.key, signal);
      proc.write(input.stdin);
      return proc;
    },
    translate: () => ({}),
    finished(proc, answer) {
      if (plan.turn === undefined || can.closing) return false;
      return can.keep(proc, () => plan.digests.after(answer), link);
    },
    paused: () => false,
  };
}
