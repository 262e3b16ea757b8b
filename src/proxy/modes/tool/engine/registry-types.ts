// What the registry of CLI processes (processes.ts) is built with, and what /health/detailed and the window show of
// its conversations (docs/tool-mode.md "Live conversations"): counts by state, memory, the registry's counters, and
// per conversation its id, model, state, turns, age and idle time; never its text.

import type { ConversationState } from './process-state.js';

/** Why a warm process left the registry (the warm pool counts them). */
export type WarmEnd = 'expired' | 'replaced' | 'died' | 'evicted';

export interface CliProcessesOptions<C> {
  /** Processes at most, in every state (config.cliLiveMax); 0 = nothing kept between turns and no such cap. */
  max: number;
  /** How long an idle process waits for its next turn (config.cliLiveIdleMs). */
  idleMs: number;
  /** How long a warm process waits to be taken (config.cliPoolIdleMs). */
  warmMs?: number;
  /** How long a process waits for a client's tool results (config.cliToolResultTimeoutMs). */
  waitMs?: number;
  /** Processes waiting for tool results at most (config.cliMaxConcurrent): the oldest ends. */
  maxWaiting?: number;
  /** Memory cap of every process together, bytes. */
  maxRssBytes?: number;
  rssOf?: (pid: number) => number | undefined;
  fingerprint?: () => string;
  now?: () => number;
  /** How often resting processes are checked for a changed login. */
  checkEveryMs?: number;
  /** A warm process left (warm-pool.ts counts it). */
  onWarmEnded?: (c: C, why: WarmEnd) => void;
  /** A waiting process ended: its client did not come back in time, or too many waited. */
  onWaitEnded?: (c: C, why: 'expired' | 'cap') => void;
}

export interface LiveConversationsSnapshot {
  enabled: boolean;
  max: number;
  idleMs: number;
  maxRssBytes?: number;
  live: number;
  busy: number;
  idle: number;
  waitingForTools: number;
  rssBytes?: number;
  /** Turns that continued a live process (only the new turn was written to it). */
  continued: number;
  /** Conversations kept after a turn. */
  kept: number;
  expired: number;
  /** Ended to make room (the cap on processes or on memory). */
  evicted: number;
  /** Ended because the login or the settings changed. */
  replaced: number;
  /**
   * Follow-ups (a new user turn, or tool results) whose process had died between turns before it answered: answered
   * by a fresh process with the whole conversation.
   */
  lost: number;
  conversations: Array<{
    id: string;
    model: string;
    state: ConversationState;
    turns: number;
    ageMs: number;
    idleMs: number;
    rssBytes?: number;
  }>;
}

/** The registry's counters of conversations. */
export type ConversationCounts = Pick<
  LiveConversationsSnapshot,
  'continued' | 'kept' | 'expired' | 'evicted' | 'replaced' | 'lost'
>;

interface SnapshotProcess {
  readonly id: string;
  readonly model: string;
  readonly state: ConversationState;
  readonly turns: number;
  readonly startedAt: number;
  readonly lastUsedAt: number;
}

export function registrySnapshot<C extends SnapshotProcess>(
  list: C[],
  counts: ConversationCounts,
  o: {
    enabled: boolean;
    max: number;
    idleMs: number;
    maxRssBytes?: number;
    now: number;
    rss?: { each: Map<C, number>; total: number };
  },
): LiveConversationsSnapshot {
  const rss = o.rss;
  return {
    enabled: o.enabled,
    max: o.max,
    idleMs: o.idleMs,
    ...(o.maxRssBytes === undefined ? {} : { maxRssBytes: o.maxRssBytes }),
    live: list.length,
    busy: list.filter((c) => c.state === 'busy').length,
    idle: list.filter((c) => c.state === 'idle').length,
    waitingForTools: list.filter((c) => c.state === 'waiting-for-tools').length,
    ...(rss === undefined ? {} : { rssBytes: rss.total }),
    ...counts,
    conversations: list.map((c) => ({
      id: c.id,
      model: c.model,
      state: c.state,
      turns: c.turns,
      ageMs: o.now - c.startedAt,
      idleMs: c.state === 'idle' ? o.now - c.lastUsedAt : 0,
      ...(rss?.each.get(c) === undefined ? {} : { rssBytes: rss.each.get(c) }),
    })),
  };
}
