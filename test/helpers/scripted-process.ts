// A CLI process that exists only in memory and prints a script of stdout lines, for the unit tests of the turn loop
// and its sources (src/proxy/modes/tool/engine/turn.ts, plain-turns.ts, tool-turns.ts): what runTurn reads of a
// CliConversation (next, write, finish, end, exited, the lane), with the state machine of process-state.ts.

import { readFileSync } from 'node:fs';
import type {
  CliConversation,
  ConversationEnd,
  ConversationItem,
} from '../../src/proxy/modes/tool/engine/cli-conversation.js';
import { next, type ConversationState } from '../../src/proxy/modes/tool/engine/process-state.js';
import type { ToolSession } from '../../src/proxy/modes/tool/engine/tool-session.js';
import type { HistoryEntry } from '../../src/proxy/modes/tool/engine/conversation-history.js';
import type { BillingLane } from '../../src/proxy/usage/types.js';

/** The stdout of a recorded turn of the CLI that answered "Hi from fake!" (test/fixtures/cli-recordings). */
export const answerLines = readFileSync(new URL('../fixtures/cli-recordings/partial.stdout', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l !== '');

/** A rate_limit_event line as the real CLI printed it (the subscription's five-hour window). */
export const rateLimitLine =
  '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1795400158,"rateLimitType":"five_hour","isUsingOverage":false},"uuid":"u","session_id":"s"}';

let nextPid = 5000;

export class ScriptedProcess {
  readonly id = `scripted-${nextPid}`;
  readonly pid = nextPid++;
  readonly key: string;
  readonly model = 'm';
  readonly fingerprint = 'fp';
  readonly startedAt = 0;
  state: ConversationState = 'warm';
  history: HistoryEntry[] = [];
  turns = 0;
  lastUsedAt = 0;
  taken = false;
  tools: ToolSession | undefined;
  lane: BillingLane | undefined;
  hung: string | undefined;
  stderrTail = '';
  readonly written: string[] = [];
  /** How it left: finished (stdin closed after its turn), or ended. */
  how: 'finished' | 'ended' | undefined;
  private readonly items: ConversationItem[];
  private resolveExit!: () => void;
  readonly exited = new Promise<void>((r) => (this.resolveExit = r));

  /** Prints `lines`, then, when `end` is given, its stdout ends that way and it exits. */
  constructor(lines: string[], end?: ConversationEnd, key = 'k') {
    this.key = key;
    this.items = lines.map((line) => ({ kind: 'line', line }));
    if (end) this.items.push({ kind: 'end', end });
  }

  get alive(): boolean {
    return this.state !== 'ended';
  }

  /** As CliConversation: its lines in order; it never ends on its own once they are read, unless scripted to. */
  next(signal?: AbortSignal): Promise<ConversationItem> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const item = this.items.shift();
    // Its stdout ended: it has exited by then.
    if (item?.kind === 'end') this.exit();
    if (item) return Promise.resolve(item);
    return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
  }

  write(line: string): void {
    this.written.push(line);
  }

  begin(now: number): void {
    this.state = next(this.state, 'begin');
    this.taken = true;
    this.lastUsedAt = now;
  }

  finish(): void {
    this.how ??= 'finished';
    this.exit();
  }

  end(): void {
    this.how ??= 'ended';
    this.exit();
  }

  asConversation(): CliConversation {
    return this as unknown as CliConversation;
  }

  private exit(): void {
    if (this.state !== 'ended') this.state = next(this.state, 'end');
    this.resolveExit();
  }
}
