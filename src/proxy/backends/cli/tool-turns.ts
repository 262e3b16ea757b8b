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
import type { NativeRequest } from '../../formats/native.js';
import type { Logger } from '../../logger.js';
import type { BackendContext } from '../backend.js';
import { addUsage } from '../../translate/map-usage.js';
import { historyAfterTurn } from '../../translate/conversation-history.js';
import type { CliInput } from '../../translate/native-request-to-cli-input.js';
import type { ClientToolPlan, McpCallResult } from '../../translate/native-tools-to-mcp.js';
import { cliInputs } from './cli-inputs.js';
import type { CliConversation } from './cli-conversation.js';
import { historyToKeep, type CliProcesses } from './processes.js';
import type { ProcessStarter } from './process-starter.js';
import { keyOf } from './spec.js';
import {
  answersFor,
  lastToolResults,
  withToolSession,
  type ToolSession,
  type ToolSessionHost,
} from './tool-session.js';
import type { TurnSource } from './turn.js';

/** What a tool chat needs of the engine (engine.ts). */
export interface ToolTurnsHost extends ToolSessionHost {
  readonly registry: CliProcesses<CliConversation>;
  readonly starter: ProcessStarter;
  readonly closing: boolean;
  /** The tool session of each process that offers the client's tools. */
  readonly sessions: WeakMap<CliConversation, ToolSession>;
  startWithRoom(start: () => CliConversation, signal: AbortSignal): Promise<CliConversation>;
}

/**
 * The turn source of a chat that offers the client's tools. `makeInput` gives the CLI input the request would get
 * without them (the tool flags are added here); it is called, and its input errors thrown, before anything starts,
 * as are the errors of tool results the CLI cannot take.
 */
export function toolTurns(
  host: ToolTurnsHost,
  req: NativeRequest,
  makeInput: (req: NativeRequest) => CliInput,
  plan: ClientToolPlan,
  log: Logger,
  resultsReturn: boolean,
  link?: BackendContext['link'],
): TurnSource {
  const previous = link?.previous;
  const { registry, sessions } = host;
  const last = lastToolResults(req);
  // A process continues only what is really its conversation: the same spawn-time settings (model, system prompt,
  // tools, max_tokens, thinking: the key) and every earlier message byte for byte (conversation-history.ts).
  const inputs = cliInputs(req, makeInput, (head) => {
    const key = keyFor(head, plan);
    return (
      (last.results.length > 0 && registry.findWaiting(key, req.messages, previous) !== undefined) ||
      (head.turn !== undefined && registry.canContinue(key, req.messages, previous))
    );
  });
  const { head } = inputs;
  const key = keyFor(head, plan);
  const waiting = last.results.length > 0 ? registry.findWaiting(key, req.messages, previous) : undefined;
  // Every result is converted first: a bad one is the client's 400, and the process keeps waiting for a retry.
  const answers: Array<[string, McpCallResult]> | undefined =
    waiting && answersFor(sessions.get(waiting)?.waitingFor ?? [], last);

  return {
    async take() {
      const session = waiting && sessions.get(waiting);
      if (waiting && session && answers && waiting.state === 'waiting-for-tools' && waiting.alive) {
        // The results are handed over only now that the turn holds a child slot: the CLI calls the provider as soon
        // as it has them, and an answer nobody can read must not be billed.
        registry.resume(waiting);
        for (const [id, result] of answers) session.server.answer(id, result);
        log.debug({ pid: waiting.pid, results: answers.length }, 'tool results handed to a waiting assistant CLI');
        return { proc: waiting, how: 'resumed' };
      }
      // A finished tool loop kept as a live conversation, which this request continues by one user turn.
      const continued =
        !waiting && head.turn !== undefined ? registry.takeContinuation(key, req.messages, previous) : undefined;
      if (continued && sessions.has(continued)) {
        continued.write(head.turn!);
        log.debug({ pid: continued.pid }, 'a live assistant CLI with the client tools continues');
        return { proc: continued, how: 'continued' };
      }
      continued?.end();
      return undefined;
    },
    async fresh(signal) {
      const cliPath = await host.starter.prepare();
      const input = await host.starter.withAnnouncements(cliPath, inputs.full(), signal);
      const { proc, session } = await withToolSession(host, input, plan, (spec) =>
        host.startWithRoom(() => host.starter.start(cliPath, spec, key), signal),
      );
      sessions.set(proc, session);
      proc.write(input.stdin);
      log.debug(
        { pid: proc.pid, model: req.model, tools: plan.tools.length },
        'assistant CLI started with the client tools',
      );
      return proc;
    },
    translate(proc) {
      const session = sessions.get(proc);
      return {
        clientToolNames: session?.plan.clientToolNames ?? plan.clientToolNames,
        ...(session?.reported ? { usageBase: session.reported } : {}),
      };
    },
    finished(proc, answer) {
      // The CLI's `result` counts one turn (measured with the real CLI: a second turn's usage is its own), so what
      // this turn's earlier answers reported is forgotten when it finishes.
      const session = sessions.get(proc);
      if (session) session.reported = undefined;
      // Kept for a follow-up user turn when the request ended on a user turn (not a prefill), its MCP server up.
      if (host.closing || req.messages.at(-1)?.role !== 'user') return false;
      const kept = registry.keep(
        proc,
        historyToKeep(previous, () => historyAfterTurn(req.messages, answer)),
      );
      if (kept && link) registry.answered(proc, link.id);
      return kept;
    },
    paused(proc, ids, answer, usage) {
      const session = sessions.get(proc);
      if (!resultsReturn || !session || host.closing) return false;
      if (usage) session.reported = addUsage(session.reported, usage);
      session.waitingFor = ids;
      // Only a request with exactly this history plus the results (or naming this response) may resume it.
      const parked = registry.park(
        proc,
        historyToKeep(previous, () => historyAfterTurn(req.messages, answer)),
      );
      if (parked && link) registry.answered(proc, link.id);
      return parked;
    },
  };
}

/**
 * What a tool conversation is started with, as a registry key: the arguments with its own MCP config replaced by the
 * tools it offers (a later request with the same tools, prompt and settings may continue it).
 */
function keyFor(input: CliInput, plan: ClientToolPlan): string {
  const tools = createHash('sha256')
    .update(JSON.stringify([plan.tools, plan.instruction ?? '']))
    .digest('hex');
  return keyOf({ ...input, args: [...input.args, '\0client-tools', tools] });
}
