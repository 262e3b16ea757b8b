// What a turn source (plain-turns.ts, tool-turns.ts) may do with the engine's processes (docs/tool-mode.md "Flow"):
// narrow verbs, given by the engine (engine.ts), over parts that stay private to it (the registry, the warm pool,
// the starter). A source decides which process answers and what is kept; these say how.

import type { CliInput } from '../translate/native-request-to-cli-input.js';
import type { HistoryEntry } from './conversation-history.js';
import type { BackendContext } from '../../../chat/backend.js';
import type { CliConversation } from './cli-conversation.js';
import type { RequestPlan } from './request-plan.js';
import type { SpawnInput } from './spec.js';

/** A response that chains by id (docs/responses-store.md): its own id, and the one it continues. */
export type ChainLink = BackendContext['link'];

export interface TurnCapabilities {
  /** True once shutdown began: nothing is kept or parked. */
  readonly closing: boolean;
  /** Where the CLI is, its working directory ready (throws the 503 / 500 a chat reports). */
  ready(): Promise<string>;
  /** The idle process that the plan continues by one user turn (or that answered the link's previous), now busy. */
  continuation(plan: RequestPlan, link: ChainLink): CliConversation | undefined;
  /** True when `continuation` would give a process. */
  canContinue(plan: RequestPlan, link: ChainLink): boolean;
  /** A warm process started with exactly the plan's spec, now busy; the warm pool learns from every request. */
  warm(plan: RequestPlan): CliConversation | undefined;
  /** The process waiting for the tool results the plan brings (or that answered the link's previous); not taken. */
  waiting(plan: RequestPlan, link: ChainLink): CliConversation | undefined;
  /** Takes a waiting process for the request that brings its results: busy again. */
  resume(proc: CliConversation): void;
  /** The whole conversation for a fresh start, with the CLI's own announcements in its transcript (announcements.ts). */
  announced(cliPath: string, input: CliInput, signal: AbortSignal): Promise<CliInput>;
  /** Starts a process with `spec` under `key` once there is room under CLI_LIVE_MAX, busy; a 503 when none. */
  start(cliPath: string, spec: SpawnInput, key: string, signal: AbortSignal): Promise<CliConversation>;
  /** The turn finished: `proc` is kept idle with `history` (and tied to the link's id); false when it must end. */
  keep(proc: CliConversation, history: () => HistoryEntry[], link: ChainLink): boolean;
  /** The turn paused at tool calls: `proc` waits for their results with `history`; false when it cannot wait. */
  park(proc: CliConversation, history: () => HistoryEntry[], link: ChainLink): boolean;
}
