// CliBackend (DESIGN.md `Backend`): a chat is one turn of an assistant CLI process in print mode with stream-json
// input and output and partial messages, so text streams token by token. Flags, system prompt and stdin come from
// native-request-to-cli-input.ts; every stdout line goes through formats/cli-events.ts parseCliLine and
// translate/cli-events-to-native-events.ts.
//
// Live conversations (docs/tool-mode.md "Live conversations"): the process is a CliConversation (cli-conversation.ts)
// that may outlive the request. A request whose messages continue a live conversation by one user message is
// written only that message (live-conversations.ts); otherwise a warm process of the pool (a conversation with no
// history, cli-pool.ts) or a new one is given the whole conversation. After a successful turn the process stays,
// idle, for the next turn; after a failure, a deadline or a gone client it is ended. A live process found dead when
// the follow-up is written to it (it died between turns, before the registry saw it exit) is dropped, and the
// request is answered by a fresh process with the whole conversation, once, since nothing was sent yet.
//
// Isolation (docs/tool-mode.md "Isolation"): children load none of the user's settings sources, MCP servers or
// session history unless CLI_USER_SETUP is on, and get their system prompt through an owner-only file
// (prompt-files.ts), never an argument.
//
// Hygiene (docs/tool-mode.md, STYLE.md habit 10): a cap on turns running at once with a bounded queue
// (child-slots.ts); the child runs in an app-owned working directory with the user's own environment plus a bound on
// the CLI's retries; two deadlines (first event, whole request, chat-deadlines.ts) so a client gets an error in
// seconds, not after the CLI's minutes of retries; a client that goes away, a deadline, or shutdown ends the child:
// SIGTERM, then SIGKILL after a grace period, to its whole process group. The slot is held until the turn ends and
// the process is kept, or until it has really exited.

import { rmSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Config } from '../config.js';
import { ProxyError } from '../errors.js';
import type { Backend, BackendContext } from './backend.js';
import type { NativeRequest, NativeStreamEvent } from '../formats/native.js';
import type { FindResult } from '../health/find-cli.js';
import type { Logger } from '../logger.js';
import type { Profile } from '../profile.js';
import { createCliTranslateState, finishCliLines, type CliRetry } from '../translate/cli-events-to-native-events.js';
import { AnswerRecorder, historyAfterTurn } from '../translate/conversation-history.js';
import {
  ChatDeadlines,
  endError,
  firstEventError,
  lingerAfterResultMs,
  stepLine,
  type ChatPhase,
} from './chat-deadlines.js';
import { cliChildEnv } from './child-env.js';
import { ChildSlots } from './child-slots.js';
import { CliConversation, type ConversationEnd } from './cli-conversation.js';
import { CliPool, filesFingerprint, procRss, type CliPoolSnapshot } from './cli-pool.js';
import { killGraceMs, processGroups } from './end-child.js';
import { LiveConversations, type LiveConversationsSnapshot } from './live-conversations.js';
import { OpeningHold } from './opening-hold.js';
import { PromptFiles } from './prompt-files.js';
import {
  nativeRequestToCliInput,
  type CliInput,
  type CliInputOptions,
} from '../translate/native-request-to-cli-input.js';
import { toolRulesToCliPermissions, type CliPermissions } from '../translate/tool-rules-to-cli-permissions.js';
import type { BillingFacts, UsageSink } from '../usage/types.js';
import { planClientTools } from '../translate/native-tools-to-mcp.js';
import { CliToolConversations } from './cli-tool-conversations.js';
import { cliInputs, type CliInputs } from './cli-inputs.js';
import { dyingWithParent } from './death-signal.js';

export interface CliBackendOptions {
  config: Pick<
    Config,
    | 'cliWorkDir'
    | 'cliAllowedTools'
    | 'cliDisallowedTools'
    | 'cliUnconfinedShell'
    | 'respapiCredentialsPath'
    | 'cliMaxRetries'
    | 'cliMaxConcurrent'
    | 'cliQueueSize'
    | 'cliFirstTokenTimeoutMs'
    | 'cliToolResultTimeoutMs'
    | 'requestTimeoutMs'
    | 'cliPoolSize'
    | 'cliPoolIdleMs'
    | 'credentialsPath'
    | 'dataDir'
    | 'cliUserSetup'
    | 'cliLiveMax'
    | 'cliLiveIdleMs'
    | 'cliLiveMaxMb'
  >;
  profile: Profile;
  logger: Logger;
  /** Where the CLI is, looked up per chat so a CLI installed while the proxy runs is found. */
  findCli: () => FindResult;
  /** The user's environment for the child (default process.env). */
  childEnv?: NodeJS.ProcessEnv;
  /** A fixed PATH (a GUI-launched app passes its login shell's). */
  envPath?: string;
  /** Receives the CLI's rate_limit_event lines (the quota windows, docs/usage.md). */
  usage?: Pick<UsageSink, 'cliRateLimit'>;
}

/**
 * What a process is started with, as one string list: the pool's key and a conversation's key. The per-request
 * environment (output limit, thinking budget) and the system prompt go in as entries that start with a NUL, which no
 * argument can hold (native-request-to-cli-input.ts refuses NUL in every argument that comes from a client).
 */
const envMark = '\0env:';
const systemMark = '\0system:';
/** What a process is started with: its flags, environment, system prompt, and the transcript it resumes, if any. */
export type SpawnInput = Pick<CliInput, 'args' | 'env' | 'systemPrompt' | 'transcript'>;

function toSpec(input: Pick<CliInput, 'args' | 'env' | 'systemPrompt'>): string[] {
  return [
    ...Object.entries(input.env).map(([k, v]) => `${envMark}${k}=${v}`),
    `${systemMark}${input.systemPrompt}`,
    ...input.args,
  ];
}
function fromSpec(spec: string[]): Pick<CliInput, 'args' | 'env' | 'systemPrompt'> {
  const env: Record<string, string> = {};
  const args: string[] = [];
  let systemPrompt = '';
  for (const item of spec) {
    if (item.startsWith(systemMark)) systemPrompt = item.slice(systemMark.length);
    else if (!item.startsWith(envMark)) args.push(item);
    else {
      const eq = item.indexOf('=');
      env[item.slice(envMark.length, eq)] = item.slice(eq + 1);
    }
  }
  return { args, env, systemPrompt };
}
const keyOf = (spec: string[]) => JSON.stringify(spec);

export class CliBackend implements Backend {
  private readonly slots: ChildSlots;
  /** Every CLI process a request started or took, until it has exited (close() ends them). */
  private readonly children = new Set<CliConversation>();
  private readonly active = new Set<AbortController>();
  private workDirReady = false;
  private closing = false;
  /** Warm CLI processes (cli-pool.ts, docs/performance.md "Warm CLI pool"): conversations with no history yet. */
  private readonly pool: CliPool<CliConversation>;
  /** Processes kept between turns (live-conversations.ts); CLI_LIVE_MAX=0 turns them off. */
  readonly live: LiveConversations<CliConversation>;
  private readonly prompts: PromptFiles;
  /** What the built-in tools may do (docs/security.md "The CLI's own tools"), and its settings file once written. */
  private readonly permissions: CliPermissions;
  private permissionsFile: string | undefined;
  private readonly mcpConfigs: PromptFiles;
  /** Transcripts of the earlier turns a fresh process resumes (docs/tool-mode.md "A fresh start"). */
  private readonly transcripts: PromptFiles;
  /** The login and settings a process starts under; a different value ends idle and warm processes. */
  private readonly fingerprint: () => string;
  /** Chats with the client's own tools, and their processes waiting for tool results (cli-tool-conversations.ts). */
  private readonly toolConversations = new CliToolConversations(this);
  /** Each request's observer of who pays, by the request's signal: the CLI's rate_limit_event reaches it too. */
  private readonly billing = new WeakMap<AbortSignal, BillingFacts>();

  constructor(private readonly opts: CliBackendOptions) {
    const { config, profile } = opts;
    // CLI_LIVE_MAX bounds every CLI process, busy ones included: turns running at once are never more than it, so a
    // request can always make room by ending a process nobody is reading (live-conversations.ts makeRoom).
    const running =
      config.cliLiveMax > 0 ? Math.min(config.cliMaxConcurrent, config.cliLiveMax) : config.cliMaxConcurrent;
    this.slots = new ChildSlots(running, config.cliQueueSize);
    this.prompts = new PromptFiles(join(config.dataDir, 'cli-prompts'));
    this.permissions = toolRulesToCliPermissions({
      profile,
      allowedTools: config.cliAllowedTools,
      disallowedTools: config.cliDisallowedTools,
      unconfinedShell: config.cliUnconfinedShell,
      deniedDirs: [resolve(config.dataDir)],
      deniedFiles: [resolve(config.credentialsPath), resolve(config.respapiCredentialsPath)],
      workDir: resolve(config.cliWorkDir),
    });
    if (this.permissions.refused.length > 0) {
      opts.logger.warn(
        { refused: this.permissions.refused },
        'CLI_ALLOWED_TOOLS names tools that run commands as you, past every file rule; they are not offered unless CLI_UNCONFINED_SHELL=true (docs/security.md)',
      );
    }
    // The MCP configs of tool conversations hold a secret: owner-only in the data directory, never a shared temporary
    // one, each removed with its conversation; what a killed proxy left is swept at the next start, below.
    this.mcpConfigs = new PromptFiles(join(config.dataDir, 'cli-mcp'), '.json');
    this.transcripts = new PromptFiles(join(config.dataDir, 'cli-transcripts'), '.jsonl');
    this.prompts.sweep();
    this.mcpConfigs.sweep();
    this.transcripts.sweep();
    // A new login (the credential file rewritten), another CLI binary or another environment replaces processes.
    const fingerprint = () =>
      filesFingerprint([config.credentialsPath], {
        cli: opts.findCli().path,
        env: this.childEnv(),
        cwd: config.cliWorkDir,
      });
    this.fingerprint = fingerprint;
    const maxRssBytes = config.cliLiveMaxMb * 1024 * 1024;
    this.pool = new CliPool<CliConversation>({
      size: config.cliPoolSize,
      idleMs: config.cliPoolIdleMs,
      spawn: (spec) => this.startProcess(this.cliPath(), fromSpec(spec), keyOf(spec)),
      end: (c) => c.end(),
      fingerprint,
      maxRssBytes,
      rssOf: procRss,
      modelFlag: profile.cli.modelFlag,
      room: () => this.live.hasRoom(),
    });
    this.live = new LiveConversations<CliConversation>({
      max: config.cliLiveMax,
      idleMs: config.cliLiveIdleMs,
      maxRssBytes,
      rssOf: procRss,
      otherRssBytes: () => this.pool.snapshot().rssBytes ?? 0,
      fingerprint,
      others: { count: () => this.pool.warmCount(), endOldest: () => this.pool.endOldest() },
    });
  }

  private socketAdmission: (() => (() => void) | false) | undefined;

  /**
   * How the per-conversation MCP servers' sockets are counted in the proxy's connection cap (server.ts): each socket
   * asks, and is refused when the answer is false; otherwise the returned function is called when it closes.
   */
  admitSockets(admit: () => (() => void) | false): void {
    this.socketAdmission = admit;
  }

  /** The admission of one MCP socket (always admitted when no cap was given). */
  admitSocket(): (() => void) | false {
    return this.socketAdmission ? this.socketAdmission() : () => undefined;
  }

  /** Owner-only files for secrets (MCP configs) in the data directory, for cli-tool-conversations.ts. */
  get secretFiles(): PromptFiles {
    return this.mcpConfigs;
  }

  /** The warm pool's counts and memory, for /health/detailed and the window. */
  poolSnapshot(): CliPoolSnapshot {
    return this.pool.snapshot();
  }

  /** Live conversations, for /health/detailed and the window. */
  liveSnapshot(): LiveConversationsSnapshot {
    return this.live.snapshot();
  }

  /** Where a request's rate_limit_event lines go: the ledger's quota windows, and the request's own observer. */
  rateLimitSink(signal: AbortSignal): Pick<UsageSink, 'cliRateLimit'> | undefined {
    const billing = this.billing.get(signal);
    if (!billing) return this.opts.usage;
    const usage = this.opts.usage;
    return {
      cliRateLimit: (info) => {
        usage?.cliRateLimit(info);
        billing.cliRateLimit(info);
      },
    };
  }

  /** The options this backend was built with (for cli-tool-conversations.ts). */
  get options(): CliBackendOptions {
    return this.opts;
  }

  /** Processes waiting for a client's tool results (for tests and health). */
  toolWaitingCount(): number {
    return this.toolConversations.parkedCount();
  }

  /** Children alive right now (for tests and health). */
  childCount(): number {
    return this.children.size;
  }

  slotCounts() {
    return this.slots.counts();
  }

  /** Shutdown: refuse new chats, end every child (SIGTERM, then SIGKILL), wait until they are gone. */
  async close(): Promise<void> {
    this.closing = true;
    this.slots.close();
    const pooled = this.pool.close();
    const live = this.live.close();
    const reason = new ProxyError('unavailable', 'The proxy is shutting down');
    for (const stop of this.active) stop.abort(reason);
    this.toolConversations.closeAll();
    for (const child of this.children) child.end();
    const exited = Promise.allSettled([...[...this.children].map((c) => c.exited), pooled, live]);
    await Promise.race([exited, new Promise((r) => setTimeout(r, killGraceMs + 1000).unref())]);
    this.prompts.close();
    this.mcpConfigs.close();
    this.transcripts.close();
  }

  childEnv(): NodeJS.ProcessEnv {
    const env = cliChildEnv(this.opts.childEnv ?? process.env, this.opts.envPath);
    // The CLI retries failed provider calls for minutes by default (fixtures/cli-recordings/README.md).
    env[this.opts.profile.cli.maxRetriesEnv] = String(this.opts.config.cliMaxRetries);
    return env;
  }

  stream(req: NativeRequest, signal: AbortSignal, context: BackendContext = {}): AsyncIterable<NativeStreamEvent> {
    if (context.billing) this.billing.set(signal, context.billing);
    // Input errors (images, a huge system prompt, a tool name the CLI cannot take) are thrown here, before any slot
    // or process is taken.
    const tools = planClientTools(req, this.opts.profile.cli.clientTools);
    if (tools) {
      // The client's own tools: the CLI's built-in ones are off and the configured tool rules do not apply. The input
      // is made only for a fresh process: results for a waiting one go to its MCP calls, not its stdin.
      const input = (r: NativeRequest) =>
        nativeRequestToCliInput(r, { profile: this.opts.profile, userSetup: this.opts.config.cliUserSetup });
      return this.toolConversations.stream(
        req,
        input,
        tools,
        signal,
        context.logger ?? this.opts.logger,
        context.toolResultsReturn !== false,
      );
    }
    const options: CliInputOptions = {
      profile: this.opts.profile,
      builtInTools: this.builtInTools(),
      userSetup: this.opts.config.cliUserSetup,
    };
    return this.run(
      req,
      cliInputs(
        req,
        (r) => nativeRequestToCliInput(r, options),
        (head) => head.turn !== undefined && this.live.canContinue(this.keyOf(head), req.messages),
      ),
      signal,
      context.logger ?? this.opts.logger,
    );
  }

  private async *run(
    req: NativeRequest,
    inputs: CliInputs,
    signal: AbortSignal,
    log: Logger,
  ): AsyncGenerator<NativeStreamEvent> {
    const { profile } = this.opts;
    const deadlines = this.deadlines(signal);
    let release: (() => void) | undefined;
    let conv: CliConversation | undefined;
    let finished = false;
    let kept = false;
    try {
      release = await this.slots.acquire(deadlines.signal);
      const cliPath = this.cliPath();
      await this.ensureWorkDir();
      if (deadlines.signal.aborted) throw deadlines.signal.reason;
      deadlines.markRunning();

      const { head } = inputs;
      const spec = toSpec(head);
      const key = keyOf(spec);
      // A live conversation this request continues: only the new user turn is written to it.
      let continued = head.turn !== undefined ? this.live.takeContinuation(key, req.messages) : undefined;
      // At most two tries: the live or warm process, and when it turns out to have died (or hung) before anything of
      // its answer reached the client (docs/tool-mode.md "Live conversations"), one new process with the whole
      // conversation.
      let retried = false;
      for (;;) {
        // The fallback's fresh process takes a slot of its own before it starts (the dead one's was freed at its exit).
        release ??= await this.slots.acquire(deadlines.signal);
        let how: 'continued' | 'warm' | 'cold' = 'continued';
        if (continued) {
          conv = continued;
          conv.write(head.turn!);
        } else {
          // The whole conversation for a fresh process (its input errors were thrown before anything started, unless
          // a live conversation could continue the request).
          const input = inputs.full();
          // A warm process started earlier with exactly this spec (cli-pool.ts), or a new one.
          // A warm process has no history: a conversation resumed from a transcript needs a process started on it.
          const warm = retried || input.transcript !== undefined ? undefined : this.pool.take(spec);
          if (!warm) this.makeRoom();
          conv = warm ?? this.startProcess(cliPath, input, key);
          how = warm ? 'warm' : 'cold';
          this.live.track(conv);
          conv.write(input.stdin);
        }
        const running = conv;
        if (!this.children.has(running)) {
          this.children.add(running);
          void running.exited.then(() => this.children.delete(running));
        }
        // The slot is held until the turn ends with the process kept, or until the process has really exited.
        const slot = once(release);
        release = undefined;
        void running.exited.then(slot);
        log.debug(
          { pid: running.pid, conversation: running.id, model: req.model, how, turn: running.turns + 1 },
          'assistant CLI turn started',
        );

        const offStop = deadlines.onStop(() => running.end());
        const turn = {
          translate: createCliTranslateState({
            model: req.model,
            notLoggedInPattern: profile.cli.notLoggedInPattern,
            loginHint: profile.cli.loginHint,
          }),
          answer: new AnswerRecorder(),
        };
        running.turn = turn;
        const opening = new OpeningHold();
        for (;;) {
          const item = await running.next(deadlines.signal);
          if (item.kind === 'end') {
            if (how !== 'cold' && !opening.answered) {
              // Nothing reached the client yet: the request is answered as one that continues no live conversation.
              offStop();
              log.warn(
                {
                  pid: running.pid,
                  conversation: running.id,
                  how,
                  exitCode: item.end.exitCode,
                  signal: item.end.signal,
                  hung: running.hung,
                },
                how === 'warm'
                  ? 'the warm assistant CLI had died before its turn; a new one answers with the whole conversation'
                  : 'the live assistant CLI had died between turns; a fresh one answers with the whole conversation',
              );
              // Its slot is freed when it has exited (`slot` above runs first): the fresh process takes one anew.
              await running.exited;
              this.live.lost(running, how === 'continued');
              continued = undefined;
              retried = true;
              break;
            }
            finished = true;
            if (running.hung)
              throw new ProxyError(
                'unavailable',
                `The assistant CLI stopped making progress (${running.hung}) and was ended`,
                { retryAfter: 1 },
              );
            throw this.endError(finishCliLines(turn.translate).error, item.end, running.stderrTail);
          }
          const stepped = stepLine(item.line, turn.translate, deadlines, log, this.rateLimitSink(signal));
          if (!stepped) continue;
          const { parsed, step } = stepped;
          if (parsed.kind === 'unknown')
            log.debug({ type: parsed.type }, 'assistant CLI line of an unknown type, ignored');
          if (step.error) {
            finished = true;
            throw step.error;
          }
          for (const event of step.events) {
            const before = opening.admit(event, () => deadlines.markAnswering());
            if (!before) continue;
            yield* before;
            turn.answer.add(event);
            yield event;
          }
          if (step.done) {
            yield* opening.release();
            finished = true;
            offStop();
            // Kept for a follow-up turn when the request ended on a user turn (a prefill has no turn to continue).
            if (head.turn !== undefined && !this.closing)
              kept = this.live.keep(running, historyAfterTurn(req.messages, turn.answer.record()));
            if (kept) slot();
            return;
          }
        }
      }
    } finally {
      deadlines.dispose();
      release?.();
      if (conv && conv.alive && !kept) {
        if (!finished)
          deadlines.abort(deadlines.signal.reason ?? new ProxyError('unavailable', 'The chat ended early'));
        else {
          // Not kept: its input is closed, so the CLI exits by itself after its turn.
          const done = conv;
          done.endInput();
          setTimeout(() => done.alive && done.end(), lingerAfterResultMs).unref();
        }
      }
    }
  }

  /** A request's stop signal and deadlines (chat-deadlines.ts), registered so that shutdown aborts it. */
  deadlines(signal: AbortSignal): ChatDeadlines {
    const { config } = this.opts;
    return new ChatDeadlines(signal, {
      firstEventMs: config.cliFirstTokenTimeoutMs,
      requestMs: config.requestTimeoutMs,
      firstEventError: (phase, retry) => this.firstEventError(phase, retry),
      track: (stop) => this.trackActive(stop),
    });
  }

  /** The live-conversation key of what a process is started with (for cli-tool-conversations.ts). */
  keyOf(input: Pick<CliInput, 'args' | 'env' | 'systemPrompt'>): string {
    return keyOf(toSpec(input));
  }

  /** True once shutdown began: nothing is kept for a next turn. */
  get isClosing(): boolean {
    return this.closing;
  }

  /** A child slot (child-slots.ts), for a chat run outside `run`. */
  acquireSlot(signal: AbortSignal): Promise<() => void> {
    return this.slots.acquire(signal);
  }

  /** Registers a chat's stop controller so shutdown aborts it; returns its removal. */
  trackActive(stop: AbortController): () => void {
    this.active.add(stop);
    return () => this.active.delete(stop);
  }

  /** The CLI's path, with the working directory ready: what a start needs (throws the 503 / 500 of `run`). */
  async prepareSpawn(): Promise<string> {
    const cliPath = this.cliPath();
    await this.ensureWorkDir();
    return cliPath;
  }

  /**
   * Starts a process that shutdown ends and health counts, like `run`'s, never pooled; `key` is what a later request
   * must be started with to continue it as a live conversation.
   */
  startTracked(cliPath: string, input: SpawnInput, key: string): CliConversation {
    const conv = this.startProcess(cliPath, input, key);
    this.children.add(conv);
    void conv.exited.then(() => this.children.delete(conv));
    return conv;
  }

  /**
   * Starts the CLI: in the working directory, with the child environment, in its own process group (so that ending
   * it also ends the tools it started, STYLE.md habit 10), its system prompt in a fresh owner-only file, stdin open
   * for the turns to come. Used for chats and for the pool's warm processes alike.
   */
  private startProcess(cliPath: string, input: SpawnInput, key: string): CliConversation {
    const { profile } = this.opts;
    const files: string[] = [];
    const args = [...input.args];
    try {
      files.push(this.prompts.write(input.systemPrompt));
      args.push(profile.cli.systemPromptFileFlag, files[0]);
      // The earlier turns for the CLI to resume (docs/tool-mode.md "A fresh start"): owner-only in the data directory,
      // removed with the process like its prompt file.
      if (input.transcript !== undefined) {
        files.push(this.transcripts.write(input.transcript));
        args.push(profile.cli.resumeFlag, files[1]);
      }
    } catch (err) {
      for (const file of files) rmSync(file, { force: true });
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new ProxyError(
        'internal',
        `Cannot write the CLI's input files under ${this.opts.config.dataDir} (${code}); set DATA_DIR to a directory the proxy may create`,
      );
    }
    let child: ResultPromise;
    try {
      child = this.spawn(cliPath, args, input.env);
    } catch (err) {
      for (const file of files) rmSync(file, { force: true });
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new ProxyError('unavailable', `The assistant CLI could not be started (${code}); retry shortly`, {
        retryAfter: 5,
      });
    }
    const modelAt = input.args.indexOf(profile.cli.modelFlag);
    return new CliConversation(child, {
      key,
      model: modelAt >= 0 ? (input.args[modelAt + 1] ?? 'unknown') : 'unknown',
      fingerprint: this.fingerprint(),
      files,
      now: Date.now,
    });
  }

  /** The built-in tools offered and the owner-only settings file of their rules, written on first use. */
  private builtInTools(): CliInputOptions['builtInTools'] {
    if (this.permissions.tools.length === 0) return undefined;
    if (this.permissionsFile === undefined) {
      try {
        this.permissionsFile = this.prompts.writeShared(
          'tool-rules.json',
          JSON.stringify(this.permissions.settings, null, 2),
        );
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
        throw new ProxyError(
          'internal',
          `Cannot write the CLI's tool rules under ${this.opts.config.dataDir} (${code}); set DATA_DIR to a directory the proxy may create`,
        );
      }
    }
    return { tools: this.permissions.tools, settingsFile: this.permissionsFile };
  }

  /** execa with the child's options; a spawn failure (EMFILE, EAGAIN...) is reported, never thrown as an event. */
  private spawn(cliPath: string, args: string[], env: Record<string, string>): ResultPromise {
    // It dies with the proxy where the system allows (death-signal.ts): a killed proxy leaves no CLI calling on.
    const [file, argv] = dyingWithParent(cliPath, args);
    const child = execa(file, argv, {
      stdin: 'pipe',
      cwd: this.opts.config.cliWorkDir,
      env: { ...this.childEnv(), ...env },
      extendEnv: false,
      buffer: false,
      reject: false,
      stripFinalNewline: false,
      forceKillAfterDelay: killGraceMs,
      windowsHide: true,
      detached: processGroups,
    });
    // Node emits a failed spawn (EMFILE, ENOENT...) as an `error` event: with no listener at that moment it would end
    // the whole proxy. The failure itself reaches the reader through the result (cli-conversation.ts).
    child.on('error', () => undefined);
    return child;
  }

  /** Room for one more CLI process under CLI_LIVE_MAX (docs/tool-mode.md "Caps"), or a 503 saying why not. */
  makeRoom(): void {
    if (this.live.makeRoom()) return;
    const max = this.opts.config.cliLiveMax;
    throw new ProxyError(
      'unavailable',
      `All ${max} assistant CLI processes are answering (setting CLI_LIVE_MAX); retry shortly`,
      { retryAfter: 5 },
    );
  }

  /** The app-owned working directory, created on first use (empty, owner-only). A failure is not cached. */
  private async ensureWorkDir(): Promise<void> {
    if (this.workDirReady) return;
    const dir = this.opts.config.cliWorkDir;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new ProxyError(
        'internal',
        `Cannot use ${dir} as the assistant CLI's working directory (${code}); set CLI_WORKDIR to a directory the proxy may create`,
        { retryable: false },
      );
    }
    this.workDirReady = true;
  }

  private cliPath(): string {
    const found = this.opts.findCli();
    if (found.path) return found.path;
    const where =
      found.searched.length > 0
        ? ` (searched ${found.searched.slice(0, 5).join(', ')}${found.searched.length > 5 ? ', ...' : ''})`
        : '';
    throw new ProxyError(
      'unavailable',
      `The assistant CLI was not found${where}. ${this.opts.profile.cli.installHint}`,
      { retryable: false },
    );
  }

  /** The first-event deadline passed: say why, faithfully (a retrying CLI reports the provider's status). */
  firstEventError(phase: ChatPhase, retry: CliRetry | undefined): ProxyError {
    const { config, profile } = this.opts;
    const errors = { notLoggedInPattern: profile.cli.notLoggedInPattern, loginHint: profile.cli.loginHint };
    return firstEventError(phase, retry, config.cliFirstTokenTimeoutMs, this.slots.counts(), errors);
  }

  /** stdout ended: the translator's verdict, with the exit code and stderr when the CLI died without a result. */
  endError(error: ProxyError | undefined, end: ConversationEnd, stderrTail: string): ProxyError {
    return endError(error, end, stderrTail, this.opts.profile.cli.installHint);
  }
}

/** A function that does its work once, however often it is called. */
function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
