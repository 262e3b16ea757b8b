// Chats that carry the client's own tools (docs/tool-mode.md "The client's own tools"). The CLI is run with its
// built-in tools off and the client's tools offered as MCP tools of a per-conversation server (client-tool-server.ts).
// When the model calls them, the client's answer ends with those calls (stop_reason tool_use) and the CLI process
// stays alive, its MCP calls waiting: the conversation is parked with its key and the history it has seen (its answer
// with the calls included). The client's next request that is that same conversation (same key, every earlier
// message byte for byte, plus one user message with the results; conversation-history.ts) answers the waiting calls,
// once it holds a child slot, and reads what the CLI says next from the same process. A tool_use id alone reaches
// nothing. A request whose results no parked conversation waits for (after a restart, a deadline, a cap) starts
// a fresh process with the whole conversation written as a transcript, as every other chat does; so does one whose
// waiting or live process is found dead before it printed anything of the answer (docs/tool-mode.md "Live
// conversations").
//
// The process is a CliConversation (cli-conversation.ts), which owns its stdout stream across requests: its state is
// 'waiting-for-tools' while parked. Beside it, a tool conversation owns its MCP server and its config file (owner-only,
// owner-only in the data directory, removed when the conversation ends; the secret never goes in argv). It is never
// pooled; after its final answer it is kept in the live-conversation registry like any chat, under a key that names
// its tools instead of its own config file, so the agent's next user turn with the same tools continues it.
// A parked conversation holds no child slot; it ends when the client does not come back within
// CLI_TOOL_RESULT_TIMEOUT_MS, when more than CLI_MAX_CONCURRENT are parked (the oldest), on shutdown, and when its
// process exits. A client that leaves while its answer is being written ends the process, as any chat does.

import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import type {
  NativeContentBlock,
  NativeRequest,
  NativeStreamEvent,
  NativeToolResultBlock,
  NativeUsage,
} from '../formats/native.js';
import { ProxyError } from '../errors.js';
import { addUsage } from '../translate/map-usage.js';
import type { Logger } from '../logger.js';
import { createCliTranslateState, finishCliLines } from '../translate/cli-events-to-native-events.js';
import {
  AnswerRecorder,
  continuesHistory,
  historyAfterTurn,
  type AnswerRecord,
} from '../translate/conversation-history.js';
import { cliInputs } from './cli-inputs.js';
import {
  mcpConfigJson,
  toolResultToMcp,
  type ClientToolPlan,
  type McpCallResult,
} from '../translate/native-tools-to-mcp.js';
import type { CliInput } from '../translate/native-request-to-cli-input.js';
import { lingerAfterResultMs, stepLine, type ChatDeadlines } from './chat-deadlines.js';
import { ClientToolServer } from './client-tool-server.js';
import type { LiveConversations } from './live-conversations.js';
import { OpeningHold } from './opening-hold.js';
import type { PromptFiles } from './prompt-files.js';
import type { Profile } from '../profile.js';
import type { Config } from '../config.js';
import type { UsageSink } from '../usage/types.js';
import type { CliConversation, ConversationEnd } from './cli-conversation.js';

/** One CLI process serving one client's tool loop. */
class ToolConversation {
  /** Usage already reported by earlier answers of this turn (the `result` line counts the whole turn). */
  reported: NativeUsage | undefined;
  /** The tool_use ids the parked conversation waits for. */
  waitingFor: string[] = [];
  deadline: NodeJS.Timeout | undefined;
  slot: (() => void) | undefined;
  exited = false;
  private ended = false;

  constructor(
    readonly cli: CliConversation,
    readonly server: ClientToolServer,
    readonly configFile: string,
    readonly plan: ClientToolPlan,
  ) {}

  get pid(): number | undefined {
    return this.cli.pid;
  }

  releaseSlot(): void {
    const slot = this.slot;
    this.slot = undefined;
    slot?.();
  }

  /** Ends the process (SIGTERM, then SIGKILL), fails waiting calls, removes the config file. Idempotent. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.deadline);
    if (!this.exited) this.cli.end();
    void this.server.close();
    rmSync(this.configFile, { force: true });
  }
}

/** The tool_result blocks of the request's last message when it is a user message, and its other blocks. */
function lastToolResults(req: NativeRequest): {
  results: NativeToolResultBlock[];
  others: NativeContentBlock[];
  index: number;
} {
  const index = req.messages.length - 1;
  const last = req.messages[index];
  if (last?.role !== 'user' || typeof last.content === 'string') return { results: [], others: [], index };
  const results = last.content.filter((b): b is NativeToolResultBlock => b.type === 'tool_result');
  const others = last.content.filter((b) => b.type !== 'tool_result');
  return { results, others, index };
}

/**
 * What the tool conversations need of the CLI backend (cli-backend.ts implements it): declared here, so this file
 * does not import the backend that imports it.
 */
export interface ToolConversationHost {
  readonly options: {
    config: Pick<Config, 'cliToolResultTimeoutMs' | 'cliMaxConcurrent' | 'dataDir'>;
    profile: Profile;
    usage?: Pick<UsageSink, 'cliRateLimit'>;
  };
  readonly live: LiveConversations<CliConversation>;
  readonly isClosing: boolean;
  readonly secretFiles: PromptFiles;
  keyOf(input: Pick<CliInput, 'args' | 'env' | 'systemPrompt'>): string;
  makeRoom(): void;
  prepareSpawn(): Promise<string>;
  startTracked(
    cliPath: string,
    input: Pick<CliInput, 'args' | 'env' | 'systemPrompt' | 'transcript'>,
    key: string,
  ): CliConversation;
  acquireSlot(signal: AbortSignal): Promise<() => void>;
  deadlines(signal: AbortSignal): ChatDeadlines;
  endError(error: ProxyError | undefined, end: ConversationEnd, stderrTail: string): ProxyError;
  admitSocket(): (() => void) | false;
  /** Where this request's CLI rate-limit events go: the ledger and the request's own billing facts. */
  rateLimitSink(signal: AbortSignal): Pick<UsageSink, 'cliRateLimit'> | undefined;
}

export class CliToolConversations {
  private readonly parked = new Set<ToolConversation>();
  private readonly live = new Set<ToolConversation>();
  /** The tool conversation of each CLI process (a live one comes back from the registry as its CliConversation). */
  private readonly byCli = new WeakMap<CliConversation, ToolConversation>();

  constructor(private readonly host: ToolConversationHost) {}

  /** Parked conversations (for health and tests). */
  parkedCount(): number {
    return this.parked.size;
  }

  /** Shutdown: every conversation ends. */
  closeAll(): void {
    for (const conv of [...this.live]) conv.end();
    this.parked.clear();
  }

  /**
   * Answers a chat that offers the client's tools. `makeInput` gives the CLI input the request would get without
   * them (the tool flags are added here); it is called, and its input errors thrown, before anything starts.
   */
  stream(
    req: NativeRequest,
    makeInput: (req: NativeRequest) => CliInput,
    plan: ClientToolPlan,
    signal: AbortSignal,
    log: Logger,
    resultsReturn = true,
  ): AsyncGenerator<NativeStreamEvent> {
    const { results, others, index } = lastToolResults(req);
    // A process continues only what is really its conversation: the same spawn-time settings (model, system prompt,
    // tools, max_tokens, thinking: the key) and every earlier message byte for byte (conversation-history.ts). Tool
    // results that match no waiting process by both, forged or from an edited history, start a fresh process.
    const inputs = cliInputs(req, makeInput, (head) => {
      const key = this.keyFor(head, plan);
      return (
        (results.length > 0 && this.findParked(key, req.messages) !== undefined) ||
        (head.turn !== undefined && this.host.live.canContinue(key, req.messages))
      );
    });
    const key = this.keyFor(inputs.head, plan);
    const fresh = () => this.open(req, inputs.full(), plan, key, log);
    const conv = results.length > 0 ? this.findParked(key, req.messages) : undefined;
    if (conv) {
      // Convert every result first: a bad one is the client's 400, and the conversation stays parked for a retry.
      const answers = this.answersFor(conv, results, others, index);
      this.parked.delete(conv);
      clearTimeout(conv.deadline);
      // The results are handed over only once the turn holds a child slot: the CLI calls the provider as soon as it
      // has them, and an answer nobody can read must not be billed (drive re-parks it when no slot comes).
      const resume = () => {
        for (const [id, result] of answers) conv.server.answer(id, result);
        conv.cli.resume(Date.now());
        log.debug({ pid: conv.pid, results: answers.length }, 'tool results handed to a waiting assistant CLI');
        return Promise.resolve(conv);
      };
      // Should its process have died while it waited (before the exit was seen), the results go to a fresh process
      // with the whole conversation, as results no process waits for do.
      return this.drive(req, resume, signal, log, resultsReturn, conv, {
        fresh,
        continued: false,
        parked: conv.waitingFor,
      });
    }
    // A finished tool loop kept as a live conversation, which this request continues by one user turn.
    const continued = inputs.head.turn !== undefined ? this.host.live.takeContinuation(key, req.messages) : undefined;
    const tool = continued && this.byCli.get(continued);
    if (continued && tool) {
      continued.write(inputs.head.turn!);
      log.debug({ pid: tool.pid }, 'a live assistant CLI with the client tools continues');
      return this.drive(req, () => Promise.resolve(tool), signal, log, resultsReturn, tool, { fresh, continued: true });
    }
    continued?.end();
    inputs.full();
    return this.drive(req, fresh, signal, log, resultsReturn);
  }

  /**
   * What a tool conversation is started with, as a live-conversation key: the arguments with its own MCP config
   * replaced by the tools it offers (a later request with the same tools, prompt and settings may continue it).
   */
  private keyFor(input: CliInput, plan: ClientToolPlan): string {
    const tools = createHash('sha256')
      .update(JSON.stringify([plan.tools, plan.instruction ?? '']))
      .digest('hex');
    return this.host.keyOf({ ...input, args: [...input.args, '\0client-tools', tools] });
  }

  /** The MCP result for every id the conversation waits for; a missing one is an error result saying so. */
  private answersFor(
    conv: ToolConversation,
    results: NativeToolResultBlock[],
    others: NativeContentBlock[],
    index: number,
  ): Array<[string, McpCallResult]> {
    const byId = new Map(results.map((r, j) => [r.tool_use_id, { block: r, j }]));
    const out: Array<[string, McpCallResult]> = conv.waitingFor.map((id) => {
      const found = byId.get(id);
      if (!found)
        return [id, { content: [{ type: 'text', text: 'The client sent no result for this call.' }], isError: true }];
      return [id, toolResultToMcp(found.block, `messages.${index}.content.${found.j}`)];
    });
    // Text the client sent beside its results (some agents add notes to the same message) would otherwise be lost:
    // it goes with the last result.
    const extra = others.flatMap((b) =>
      b.type === 'text' && b.text !== '' ? [{ type: 'text' as const, text: b.text }] : [],
    );
    if (extra.length > 0 && out.length > 0) out[out.length - 1][1].content.push(...extra);
    return out;
  }

  /** The parked conversation this request's tool results belong to: same key, same history plus the results. */
  private findParked(key: string, messages: NativeRequest['messages']): ToolConversation | undefined {
    for (const conv of this.parked)
      if (conv.cli.key === key && !conv.exited && continuesHistory(conv.cli.history, messages)) return conv;
    return undefined;
  }

  private park(conv: ToolConversation, ids: string[], log: Logger): void {
    if (conv.exited) {
      conv.end();
      return;
    }
    const { config } = this.host.options;
    conv.waitingFor = ids;
    conv.cli.suspend(Date.now());
    conv.releaseSlot();
    this.parked.add(conv);
    conv.deadline = setTimeout(() => {
      log.info(
        { pid: conv.pid, waitedMs: config.cliToolResultTimeoutMs },
        'no tool results came back in time (CLI_TOOL_RESULT_TIMEOUT_MS); the assistant CLI is ended',
      );
      this.parked.delete(conv);
      conv.end();
    }, config.cliToolResultTimeoutMs);
    conv.deadline.unref();
    // A cap on processes kept for clients that may never come back: the oldest goes first.
    while (this.parked.size > config.cliMaxConcurrent) {
      const oldest = this.parked.values().next().value as ToolConversation;
      this.parked.delete(oldest);
      log.info(
        { pid: oldest.pid },
        'too many assistant CLIs wait for tool results (CLI_MAX_CONCURRENT); the oldest is ended',
      );
      oldest.end();
    }
  }

  /** Starts the CLI with the client's tools behind a fresh MCP server. */
  private async open(
    req: NativeRequest,
    input: CliInput,
    plan: ClientToolPlan,
    key: string,
    log: Logger,
  ): Promise<ToolConversation> {
    const { profile, config } = this.host.options;
    const t = profile.cli.clientTools;
    const iso = profile.cli.isolation;
    const cliPath = await this.host.prepareSpawn();
    let server: ClientToolServer;
    try {
      server = await ClientToolServer.start({
        tools: plan.tools,
        secretHeader: t.secretHeader,
        toolUseIdMeta: t.toolUseIdMeta,
        admit: () => this.host.admitSocket(),
      });
    } catch (err) {
      // Out of descriptors or ports: the machine's limit, not the request's fault (a clear 503, never a crash).
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new ProxyError(
        'unavailable',
        `The client tools' server for the assistant CLI could not be started (${code}); retry shortly`,
        { retryAfter: 5 },
      );
    }
    let configFile: string | undefined;
    try {
      // Owner-only in the data directory (prompt-files.ts), removed with the conversation, swept after a crash. The
      // CLI's own per-call limit stays above ours, so the proxy's deadline decides (and says so).
      try {
        configFile = this.host.secretFiles.write(
          mcpConfigJson(t, server.url, server.secret, config.cliToolResultTimeoutMs + 60_000),
        );
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw new ProxyError(
          'internal',
          `Cannot write the MCP config file under ${config.dataDir} (${code}); set DATA_DIR to a directory the proxy may create`,
        );
      }
      // Isolation gave the CLI an empty MCP config; this conversation's server takes its place (with CLI_USER_SETUP on,
      // it comes beside the user's own servers). Built-in tools are already off (`--tools ""`).
      const args = [...input.args];
      const at = args.indexOf(iso.mcpConfigFlag);
      if (at >= 0) args[at + 1] = configFile;
      else args.push(iso.mcpConfigFlag, configFile);
      // No client text on the command line, which every local user can read (docs/security.md): the rule allows the
      // whole per-conversation server by its fixed name rather than listing the client's tool names, and the
      // tool_choice instruction (it names a tool) goes into the system prompt file.
      args.push(profile.cli.allowedToolsFlag, `${t.toolPrefix}${t.serverName}`);
      const systemPrompt = plan.instruction ? `${input.systemPrompt}\n\n${plan.instruction}` : input.systemPrompt;
      this.host.makeRoom();
      const cli = this.host.startTracked(cliPath, { ...input, args, systemPrompt }, key);
      cli.write(input.stdin);
      this.host.live.track(cli);
      const conv = new ToolConversation(cli, server, configFile, plan);
      this.byCli.set(cli, conv);
      this.live.add(conv);
      void cli.exited.then(() => {
        conv.exited = true;
        conv.releaseSlot();
        this.live.delete(conv);
        // A parked process that exits (a crash, a signal) can no longer take results: the next request starts afresh.
        if (this.parked.delete(conv)) log.debug({ pid: cli.pid }, 'a waiting assistant CLI exited');
        conv.end();
      });
      log.debug(
        { pid: cli.pid, model: req.model, tools: plan.tools.length },
        'assistant CLI started with the client tools',
      );
      return conv;
    } catch (err) {
      void server.close();
      if (configFile) rmSync(configFile, { force: true });
      throw err;
    }
  }

  /** After a final answer: kept for a follow-up user turn when the request ended on a user turn (not a prefill). */
  private keep(conv: ToolConversation, req: NativeRequest, answer: AnswerRecord): boolean {
    if (this.host.isClosing || req.messages.at(-1)?.role !== 'user') return false;
    return this.host.live.keep(conv.cli, historyAfterTurn(req.messages, answer));
  }

  /**
   * One client answer from the conversation's process: until its `result`, or until it calls client tools. `taken`
   * is a conversation the request already took (resumed or continued): it ends if the request fails early, and when
   * its process turns out to have died before it answered anything, `fallback.fresh` starts the one fresh process that
   * answers instead (docs/tool-mode.md "Live conversations"); `fallback.continued` says `taken` was a live
   * conversation continued by a user turn (rather than one waiting for tool results).
   */
  private async *drive(
    req: NativeRequest,
    getConv: () => Promise<ToolConversation>,
    signal: AbortSignal,
    log: Logger,
    resultsReturn: boolean,
    taken?: ToolConversation,
    fallback?: { fresh: () => Promise<ToolConversation>; continued: boolean; parked?: string[] },
  ): AsyncGenerator<NativeStreamEvent> {
    const { profile } = this.host.options;
    const usage = this.host.rateLimitSink(signal);
    const deadlines = this.host.deadlines(signal);
    let release: (() => void) | undefined;
    let conv: ToolConversation | undefined;
    let outcome: 'failed' | 'finished' | 'paused' = 'failed';
    let pausedFor: string[] = [];
    let pauseUsage: NativeUsage | undefined;
    const answer = new AnswerRecorder();
    try {
      let open = getConv;
      for (;;) {
        release ??= await this.host.acquireSlot(deadlines.signal);
        if (deadlines.signal.aborted) throw deadlines.signal.reason;
        conv = await open();
        const running = conv;
        running.slot = release;
        release = undefined;
        if (running.exited) running.releaseSlot();
        deadlines.markRunning();
        const offStop = deadlines.onStop(() => running.end());

        const state = createCliTranslateState({
          model: req.model,
          notLoggedInPattern: profile.cli.notLoggedInPattern,
          loginHint: profile.cli.loginHint,
          clientToolNames: running.plan.clientToolNames,
          ...(running.reported ? { usageBase: running.reported } : {}),
        });
        const opening = new OpeningHold();
        try {
          for (;;) {
            const item = await running.cli.next(deadlines.signal);
            if (item.kind === 'end') {
              if (running === taken && fallback && !opening.answered) {
                // Nothing reached the client yet: answered as a request no live process waits for.
                log.warn(
                  { pid: running.pid, exitCode: item.end.exitCode, signal: item.end.signal },
                  'the assistant CLI kept for this conversation had died; a fresh one answers with the whole conversation',
                );
                // Its slot is freed when its exit is seen; the fresh process takes one anew.
                await running.cli.exited;
                this.host.live.lost(taken.cli, fallback.continued);
                running.end();
                open = fallback.fresh;
                break;
              }
              if (running.cli.hung)
                throw new ProxyError(
                  'unavailable',
                  `The assistant CLI stopped making progress (${running.cli.hung}) and was ended`,
                  { retryAfter: 1 },
                );
              const end = finishCliLines(state);
              throw this.host.endError(end.error, item.end, running.cli.stderrTail);
            }
            const step = stepLine(item.line, state, deadlines, log, usage)?.step;
            if (!step) continue;
            if (step.error) throw step.error;
            for (const event of step.events) {
              const before = opening.admit(event, () => deadlines.markAnswering());
              if (!before) continue;
              yield* before;
              answer.add(event);
              if (event.type === 'message_delta' && step.pause) pauseUsage = { input_tokens: 0, ...event.usage };
              yield event;
            }
            if (step.pause || step.done) yield* opening.release();
            if (step.pause) {
              outcome = 'paused';
              pausedFor = step.pause;
              return;
            }
            if (step.done) {
              outcome = 'finished';
              return;
            }
          }
        } finally {
          offStop();
        }
      }
    } finally {
      deadlines.dispose();
      release?.();
      // A request that failed before it read anything (no slot within the deadline, the client gone, a full queue)
      // must not leave the conversation it took running unowned.
      // A parked one whose results were not handed over yet (no slot came) is parked again for the client's retry.
      if (!conv && taken) {
        if (fallback?.parked && !taken.exited && !this.host.isClosing) this.park(taken, fallback.parked, log);
        else taken.end();
      }
      if (conv) {
        // The CLI's `result` counts one turn (measured with the real CLI: a second turn's usage is its own), so what
        // this turn's earlier answers reported is forgotten when it finishes.
        if (outcome === 'finished') conv.reported = undefined;
        if (outcome === 'paused' && !deadlines.signal.aborted && resultsReturn) {
          if (pauseUsage) conv.reported = addUsage(conv.reported, pauseUsage);
          // What it has seen: the request's messages and this answer with its tool calls; only a request with
          // exactly this history plus the results may resume it.
          conv.cli.history = historyAfterTurn(req.messages, answer.record());
          this.park(conv, pausedFor, log);
        } else if (outcome === 'finished' && this.keep(conv, req, answer.record())) {
          // Kept as a live conversation (docs/tool-mode.md "Live conversations"): idle, its slot free, its MCP server
          // up for the tools of the next turn.
          conv.releaseSlot();
        } else if (outcome === 'finished') {
          // Its input is closed, so the CLI exits by itself after its turn.
          const done = conv;
          done.cli.endInput();
          setTimeout(() => done.end(), lingerAfterResultMs).unref();
        } else {
          conv.end();
        }
      }
    }
  }
}
