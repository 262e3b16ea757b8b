// Tool mode's engine (docs/tool-mode.md "Flow", "Live conversations", "Process hygiene"): the child slots (a cap on
// turns at once with a bounded queue, child-slots.ts), the one registry of CLI processes in every state
// (processes.ts) and the warm pool's policy over it (warm-pool.ts), the one place processes are started (process-starter.ts), and the one turn loop
// (turn.ts), which a chat runs with the source that fits it: plain (plain-turns.ts) or with the client's own tools
// (tool-turns.ts). A request's stop signal and deadlines come from chat-deadlines.ts; shutdown aborts every chat and
// ends every process.

import { join } from 'node:path';
import { ProxyError } from '../../errors.js';
import type { NativeRequest, NativeStreamEvent } from '../../formats/native.js';
import type { Profile } from '../../profile.js';
import type { CliRetry } from '../../translate/cli-events-to-native-events.js';
import { nativeRequestToCliInput } from '../../translate/native-request-to-cli-input.js';
import { planClientTools } from '../../translate/native-tools-to-mcp.js';
import type { BillingFacts } from '../../usage/types.js';
import type { BackendContext } from '../backend.js';
import { ChatDeadlines, endError, firstEventError, type ChatPhase } from './chat-deadlines.js';
import { ChildSlots } from './child-slots.js';
import { cliInputs } from './cli-inputs.js';
import type { CliConversation, ConversationEnd } from './cli-conversation.js';
import { killGraceMs } from './end-child.js';
import type { CliBackendOptions } from './options.js';
import { plainTurns } from './plain-turns.js';
import { procRss } from './proc-facts.js';
import { CliProcesses } from './processes.js';
import { ProcessStarter } from './process-starter.js';
import { PromptFiles } from './prompt-files.js';
import { fromSpec, keyOf, specKey } from './spec.js';
import { toolTurns } from './tool-turns.js';
import type { ToolSession } from './tool-session.js';
import { runTurn, type TurnBilling, type TurnHost } from './turn.js';
import { WarmPool } from './warm-pool.js';

export class CliEngine implements TurnHost {
  readonly slots: ChildSlots;
  readonly starter: ProcessStarter;
  /** Every CLI process, warm, busy, idle or waiting for tool results, until it ends (processes.ts). */
  readonly registry: CliProcesses<CliConversation>;
  /** Which warm processes to start ahead of requests (warm-pool.ts, docs/performance.md "Warm CLI pool"). */
  readonly pool: WarmPool<CliConversation>;
  /** The tool session of each process that offers the client's tools (tool-session.ts). */
  readonly sessions = new WeakMap<CliConversation, ToolSession>();
  /** Owner-only files for secrets (MCP configs) in the data directory, swept at start. */
  readonly secretFiles: PromptFiles;
  readonly profile: Profile;
  readonly dataDir: string;
  readonly toolResultTimeoutMs: number;
  /** Every CLI process a request started or took, until it has exited (close() ends them). */
  private readonly children = new Set<CliConversation>();
  private readonly active = new Set<AbortController>();
  /** Each request's observer of who pays, by the request's signal: the CLI's rate_limit_event reaches it too. */
  private readonly billing = new WeakMap<AbortSignal, BillingFacts>();
  private socketAdmission: (() => (() => void) | false) | undefined;
  closing = false;

  constructor(private readonly opts: CliBackendOptions) {
    const { config, profile } = opts;
    this.profile = profile;
    this.dataDir = config.dataDir;
    this.toolResultTimeoutMs = config.cliToolResultTimeoutMs;
    // CLI_LIVE_MAX bounds every CLI process, busy ones included: turns running at once are never more than it, so a
    // request can always make room by ending a process nobody is reading (processes.ts startWithRoom).
    const running =
      config.cliLiveMax > 0 ? Math.min(config.cliMaxConcurrent, config.cliLiveMax) : config.cliMaxConcurrent;
    this.slots = new ChildSlots(running, config.cliQueueSize);
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
    this.pool = new WarmPool<CliConversation>({
      size: config.cliPoolSize,
      idleMs: config.cliPoolIdleMs,
      registry: this.registry,
      spawn: (spec) => this.starter.start(this.starter.cliPath(), fromSpec(spec), specKey(spec)),
      maxRssBytes: config.cliLiveMaxMb * 1024 * 1024,
      modelFlag: profile.cli.modelFlag,
    });
  }

  /** A chat: its input errors are thrown here, before any slot or process is taken. */
  stream(req: NativeRequest, signal: AbortSignal, context: BackendContext): AsyncIterable<NativeStreamEvent> {
    if (context.billing) this.billing.set(signal, context.billing);
    const log = context.logger ?? this.opts.logger;
    const { profile, config } = this.opts;
    const tools = planClientTools(req, profile.cli.clientTools);
    if (tools) {
      // The client's own tools: the CLI's built-in ones are off and the configured tool rules do not apply.
      const make = (r: NativeRequest) => nativeRequestToCliInput(r, { profile, userSetup: config.cliUserSetup });
      const source = toolTurns(this, req, make, tools, log, context.toolResultsReturn !== false, context.link);
      return runTurn(this, req, source, signal, log, context.whole);
    }
    const options = { profile, builtInTools: this.starter.builtInTools(), userSetup: config.cliUserSetup };
    const inputs = cliInputs(
      req,
      (r) => nativeRequestToCliInput(r, options),
      (head) => head.turn !== undefined && this.registry.canContinue(keyOf(head), req.messages, context.link?.previous),
    );
    return runTurn(this, req, plainTurns(this, req, inputs, context.link), signal, log, context.whole);
  }

  /**
   * Starts a process with `start` once there is room for it under CLI_LIVE_MAX (docs/tool-mode.md "Caps"), registered
   * busy; or a 503 saying why not.
   */
  async startWithRoom(start: () => CliConversation, signal: AbortSignal): Promise<CliConversation> {
    const proc = await this.registry.startWithRoom(start, signal);
    if (proc) return proc;
    throw new ProxyError(
      'unavailable',
      `All ${this.opts.config.cliLiveMax} assistant CLI processes are answering (setting CLI_LIVE_MAX); retry shortly`,
      { retryAfter: 5 },
    );
  }

  acquireSlot(signal: AbortSignal): Promise<() => void> {
    return this.slots.acquire(signal);
  }

  /** A request's stop signal and deadlines (chat-deadlines.ts), registered so that shutdown aborts it. */
  deadlines(signal: AbortSignal): ChatDeadlines {
    const { config } = this.opts;
    return new ChatDeadlines(signal, {
      firstEventMs: config.cliFirstTokenTimeoutMs,
      requestMs: config.requestTimeoutMs,
      firstEventError: (phase, retry) => this.firstEventError(phase, retry),
      track: (stop) => {
        this.active.add(stop);
        return () => this.active.delete(stop);
      },
    });
  }

  /** Where a request's rate_limit_event lines go: the ledger's quota windows, and the request's own observer. */
  rateLimitSink(signal: AbortSignal): TurnBilling | undefined {
    const billing = this.billing.get(signal);
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

  own(proc: CliConversation): void {
    if (this.children.has(proc)) return;
    this.children.add(proc);
    void proc.exited.then(() => this.children.delete(proc));
  }

  lost(proc: CliConversation, continued: boolean): void {
    this.registry.lost(proc, continued);
  }

  /** stdout ended: the translator's verdict, with the exit code and stderr when the CLI died without a result. */
  endError(error: ProxyError | undefined, end: ConversationEnd, stderrTail: string): ProxyError {
    return endError(error, end, stderrTail, this.opts.profile.cli.installHint);
  }

  /** How the MCP servers' sockets count in the proxy's connection cap (server.ts); false refuses one. */
  admitSockets(admit: () => (() => void) | false): void {
    this.socketAdmission = admit;
  }

  admitSocket(): (() => void) | false {
    return this.socketAdmission ? this.socketAdmission() : () => undefined;
  }

  /** Children alive right now. */
  childCount(): number {
    return this.children.size;
  }

  /** Shutdown: refuse new chats, end every child (SIGTERM, then SIGKILL), wait until they are gone. */
  async close(): Promise<void> {
    this.closing = true;
    this.slots.close();
    this.pool.close();
    const processes = this.registry.close();
    const reason = new ProxyError('unavailable', 'The proxy is shutting down');
    for (const stop of this.active) stop.abort(reason);
    for (const child of this.children) child.end();
    const exited = Promise.allSettled([...[...this.children].map((c) => c.exited), processes]);
    await Promise.race([exited, new Promise((r) => setTimeout(r, killGraceMs + 1000).unref())]);
    this.starter.close();
    this.secretFiles.close();
  }

  /** The first-event deadline passed: say why, faithfully (a retrying CLI reports the provider's status). */
  private firstEventError(phase: ChatPhase, retry: CliRetry | undefined): ProxyError {
    const { config, profile } = this.opts;
    const errors = { notLoggedInPattern: profile.cli.notLoggedInPattern, loginHint: profile.cli.loginHint };
    return firstEventError(phase, retry, config.cliFirstTokenTimeoutMs, this.slots.counts(), errors);
  }
}
