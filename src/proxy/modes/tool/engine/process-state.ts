// The state machine of one CLI process of tool mode (docs/tool-mode.md "Live conversations"), which every process
// follows whatever started it, and what the one registry (processes.ts) needs of a process (CliConversation,
// cli-conversation.ts, is one):
//
//   (the warm pool starts it) --> warm --a request with the same spec takes it--> busy
//   (a request starts it) ------> busy
//   busy --its turn finished, kept--> idle --the next user turn of the same conversation--> busy
//   busy --its turn paused at the client's tool calls--> waiting-for-tools --the results come--> busy
//   any --ended (evicted, expired, replaced, failed, shut down) or exited by itself--> ended
//
// A busy process is read by exactly one request. warm, idle and waiting-for-tools are resting states, each with its
// lifetime in the registry; an ended process leaves the registry. The moves are the table below (`next`), and every
// state change of a process goes through it.

import type { HistoryEntry } from './conversation-history.js';

/**
 * warm: started ahead of a request (the warm pool), no history yet, nobody has read it;
 * idle: alive between turns, waiting for the next request of its conversation;
 * busy: a request is reading its turn;
 * waiting-for-tools: the turn is paused mid-way (the CLI waits for a client's tool results); no request is reading,
 *   its output stays queued for the request that resumes it;
 * ended: the process has exited or is being ended.
 */
export type ConversationState = 'warm' | 'idle' | 'busy' | 'waiting-for-tools' | 'ended';

/**
 * What happens to a process: a request begins reading it (begin), brings the tool results it waits for (resume), its
 * turn finishes with it kept (rest) or pauses at the client's tool calls (pause); it is ended by the proxy (end) or
 * exits by itself (exit).
 */
export type ProcessEvent = 'begin' | 'resume' | 'rest' | 'pause' | 'end' | 'exit';

/** Every legal move; anything else is a bug in the engine, thrown by `next`. */
const moves: Record<ConversationState, Partial<Record<ProcessEvent, ConversationState>>> = {
  warm: { begin: 'busy', end: 'ended', exit: 'ended' },
  idle: { begin: 'busy', end: 'ended', exit: 'ended' },
  busy: { rest: 'idle', pause: 'waiting-for-tools', end: 'ended', exit: 'ended' },
  'waiting-for-tools': { resume: 'busy', end: 'ended', exit: 'ended' },
  // Ending is idempotent: shutdown, a deadline and the registry may each end the same process.
  ended: { end: 'ended', exit: 'ended' },
};

/** The state after `event`; throws on a move the state machine does not have (e.g. `begin` from busy or ended). */
export function next(state: ConversationState, event: ProcessEvent): ConversationState {
  const to = moves[state][event];
  if (to === undefined) throw new Error(`A CLI process cannot ${event} from the state ${state}`);
  return to;
}

/** True when `event` is a legal move from `state`. */
export function can(state: ConversationState, event: ProcessEvent): boolean {
  return moves[state][event] !== undefined;
}

/** What the registry needs of a process (CliConversation fits). */
export interface RegisteredProcess {
  readonly id: string;
  readonly key: string;
  readonly model: string;
  readonly fingerprint: string;
  readonly startedAt: number;
  readonly pid?: number;
  readonly state: ConversationState;
  readonly history: HistoryEntry[];
  readonly turns: number;
  readonly lastUsedAt: number;
  readonly alive: boolean;
  /** The state it was in when it exited by itself (undefined while alive or when it was ended). */
  readonly endedFrom?: ConversationState;
  readonly exited: Promise<void>;
  /** warm, idle -> busy. */
  begin(now: number): void;
  /** busy -> idle, having seen `history`. */
  idle(history: HistoryEntry[], now: number): void;
  /** busy -> waiting-for-tools, having seen `history`. */
  wait(history: HistoryEntry[], now: number): void;
  /** waiting-for-tools -> busy. */
  resume(now: number): void;
  /** any -> ended. */
  end(): void;
}
