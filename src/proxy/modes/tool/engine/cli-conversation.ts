// One live conversation (docs/tool-mode.md "Live conversations"): an
// assistant CLI process started with `--input-format stream-json`, whose stdin stays open so that it reads one user
// message after another, and everything that belongs to the PROCESS rather than to one request:
// - its stdout line stream (a queue that keeps what the child printed until somebody reads it), its end, and the
//   tail of its stderr;
// - its state (moved only through the transition table of process-state.ts) and its history (what it has seen, in
//   the compared form of conversation-history.ts);
// - the files written for it (its system prompt file), removed when the process ends.
// A request attaches to a conversation for one turn: it writes its user line (`write`), reads lines (`next`) until
// the turn's `result`, and leaves it idle, or ends it. Because the stream belongs to the conversation, a reader may
// stop reading mid-turn without losing lines (`next` with an aborted signal keeps the queue intact), and a later
// request may go on reading the same turn: that is how a turn waits for a client's tool results
// ('waiting-for-tools', see `wait`/`resume`). A warm process of the pool (warm-pool.ts) is a conversation with no
// history yet: one concept, one state machine, kept in one registry (processes.ts).

import { createInterface } from 'node:readline';
import { rmSync } from 'node:fs';
import type { ResultPromise } from 'execa';
import type { HistoryEntry } from './conversation-history.js';
import type { BillingLane } from '../../../usage/types.js';
import type { ToolSession } from './tool-session.js';
import { exitOf, killNow, terminate } from './end-child.js';
import { watchHang } from './hang-watch.js';
import { next, type ConversationState, type ProcessEvent, type RegisteredProcess } from './process-state.js';

export interface ConversationEnd {
  exitCode?: number;
  signal?: string;
  spawnError?: string;
}

export type ConversationItem = { kind: 'line'; line: string } | { kind: 'end'; end: ConversationEnd };

interface CliConversationOptions {
  /** What the process was started with (arguments, environment, system prompt): only the same may continue it. */
  key: string;
  /** The model it was started with (shown in health; never the system prompt). */
  model: string;
  /** The login and settings it was started under (proc-facts.ts filesFingerprint). */
  fingerprint: string;
  /** Its input files (system prompt, the transcript it resumed), removed when it exits. */
  files?: string[];
  now: () => number;
}

const stderrTailChars = 2000;
let nextId = 1;

export class CliConversation implements RegisteredProcess {
  readonly id = `conv-${nextId++}`;
  readonly key: string;
  readonly model: string;
  readonly fingerprint: string;
  readonly startedAt: number;
  private current: ConversationState = 'warm';
  /** The state it was in when it exited by itself (undefined while alive, or when it was ended). */
  endedFrom: ConversationState | undefined;
  /** What the process has seen, answers included; empty for a warm process. */
  history: HistoryEntry[] = [];
  /** Turns answered. */
  turns = 0;
  lastUsedAt: number;
  stderrTail = '';
  /**
   * The lane its CLI last reported in a rate_limit_event (usage/billing-lane.ts). The CLI prints one only when the
   * figures change, so a later turn that prints none was billed to this lane too (docs/usage.md "Lanes").
   */
  lane: BillingLane | undefined;
  /** True once a request has read it (a warm process nobody took has not been). */
  taken = false;
  /** Its tool session when it offers the client's own tools (tool-session.ts): MCP server, ids it waits for. */
  tools: ToolSession | undefined;
  /** Why the process was ended as hung (hang-watch.ts), when it was. */
  hung: string | undefined;
  private unwatch: (() => void) | undefined;
  /** Resolves when the process has exited (its files are gone by then). */
  readonly exited: Promise<void>;
  private readonly items: ConversationItem[] = [];
  private waiter: ((item: ConversationItem) => void) | undefined;

  constructor(
    readonly child: ResultPromise,
    opts: CliConversationOptions,
  ) {
    this.key = opts.key;
    this.model = opts.model;
    this.fingerprint = opts.fingerprint;
    this.startedAt = opts.now();
    this.lastUsedAt = this.startedAt;
    // A child that died has a closed stdin; a write then must not throw out of the event loop. A failed spawn is an
    // `error` event (more than one in some cases): never unhandled, the result says what failed.
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    child.stdout?.on('error', () => undefined);
    child.stderr?.on('error', () => undefined);
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-stderrTailChars);
    });
    // Out of file descriptors (EMFILE), node gives the child no pipes at all: it is a failed start, read as its end.
    let linesClosed = Promise.resolve();
    if (child.stdout) {
      const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
      lines.on('line', (line) => this.push({ kind: 'line', line }));
      linesClosed = new Promise<void>((resolve) => lines.once('close', () => resolve()));
    }
    void Promise.all([child, linesClosed]).then(([result]) => {
      const spawnError =
        result.failed && result.exitCode === undefined && !result.signal
          ? (result.code ?? result.shortMessage)
          : undefined;
      this.push({ kind: 'end', end: { exitCode: result.exitCode, signal: result.signal, spawnError } });
    });
    this.exited = exitOf(child).then(() => {
      this.stopWatch();
      if (this.current !== 'ended') this.endedFrom = this.current;
      this.move('exit');
      for (const file of opts.files ?? []) rmSync(file, { force: true });
    });
  }

  /** Its state (process-state.ts); it changes only through the transition table, in `move`. */
  get state(): ConversationState {
    return this.current;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** True until the process has exited or is being ended. */
  get alive(): boolean {
    return this.state !== 'ended' && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Writes one stream-json input line (a user message, or a tool result the CLI waits for). */
  write(line: string): void {
    this.child.stdin?.write(line);
  }

  /**
   * The next item of the process's output. An aborted `signal` rejects with its reason at once, even when lines are
   * queued (a deadline or a gone client must not wait behind buffered output), and leaves the queue as it was.
   */
  next(signal?: AbortSignal): Promise<ConversationItem> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const item = this.items.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiter = undefined;
        reject(signal!.reason);
      };
      this.waiter = (it) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(it);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A request starts reading a turn (warm or idle -> busy). */
  begin(now: number): void {
    this.read('begin', now);
  }

  /** A request brings the tool results it waits for and goes on reading the turn (waiting-for-tools -> busy). */
  resume(now: number): void {
    this.read('resume', now);
  }

  private read(event: 'begin' | 'resume', now: number): void {
    this.move(event);
    this.taken = true;
    this.lastUsedAt = now;
    // While a request reads it, a process stopped by the OS is ended within seconds: its end reaches the reader.
    if (!this.unwatch && this.child.pid !== undefined) {
      this.unwatch = watchHang(this.child.pid, (why) => {
        this.hung = why;
        this.unwatch = undefined;
        killNow(this.child);
      });
    }
  }

  private stopWatch(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /**
   * The turn paused at a client's tool calls, the process having seen `history`: it waits for their results, alive.
   * The output keeps queueing; the request that brings the results calls `resume` and goes on reading with `next`.
   */
  wait(history: HistoryEntry[], now: number): void {
    this.stopWatch();
    this.move('pause');
    this.history = history;
    this.lastUsedAt = now;
  }

  /** The turn finished and the process waits for the next one. */
  idle(history: HistoryEntry[], now: number): void {
    this.stopWatch();
    this.history = history;
    this.turns++;
    this.move('rest');
    this.lastUsedAt = now;
  }

  /** Closes stdin: the CLI finishes what it is doing and exits by itself. */
  endInput(): void {
    this.child.stdin?.end();
  }

  /** Not kept after its turn: ended, its stdin closed so that it exits by itself; still there after `lingerMs`, ended. */
  finish(lingerMs: number): void {
    this.stopWatch();
    this.move('end');
    this.endInput();
    const child = this.child;
    // Only a child that has not exited: its process group's id may belong to another process by then.
    setTimeout(() => child.exitCode === null && child.signalCode === null && terminate(child), lingerMs).unref();
  }

  /** Ends the process for good: SIGTERM to its process group, SIGKILL after a grace period (end-child.ts). */
  end(): void {
    this.stopWatch();
    this.move('end');
    terminate(this.child);
  }

  private move(event: ProcessEvent): void {
    this.current = next(this.current, event);
  }

  private push(item: ConversationItem): void {
    if (this.waiter) {
      const wake = this.waiter;
      this.waiter = undefined;
      wake(item);
    } else {
      this.items.push(item);
    }
  }
}
