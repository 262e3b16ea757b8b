// The verbs a turn source is given (src/proxy/modes/tool/engine/turn-capabilities.ts) over in-memory processes, for the unit
// tests of plain-turns.ts and tool-turns.ts: each verb records what it was asked, and hands out the processes set.

import type { CliConversation } from '../../src/proxy/modes/tool/engine/cli-conversation.js';
import type { TurnCapabilities } from '../../src/proxy/modes/tool/engine/turn-capabilities.js';
import type { HistoryEntry } from '../../src/proxy/modes/tool/engine/conversation-history.js';
import { ScriptedProcess } from './scripted-process.js';

export class FakeCapabilities implements TurnCapabilities {
  closing = false;
  /** What the verbs hand out, when set. */
  live: ScriptedProcess | undefined;
  warmOne: ScriptedProcess | undefined;
  waitingOne: ScriptedProcess | undefined;
  readonly started: Array<{ spec: { args: string[]; systemPrompt: string }; key: string; proc: ScriptedProcess }> = [];
  readonly kept: Array<{ proc: CliConversation; history: HistoryEntry[] }> = [];
  readonly parked: Array<{ proc: CliConversation; history: HistoryEntry[] }> = [];
  readonly resumed: CliConversation[] = [];
  /** The keys the verbs were asked about. */
  readonly keys: string[] = [];

  ready(): Promise<string> {
    return Promise.resolve('/usr/bin/assistant');
  }
  continuation(plan: { key: string }): CliConversation | undefined {
    this.keys.push(plan.key);
    const p = this.live;
    this.live = undefined;
    p?.begin(0);
    return p?.asConversation();
  }
  canContinue(plan: { key: string }): boolean {
    this.keys.push(plan.key);
    return this.live !== undefined;
  }
  warm(plan: { key: string }): CliConversation | undefined {
    this.keys.push(plan.key);
    const p = this.warmOne;
    this.warmOne = undefined;
    p?.begin(0);
    return p?.asConversation();
  }
  waiting(plan: { key: string }): CliConversation | undefined {
    this.keys.push(plan.key);
    return this.waitingOne?.asConversation();
  }
  resume(proc: CliConversation): void {
    this.resumed.push(proc);
  }
  announced<I>(_cliPath: string, input: I): Promise<I> {
    return Promise.resolve(input);
  }
  start(_cliPath: string, spec: { args: string[]; systemPrompt: string }, key: string): Promise<CliConversation> {
    const proc = new ScriptedProcess([], undefined, key);
    proc.begin(0);
    this.started.push({ spec, key, proc });
    return Promise.resolve(proc.asConversation());
  }
  keep(proc: CliConversation, history: () => HistoryEntry[]): boolean {
    if (this.closing) return false;
    this.kept.push({ proc, history: history() });
    return true;
  }
  park(proc: CliConversation, history: () => HistoryEntry[]): boolean {
    this.parked.push({ proc, history: history() });
    return true;
  }
}
