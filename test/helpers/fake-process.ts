// A CLI process that exists only in memory, for the unit tests of the process registry and the warm pool
// (src/proxy/modes/tool/engine/processes.ts, warm-pool.ts): the same state machine as CliConversation, no child.

import {
  next,
  type ConversationState,
  type RegisteredProcess,
} from '../../src/proxy/modes/tool/engine/process-state.js';
import type { HistoryEntry } from '../../src/proxy/modes/tool/engine/conversation-history.js';

export class FakeProcess implements RegisteredProcess {
  static next = 1;
  readonly id = `p${FakeProcess.next++}`;
  readonly model = 'm';
  state: ConversationState = 'warm';
  endedFrom: ConversationState | undefined;
  history: HistoryEntry[] = [];
  turns = 0;
  lastUsedAt: number;
  ended = false;
  private resolveExit!: () => void;
  readonly exited = new Promise<void>((r) => (this.resolveExit = r));

  constructor(
    readonly key: string,
    public fingerprint = 'fp1',
    readonly pid?: number,
    readonly startedAt = 0,
  ) {
    this.lastUsedAt = startedAt;
  }

  get alive() {
    return !this.ended;
  }
  begin(now: number) {
    this.state = next(this.state, 'begin');
    this.lastUsedAt = now;
  }
  idle(history: HistoryEntry[], now: number) {
    this.history = history;
    this.turns++;
    this.state = next(this.state, 'rest');
    this.lastUsedAt = now;
  }
  wait(history: HistoryEntry[], now: number) {
    this.history = history;
    this.state = next(this.state, 'pause');
    this.lastUsedAt = now;
  }
  resume(now: number) {
    this.state = next(this.state, 'resume');
    this.lastUsedAt = now;
  }
  /** Ended by the proxy: it exits a moment later. */
  end() {
    if (this.ended) return;
    this.ended = true;
    this.state = next(this.state, 'end');
    queueMicrotask(() => this.resolveExit());
  }
  /** Exits by itself (a crash), in whatever state it was. */
  die() {
    if (this.ended) return;
    this.ended = true;
    this.endedFrom = this.state;
    this.state = next(this.state, 'exit');
    this.resolveExit();
  }
}
