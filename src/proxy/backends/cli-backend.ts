// CliBackend (DESIGN.md `Backend`): one chat = one assistant CLI child in print mode with stream-json output and
// partial messages, so text streams token by token. Flags and stdin come from native-request-to-cli-input.ts; every
// stdout line goes through formats/cli-events.ts parseCliLine and translate/cli-events-to-native-events.ts.
//
// Hygiene (docs/tool-mode.md, STYLE.md habit 10): a cap on children with a bounded queue (child-slots.ts);
// the child runs in an app-owned working directory with the user's own environment plus a bound on the CLI's
// retries; two deadlines (first event, whole request) so a client gets an error in seconds, not after the CLI's
// minutes of retries; a client that goes away, a deadline, or shutdown ends the child: SIGTERM, then SIGKILL after a
// grace period, to its whole process group. The slot is held until the process has really exited.

import { mkdir, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { execa, type ResultPromise } from 'execa';
import type { Config } from '../config.js';
import { ProxyError } from '../errors.js';
import type { Backend, BackendContext } from './backend.js';
import { parseCliLine } from '../formats/cli-events.js';
import type { NativeRequest, NativeStreamEvent } from '../formats/native.js';
import type { FindResult } from '../health/find-cli.js';
import { redactSecrets, type Logger } from '../logger.js';
import type { Profile } from '../profile.js';
import { createCliTranslateState, finishCliLines, stepCliLine, type CliRetry } from '../translate/cli-events-to-native-events.js';
import { mapCliError } from '../translate/map-cli-error.js';
import { cliChildEnv } from './child-env.js';
import { ChildSlots } from './child-slots.js';
import { CliPool, filesFingerprint, procRss, type CliPoolSnapshot } from './cli-pool.js';
import { exitOf, killGraceMs, processGroups, terminate } from './end-child.js';
import { LineChannel } from './line-channel.js';
import { nativeRequestToCliInput, type CliInput } from '../translate/native-request-to-cli-input.js';
import type { UsageSink } from '../usage/types.js';
import { planClientTools } from '../translate/native-tools-to-mcp.js';
import { CliToolConversations } from './cli-tool-conversations.js';

/** After its `result` line the CLI exits by itself; one that lingers longer than this is ended. */
const lingerAfterResultMs = 5000;
const stderrTailChars = 2000;

export interface CliBackendOptions {
  config: Pick<
    Config,
    | 'cliWorkDir'
    | 'cliAllowedTools'
    | 'cliDisallowedTools'
    | 'cliMaxRetries'
    | 'cliMaxConcurrent'
    | 'cliQueueSize'
    | 'cliFirstTokenTimeoutMs'
    | 'cliToolResultTimeoutMs'
    | 'requestTimeoutMs'
    | 'cliPoolSize'
    | 'cliPoolIdleMs'
    | 'credentialsPath'
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

export interface CliEndInfo {
  exitCode?: number;
  signal?: string;
  spawnError?: string;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * The warm pool keys processes by what they were started with: the arguments, and the per-request environment (the
 * output limit). Both go into one string list; an environment entry starts with a NUL, which no argument can hold
 * (native-request-to-cli-input.ts refuses NUL in every argument that comes from a client).
 */
const envMark = '\0env:';
function toPoolSpec(args: string[], env: Record<string, string>): string[] {
  return [...Object.entries(env).map(([k, v]) => `${envMark}${k}=${v}`), ...args];
}
function fromPoolSpec(spec: string[]): { args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const args: string[] = [];
  for (const item of spec) {
    if (!item.startsWith(envMark)) args.push(item);
    else {
      const eq = item.indexOf('=');
      env[item.slice(envMark.length, eq)] = item.slice(eq + 1);
    }
  }
  return { args, env };
}


export class CliBackend implements Backend {
  private readonly slots: ChildSlots;
  private readonly children = new Set<ResultPromise>();
  private readonly active = new Set<AbortController>();
  private workDirReady = false;
  /** Warm CLI processes (cli-pool.ts, docs/benchmarks.md "Warm CLI pool"); CLI_POOL_SIZE=0 turns it off. */
  private readonly pool: CliPool<ResultPromise>;
  /** Chats with the client's own tools, and their processes waiting for tool results (cli-tool-conversations.ts). */
  private readonly toolConversations = new CliToolConversations(this);

  constructor(private readonly opts: CliBackendOptions) {
    this.slots = new ChildSlots(opts.config.cliMaxConcurrent, opts.config.cliQueueSize);
    const { config, profile } = opts;
    this.pool = new CliPool<ResultPromise>({
      size: config.cliPoolSize,
      idleMs: config.cliPoolIdleMs,
      spawn: (spec) => {
        const { args, env } = fromPoolSpec(spec);
        return this.spawnChild(this.cliPath(), args, undefined, env);
      },
      end: terminate,
      // A new login (the credential file rewritten), another CLI binary or another environment replaces warm ones.
      fingerprint: () => filesFingerprint([config.credentialsPath], { cli: opts.findCli().path, env: this.childEnv(), cwd: config.cliWorkDir }),
      rssOf: procRss,
      modelFlag: profile.cli.modelFlag,
    });
  }

  /** The warm pool's counts and memory, for /health/detailed and the window. */
  poolSnapshot(): CliPoolSnapshot {
    return this.pool.snapshot();
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
    this.slots.close();
    const pooled = this.pool.close();
    const reason = new ProxyError('unavailable', 'The proxy is shutting down');
    for (const stop of this.active) stop.abort(reason);
    this.toolConversations.closeAll();
    for (const child of this.children) terminate(child);
    const exited = Promise.allSettled([...[...this.children].map((c) => exitOf(c)), pooled]);
    await Promise.race([exited, new Promise((r) => setTimeout(r, killGraceMs + 1000).unref())]);
  }

  childEnv(): NodeJS.ProcessEnv {
    const env = cliChildEnv(this.opts.childEnv ?? process.env, this.opts.envPath);
    // The CLI retries failed provider calls for minutes by default (fixtures/cli-recordings/README.md).
    env[this.opts.profile.cli.maxRetriesEnv] = String(this.opts.config.cliMaxRetries);
    return env;
  }

  stream(req: NativeRequest, signal: AbortSignal, context: BackendContext = {}): AsyncIterable<NativeStreamEvent> {
    // Input errors (images, a huge system prompt, a tool name the CLI cannot take) are thrown here, before any slot
    // or process is taken.
    const tools = planClientTools(req, this.opts.profile.cli.clientTools);
    if (tools) {
      // The client's own tools: the CLI's built-in ones are off and the configured tool rules do not apply.
      // The input is made only for a fresh process: results for a waiting one go to its MCP calls, not its stdin.
      const input = () => nativeRequestToCliInput(req, { profile: this.opts.profile, allowedTools: [], disallowedTools: [] });
      return this.toolConversations.stream(req, input, tools, signal, context.logger ?? this.opts.logger);
    }
    const input = nativeRequestToCliInput(req, {
      profile: this.opts.profile,
      allowedTools: this.opts.config.cliAllowedTools,
      disallowedTools: this.opts.config.cliDisallowedTools,
    });
    return this.run(req, input, signal, context.logger ?? this.opts.logger);
  }

  private async *run(req: NativeRequest, input: CliInput, signal: AbortSignal, log: Logger): AsyncGenerator<NativeStreamEvent> {
    const { config, profile } = this.opts;
    const stop = new AbortController();
    this.active.add(stop);
    let phase: 'queued' | 'running' | 'answering' = 'queued';
    let lastRetry: CliRetry | undefined;
    // The request's signal fires when the client goes away, or on shutdown past its grace period.
    const onClientGone = () => {
      const why = signal.reason instanceof Error ? signal.reason.message : 'client disconnected';
      stop.abort(new ProxyError('unavailable', `The chat was cancelled (${why})`));
    };
    if (signal.aborted) onClientGone();
    else signal.addEventListener('abort', onClientGone, { once: true });
    const firstTimer = setTimeout(() => stop.abort(this.firstEventError(phase, lastRetry)), config.cliFirstTokenTimeoutMs);
    const wholeTimer = setTimeout(
      () =>
        stop.abort(
          new ProxyError('timeout', `The chat did not finish within ${seconds(config.requestTimeoutMs)} (setting REQUEST_TIMEOUT_MS)`),
        ),
      config.requestTimeoutMs,
    );
    let release: (() => void) | undefined;
    let child: ResultPromise | undefined;
    let finished = false;
    try {
      release = await this.slots.acquire(stop.signal);
      const cliPath = this.cliPath();
      await this.ensureWorkDir();
      if (stop.signal.aborted) throw stop.signal.reason;
      phase = 'running';

      // A warm process started earlier with exactly these arguments, or a new one (cli-pool.ts).
      const warm = this.pool.take(toPoolSpec(input.args, input.env));
      if (warm) warm.stdin?.end(input.stdin);
      child = warm ?? this.spawnChild(cliPath, input.args, input.stdin, input.env);
      const running = child;
      this.children.add(running);
      const slot = release;
      release = undefined;
      // The slot and the registry entry are held until the process has really exited.
      void exitOf(running).then(() => {
        this.children.delete(running);
        slot();
      });
      log.debug({ pid: running.pid, model: req.model, args: input.args.length, warm: warm !== undefined }, 'assistant CLI started');

      const channel = new LineChannel<string, CliEndInfo>();
      let stderrTail = '';
      running.stderr?.on('data', (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-stderrTailChars);
      });
      const lines = createInterface({ input: running.stdout!, crlfDelay: Infinity });
      lines.on('line', (line) => channel.push({ kind: 'line', line }));
      const linesClosed = new Promise<void>((resolve) => lines.once('close', () => resolve()));
      void Promise.all([running, linesClosed]).then(([result]) => {
        const spawnError = result.failed && result.exitCode === undefined && !result.signal ? (result.code ?? result.shortMessage) : undefined;
        channel.push({ kind: 'end', end: { exitCode: result.exitCode, signal: result.signal, spawnError } });
      });
      const onStop = () => {
        terminate(running);
        channel.push({ kind: 'abort', reason: stop.signal.reason });
      };
      if (stop.signal.aborted) onStop();
      else stop.signal.addEventListener('abort', onStop, { once: true });

      const state = createCliTranslateState({
        model: req.model,
        notLoggedInPattern: profile.cli.notLoggedInPattern,
        loginHint: profile.cli.loginHint,
      });
      for (;;) {
        const item = await channel.next();
        if (item.kind === 'abort') throw item.reason;
        if (item.kind === 'end') {
          const end = finishCliLines(state);
          finished = true;
          throw this.endError(end.error, item.end, stderrTail);
        }
        if (item.line.trim() === '') continue;
        const parsed = parseCliLine(item.line);
        if (parsed.kind === 'malformed') {
          log.warn({ reason: parsed.reason, line: redactSecrets(parsed.text) }, 'unparseable line from the assistant CLI, ignored');
        } else if (parsed.kind === 'unknown') {
          log.debug({ type: parsed.type }, 'assistant CLI line of an unknown type, ignored');
        } else if (parsed.kind === 'rate_limit') {
          this.opts.usage?.cliRateLimit(parsed.info);
        }
        const step = stepCliLine(parsed, state);
        if (step.retry) {
          lastRetry = step.retry;
          log.warn({ attempt: step.retry.attempt, status: step.retry.status }, 'the assistant CLI is retrying a failed provider call');
        }
        if (step.error) {
          finished = true;
          throw step.error;
        }
        for (const event of step.events) {
          if (phase !== 'answering') {
            phase = 'answering';
            clearTimeout(firstTimer);
          }
          yield event;
        }
        if (step.done) {
          finished = true;
          return;
        }
      }
    } finally {
      clearTimeout(firstTimer);
      clearTimeout(wholeTimer);
      signal.removeEventListener('abort', onClientGone);
      this.active.delete(stop);
      release?.();
      if (child && child.exitCode === null && child.signalCode === null) {
        if (!finished) stop.abort(stop.signal.reason ?? new ProxyError('unavailable', 'The chat ended early'));
        else {
          const lingering = child;
          setTimeout(() => terminate(lingering), lingerAfterResultMs).unref();
        }
      }
    }
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

  /** The CLI's path, with the working directory ready: what a spawn needs (throws the 503 / 500 of `run`). */
  async prepareSpawn(): Promise<string> {
    const cliPath = this.cliPath();
    await this.ensureWorkDir();
    return cliPath;
  }

  /** Starts a child that shutdown ends and health counts, like `run`'s. */
  spawnTracked(cliPath: string, args: string[], stdin: string, env: Record<string, string>): ResultPromise {
    const child = this.spawnChild(cliPath, args, stdin, env);
    this.children.add(child);
    void exitOf(child).then(() => this.children.delete(child));
    return child;
  }

  /**
   * Starts the CLI: in the working directory, with the child environment, in its own process group (so that ending
   * it also ends the tools it started, STYLE.md habit 10). With `stdin` the prompt is written at once; without, stdin
   * stays open for the pool's warm process, which gets its prompt when a request takes it.
   */
  private spawnChild(cliPath: string, args: string[], stdin: string | undefined, env: Record<string, string>): ResultPromise {
    return execa(cliPath, args, {
      ...(stdin === undefined ? { stdin: 'pipe' as const } : { input: stdin }),
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
      throw new ProxyError('internal', `Cannot use ${dir} as the assistant CLI's working directory (${code}); set CLI_WORKDIR to a directory the proxy may create`);
    }
    this.workDirReady = true;
  }

  private cliPath(): string {
    const found = this.opts.findCli();
    if (found.path) return found.path;
    const where = found.searched.length > 0 ? ` (searched ${found.searched.slice(0, 5).join(', ')}${found.searched.length > 5 ? ', ...' : ''})` : '';
    throw new ProxyError('unavailable', `The assistant CLI was not found${where}. ${this.opts.profile.cli.installHint}`);
  }

  /** The first-event deadline passed: say why, faithfully (a retrying CLI reports the provider's status). */
  firstEventError(phase: 'queued' | 'running' | 'answering', retry: CliRetry | undefined): ProxyError {
    const limit = `${seconds(this.opts.config.cliFirstTokenTimeoutMs)} (setting CLI_FIRST_TOKEN_TIMEOUT_MS)`;
    if (phase === 'queued') {
      const { running, max } = this.slots.counts();
      return new ProxyError('unavailable', `No assistant CLI slot became free within ${limit}: ${running} of ${max} are busy (setting CLI_MAX_CONCURRENT)`, {
        retryAfter: 5,
      });
    }
    if (retry?.status != null) {
      const { profile } = this.opts;
      const mapped = mapCliError(
        { status: retry.status, text: retry.error ?? '' },
        { notLoggedInPattern: profile.cli.notLoggedInPattern, loginHint: profile.cli.loginHint },
        retry.delayMs,
      );
      return new ProxyError(mapped.kind, `The assistant CLI was still retrying after ${limit}: ${mapped.message}`, {
        retryAfter: mapped.retryAfter,
      });
    }
    return new ProxyError('timeout', `The assistant CLI did not start answering within ${limit}`);
  }

  /** stdout ended: the translator's verdict, with the exit code and stderr when the CLI died without a result. */
  endError(error: ProxyError | undefined, end: CliEndInfo, stderrTail: string): ProxyError {
    if (end.spawnError) {
      return new ProxyError('unavailable', `The assistant CLI could not be started (${end.spawnError}). ${this.opts.profile.cli.installHint}`);
    }
    const err = error ?? new ProxyError('internal', 'The assistant CLI ended without a result');
    if (err.kind !== 'internal') return err;
    const how = end.signal ? `was ended by ${end.signal}` : `exited with code ${end.exitCode ?? 'unknown'}`;
    const lastLine = stderrTail.trim().split('\n').at(-1)?.trim() ?? '';
    const said = lastLine ? `: ${redactSecrets(lastLine).slice(0, 300)}` : '';
    return new ProxyError('internal', `The assistant CLI ${how} without finishing its answer${said}`);
  }
}
