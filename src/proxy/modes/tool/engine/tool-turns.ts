// Chats that carry the client's own tools (docs/tool-mode.md "The client's own tools"), as a source of the one turn
// loop (turn.ts). The CLI runs with its built-in tools off and the client's tools offered as MCP tools of a
// per-conversation server (tool-session.ts). When the model calls them, the client's answer ends with those calls
// (stop_reason tool_use) and the process is parked in the registry, 'waiting-for-tools', with the history it has seen
// (its answer with the calls included). The client's next request that is that same conversation (same key, every
// earlier message byte for byte, plus one user message with the results; conversation-history.ts) answers the
// waiting calls once it holds a child slot, and reads what the CLI says next from the same process. A tool_use id
// alone reaches nothing. Results no process waits for (after a restart, a deadline, a cap) start a fresh process
// with the whole conversation, as every other chat does. After its final answer the process is kept idle like any
// chat, under a key that names its tools instead of its own config file, so the agent's next user turn continues it.

import { createHash } from 'node:crypto';
import { addUsage } from '../../../formats/map-usage.js';
import type { ClientToolPlan, McpCallResult } from '../translate/native-tools-to-mcp.js';
import type { RequestPlan } from './request-plan.js';
import { keyOf, type ProcessSpec } from './spec.js';
import { answersFor, lastToolResults, withToolSession, type ToolSessionHost } from './tool-session.js';
import type { ChainLink, TurnCapabilities } from './turn-capabilities.js';
import type { TurnRequest, TurnSource } from './turn.js';

/**
 * The turn source of a chat that offers the client's tools. `makePlan(keyOf)` plans the request as it would be
 * without them (the tool flags are added at the start), keyed by `keyOf`; its input errors are thrown before anything
 * starts, as are the errors of tool results the CLI cannot take.
 */
export function toolTurns(
  can: TurnCapabilities,
  sessions: ToolSessionHost,
  turn: Pick<TurnRequest, 'req' | 'log'>,
  makePlan: (keyOf: (spec: ProcessSpec) => string, continuable: (plan: RequestPlan) => boolean) => RequestPlan,
  tools: ClientToolPlan,
  resultsReturn: boolean,
  link: ChainLink,
): TurnSource {
  const { req, log } = turn;
  const last = lastToolResults(req);
  // A process continues only what is really its conversation: the same spawn-time settings (model, system prompt,
  // tools, max_tokens, thinking: the key) and every earlier message byte for byte (conversation-history.ts).
  const plan = makePlan(
    (spec) => toolKey(spec, tools),
    (p) =>
      (last.results.length > 0 && can.waiting(p, link) !== undefined) ||
      (p.turn !== undefined && can.canContinue(p, link)),
  );
  const waiting = last.results.length > 0 ? can.waiting(plan, link) : undefined;
  // Every result is converted first: a bad one is the client's 400, and the process keeps waiting for a retry.
  const answers: Array<[string, McpCallResult]> | undefined =
    waiting && answersFor(waiting.tools?.waitingFor ?? [], last);

  return {
    async take() {
      const session = waiting?.tools;
      if (waiting && session && answers && waiting.state === 'waiting-for-tools' && waiting.alive) {
        // The results are handed over only now that the turn holds a child slot: the CLI calls the provider as soon
        // as it has them, and an answer nobody can read must not be billed.
        can.resume(waiting);
        for (const [id, result] of answers) session.server.answer(id, result);
        log.debug({ pid: waiting.pid, results: answers.length }, 'tool results handed to a waiting assistant CLI');
        return { proc: waiting, how: 'resumed' };
      }
      // A finished tool loop kept as a live conversation, which this request continues by one user turn.
      const continued = !waiting && plan.turn !== undefined ? can.continuation(plan, link) : undefined;
      if (continued?.tools) {
        continued.write(plan.turn!);
        log.debug({ pid: continued.pid }, 'a live assistant CLI with the client tools continues');
        return { proc: continued, how: 'continued' };
      }
      continued?.end();
      return undefined;
    },
    async fresh(signal) {
      const cliPath = await can.ready();
      const input = await can.announced(cliPath, plan.full(), signal);
      const { proc, session } = await withToolSession(sessions, input, tools, (spec) =>
        can.start(cliPath, spec, plan.key, signal),
      );
      proc.tools = session;
      proc.write(input.stdin);
      log.debug(
        { pid: proc.pid, model: req.model, tools: tools.tools.length },
        'assistant CLI started with the client tools',
      );
      return proc;
    },
    translate(proc) {
      const session = proc.tools;
      return {
        clientToolNames: session?.plan.clientToolNames ?? tools.clientToolNames,
        ...(session?.reported ? { usageBase: session.reported } : {}),
      };
    },
    finished(proc, answer) {
      // The CLI's `result` counts one turn (measured with the real CLI: a second turn's usage is its own), so what
      // this turn's earlier answers reported is forgotten when it finishes.
      const session = proc.tools;
      if (session) session.reported = undefined;
      // Kept for a follow-up user turn when the request ended on a user turn (not a prefill), its MCP server up.
      if (can.closing || req.messages.at(-1)?.role !== 'user') return false;
      return can.keep(proc, () => plan.digests.after(answer), link);
    },
    paused(proc, ids, answer, usage) {
      const session = proc.tools;
      if (!resultsReturn || !session || can.closing) return false;
      if (usage) session.reported = addUsage(session.reported, usage);
      session.waitingFor = ids;
      // Only a request with exactly this history plus the results (or naming this response) may resume it.
      return can.park(proc, () => plan.digests.after(answer), link);
    },
  };
}

/**
 * What a tool conversation is started with, as a registry key: the arguments with its own MCP config replaced by the
 * tools it offers (a later request with the same tools, prompt and settings may continue it).
 */
function toolKey(spec: ProcessSpec, tools: ClientToolPlan): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([tools.tools, tools.instruction ?? '']))
    .digest('hex');
  return keyOf({ ...spec, args: [...spec.args, '\0client-tools', hash] });
}
