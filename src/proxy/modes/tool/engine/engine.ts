// Tool mode's engine (docs/tool-mode.md "Flow", "Live conversations", "Process hygiene"): the child slots (a cap on
// turns at once with a bounded queue, child-slots.ts), the one registry of CLI processes in every state
// (processes.ts) and the warm pool's policy over it (warm-pool.ts), the one place processes are started (process-starter.ts), and the one turn loop
// (turn.ts), which a chat runs with the source that fits it: plain (plain-turns.ts) or with the client's own tools
// (tool-turns.ts). A request's stop signal and deadlines come from chat-deadlines.ts; shutdown aborts every chat and
// ends every process.

import { join } from 'node:path';
import { ProxyError } from '../../../errors.js';
import type { NativeRequest, NativeStreamEvent } from '../../../formats/native.js';
import type { CliRetry } from '../translate/cli-events-to-native-events.js';
import { nativeRequestToCliInput, type CliInputOptions } from '../translate/native-request-to-cli-input.js';
import { planClientTools } from '../translate/native-tools-to-mcp.js';
import type { BillingFacts } from '../../../usage/types.js';
import type { BackendContext } from '../../../chat/backend.js';
import { endError, firstEventError, type ChatDeadlinesOptions, type ChatPhase } from './chat-deadlines.js';
import { ChildSlots, type SlotCounts } from './child-slots.js';
import type { CliConversation } from './cli-conversation.js';
import { killGraceMs } from './end-child.js';
import type { CliBackendOptions } from './options.js';
import { plainTurns } from './plain-turns.js';
import { procRss } from './proc-facts.js';
import { CliProcesses, historyToKeep, type LiveConversationsSnapshot } from './processes.js';
import { ProcessStarter } from './process-starter.js';
import { PromptFiles } from './prompt-files.js';
import { planRequest } from './request-plan.js';
import { keyOf, type ProcessSpec } from './spec.js';
import { toolTurns } from './tool-turns.js';
import type { ToolSessionHost } from './tool-session.js';
import type { TurnCapabilities } from './turn-capabilities.js';
import { runTurn, type TurnBilling, type TurnHost, type TurnRequest } from './turn.js';
import { WarmPool, type CliPoolSnapshot } from './warm-pool.js';

export class CliEngine {
  private readonly slots: ChildSlots;
  private readonly starter: ProcessStarter;
  /** Every CLI process, warm, busy, idle or waiting for tool results, until it has exited (processes.ts). */
  private readonly registry: CliProcesses<CliConversation>;
  /** Which warm processes to start ahead of requests (warm-pool.ts, docs/performance.md "Warm CLI pool"). */
  private readonly pool: WarmPool<CliConversation, ProcessSpec>;
  /** Owner-only files for secrets (MCP configs) in the data directory, swept at start. */
  private readonly secretFiles: PromptFiles;
  private readonly active = new Set<AbortController>();
  /** A request's deadlines (chat-deadlines.ts), its stop controller registered so that shutdown aborts it. */
  private readonly deadlines: ChatDeadlinesOptions;
  /** What the turn loop, the turn sources and the tool sessions may do (turn.ts, turn-capabilities.ts). */
  private readonly host: TurnHost;
  private readonly can: TurnCapabilities;
  private readonly sessions: ToolSessionHost;
  private socketAdmission: (() => (() => void) | false) | undefined;
  private closing = false;

  constructor(private readonly opts: CliBackendOptions) {
    const { config, profile } = opts;
    // CLI_LIVE_MAX bounds every CLI process, busy ones included: turns running at once are never more than it, so a
    // request can always make room by ending a process nobody is reading (processes.ts startWithRoom).
    const running =
      config.cliLiveMax > 0 ? Math.min(config.cliMaxConcurrent, config.cliLiveMax) : config.cliMaxConcurrent;
    this.slots = new ChildSlots(running, config.cliQueueSize);
    this.deadlines = {
      firstEventMs: config.cliFirstTokenTimeoutMs,
      requestMs: config.requestTimeoutMs,
      firstEventError: (phase, retry) => this.firstEventError(phase, retry),
      track: (stop) => {
        this.active.add(stop);
        return () => this.active.delete(stop);
      },
    };
    this.starter = new ProcessStarter(opts);
    // What a killed proxy left is swept at the next start; each config is removed with its process.
    this.secretFiles = new PromptFiles(join(config.dataDir, 'cli-mcp'), '.json');
    this.secretFiles.sweep();
    this.registry = new CliProcesses<CliConversation>({
      max: config.cliLiveMax,
      idleMs: config.cliLiveIdleMs,
      warmMs: config.cliPoolIdleMs,
      maxRssBytes: config.cliLiveMaxMb * 1024 * 1024,
      rssOf: procRss,
      fingerprint: () => this.starter.fingerprint(),
      onWarmEnded: (c, why) => this.pool.ended(c, why),
      waitMs: config.cliToolResultTimeoutMs,
      maxWaiting: config.cliMaxConcurrent,
      onWaitEnded: (c, why) =>
        opts.logger.info(
          { pid: c.pid, waitedMs: config.cliToolResultTimeoutMs },
          why === 'expired'
            ? 'no tool results came back in time (CLI_TOOL_RESULT_TIMEOUT_MS); the assistant CLI is ended'
            : 'too many assistant CLIs wait for tool results (CLI_MAX_CONCURRENT); the oldest is ended',
        ),
    });
    this.pool = new WarmPool<CliConversation, ProcessSpec>({
      size: config.cliPoolSize,
      idleMs: config.cliPoolIdleMs,
      registry: this.registry,
      spawn: (spec, key) => this.starter.start(this.starter.cliPath(), spec, key),
      argsOf: (spec) => spec.args,
      maxRssBytes: config.cliLiveMaxMb * 1024 * 1024,
      modelFlag: profile.cli.modelFlag,
    });
    this.host = {
      profile,
      acquireSlot: (signal) => this.slots.acquire(signal),
      lost: (proc, continued) => this.registry.lost(proc, continued),
      endError: (error, end, stderrTail) => endError(error, end, stderrTail, profile.cli.installHint),
    };
    this.can = this.capabilities();
    this.sessions = {
      profile,
      dataDir: config.dataDir,
      toolResultTimeoutMs: config.cliToolResultTimeoutMs,
      secretFiles: this.secretFiles,
      admitSocket: () => (this.socketAdmission ? this.socketAdmission() : () => undefined),
    };
  }

  /** A chat: its input errors are thrown here, before any slot or process is taken. */
  stream(req: NativeRequest, signal: AbortSignal, context: BackendContext): AsyncIterable<NativeStreamEvent> {
    const { profile, config } = this.opts;
    const turn: TurnRequest = {
      req,
      signal,
      log: context.logger ?? this.opts.logger,
      billing: this.billingSink(context.billing),
      deadlines: this.deadlines,
      whole: context.whole ?? false,
    };
    const { link } = context;
    const tools = planClientTools(req, profile.cli.clientTools);
    if (tools) {
      // The client's own tools: the CLI's built-in ones are off and the configured tool rules do not apply.
      const options: CliInputOptions = { profile, userSetup: config.cliUserSetup };
      const make = (r: NativeRequest) => nativeRequestToCliInput(r, options);
      const plan = (key: (spec: ProcessSpec) => string, continuable: Parameters<typeof planRequest>[3]) =>
        planRequest(req, make, key, continuable);
      const resultsReturn = context.toolResultsReturn !== false;
      return runTurn(this.host, turn, toolTurns(this.can, this.sessions, turn, plan, tools, resultsReturn, link));
    }
    const options = { profile, builtInTools: this.starter.builtInTools(), userSetup: config.cliUserSetup };
    const make = (r: NativeRequest) => nativeRequestToCliInput(r, options);
    const plan = planRequest(req, make, keyOf, (p) => p.turn !== undefined && this.can.canContinue(p, link));
    // A conversation nothing continues (a compaction's summary) ends with its answer instead of resting idle.
    const can = context.once ? Object.create(this.can, { keep: { value: () => false } }) : this.can;
    return runTurn(this.host, turn, plainTurns(can as TurnCapabilities, plan, link));
  }

  /** The conversation that answered `previous` was compacted (Backend.release). */
  release(previous: string): boolean {
    return this.registry.release(previous);
  }

  /** How the MCP servers' sockets count in the main listener's connection cap (listen/listeners.ts); false refuses one. */
  admitSockets(admit: () => (() => void) | false): void {
    this.socketAdmission = admit;
  }

  /** Children a request has read, alive right now (a warm process nobody took yet is not counted). */
  childCount(): number {
    return this.registry.list().filter((c) => c.taken).length;
  }

  /** Processes waiting for a client's tool results. */
  toolWaitingCount(): number {
    return this.registry.inState('waiting-for-tools').length;
  }

  slotCounts(): SlotCounts {
    return this.slots.counts();
  }

  poolSnapshot(): CliPoolSnapshot {
    return this.pool.snapshot();
  }

  liveSnapshot(): LiveConversationsSnapshot {
    return this.registry.snapshot();
  }

  /** Shutdown: refuse new chats, end every child (SIGTERM, then SIGKILL), wait until they are gone. */
  async close(): Promise<void> {
    this.closing = true;
    this.slots.close();
    this.pool.close();
    const processes = this.registry.close();
    const reason = new ProxyError('unavailable', 'The proxy is shutting down');
    for (const stop of this.active) stop.abort(reason);
    await Promise.race([processes, new Promise((r) => setTimeout(r, killGraceMs + 1000).unref())]);
    this.starter.close();
    this.secretFiles.close();
  }

  /** The verbs a turn source is given over the registry, the pool and the starter (turn-capabilities.ts). */
  private capabilities(): TurnCapabilities {
    const { registry, pool, starter } = this;
    const closing = () => this.closing;
    return {
      get closing() {
        return closing();
      },
      ready: () => starter.prepare(),
      continuation: (plan, link) => registry.takeContinuation(plan.key, plan.digests, link?.previous),
      canContinue: (plan, link) => registry.canContinue(plan.key, plan.digests, link?.previous),
      warm: (plan) => pool.take(plan.spec, plan.key),
      waiting: (plan, link) => registry.findWaiting(plan.key, plan.digests, link?.previous),
      resume: (proc) => registry.resume(proc),
      announced: (cliPath, input, signal) => starter.withAnnouncements(cliPath, input, signal),
      start: (cliPath, spec, key, signal) => this.startWithRoom(() => starter.start(cliPath, spec, key), signal),
      keep: (proc, history, link) =>
        this.rest(proc, link, () => registry.keep(proc, historyToKeep(link?.previous, history))),
      park: (proc, history, link) =>
        this.rest(proc, link, () => registry.park(proc, historyToKeep(link?.previous, history))),
    };
  }

  /** A process kept or parked after its turn is tied to the response it answered (a chain by id continues it). */
  private rest(proc: CliConversation, link: BackendContext['link'], keep: () => boolean): boolean {
    const kept = keep();
    if (kept && link) this.registry.answered(proc, link.id);
    return kept;
  }

  /**
   * Starts a process with `start` once there is room for it under CLI_LIVE_MAX (docs/tool-mode.md "Live
   * conversations"), registered busy; or a 503 saying why not.
   */
  private async startWithRoom(start: () => CliConversation, signal: AbortSignal): Promise<CliConversation> {
    const proc = await this.registry.startWithRoom(start, signal);
    if (proc) return proc;
    throw new ProxyError(
      'unavailable',
      `All ${this.opts.config.cliLiveMax} assistant CLI processes are answering (setting CLI_LIVE_MAX); retry shortly`,
      { retryAfter: 5 },
    );
  }

  /** Where a request's rate_limit_event lines go: the ledger's quota windows, and the request's own observer. */
  private billingSink(billing: BillingFacts | undefined): TurnBilling | undefined {
    const usage = this.opts.usage;
    if (!billing) return usage;
    return {
      cliRateLimit: (info) => {
        usage?.cliRateLimit(info);
        billing.cliRateLimit(info);
      },
      cliLaneCarried: (lane) => billing.cliLaneCarried(lane),
    };
  }

  /** The first-event deadline passed: say why, faithfully (a retrying CLI reports the provider's status). */
  private firstEventError(phase: ChatPhase, retry: CliRetry | undefined): ProxyError {
    const { config, profile } = this.opts;
    const errors = { notLoggedInPattern: profile.cli.notLoggedInPattern, loginHint: profile.cli.loginHint };
    return firstEventError(phase, retry, config.cliFirstTokenTimeoutMs, this.slots.counts(), errors);
  }
}
