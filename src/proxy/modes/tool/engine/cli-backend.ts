// CliBackend (the `Backend` of docs/architecture.md "Modes"): tool mode, where a chat is one turn of an assistant CLI
// process in print mode with stream-json input and output (docs/tool-mode.md). A thin face over the engine (engine.ts),
// whose parts are private to it, for the rest of the proxy: components.ts builds it, the routes stream through it,
// /health and the window read its counts.

import type { NativeRequest, NativeStreamEvent } from '../../../formats/native.js';
import type { Backend, BackendContext } from '../../../chat/backend.js';
import type { SlotCounts } from './child-slots.js';
import type { CliPoolSnapshot } from './warm-pool.js';
import { CliEngine } from './engine.js';
import type { LiveConversationsSnapshot } from './processes.js';
import type { CliBackendOptions } from './options.js';
import { offersFileTools } from '../translate/tool-rules-to-cli-permissions.js';

export class CliBackend implements Backend {
  private readonly engine: CliEngine;

  constructor(private readonly opts: CliBackendOptions) {
    this.engine = new CliEngine(opts);
  }

  stream(req: NativeRequest, signal: AbortSignal, context: BackendContext = {}): AsyncIterable<NativeStreamEvent> {
    return this.engine.stream(req, signal, context);
  }

  /** Ends the live process that answered `previous`, whose history a compaction replaced (docs/compaction.md). */
  release(previous: string): boolean {
    return this.engine.release(previous);
  }

  /**
   * Whether the owner's tool rules (CLI_ALLOWED_TOOLS) offer the CLI a tool on the owner's files: a file tool, or a
   * shell when CLI_UNCONFINED_SHELL allows one. A chat then needs the owner's key (docs/security.md).
   */
  offersFileTools(): boolean {
    const { profile, config } = this.opts;
    return offersFileTools(profile, config.cliAllowedTools, config.cliUnconfinedShell);
  }

  /**
   * How the per-conversation MCP servers' sockets are counted in the main listener's connection cap
   * (listen/listeners.ts): each socket asks, and is refused when the answer is false; otherwise the returned function
   * is called when it closes.
   */
  admitSockets(admit: () => (() => void) | false): void {
    this.engine.admitSockets(admit);
  }

  /** The warm pool's counts and memory, for /health/detailed and the window. */
  poolSnapshot(): CliPoolSnapshot {
    return this.engine.poolSnapshot();
  }

  /** Live conversations, for /health/detailed and the window. */
  liveSnapshot(): LiveConversationsSnapshot {
    return this.engine.liveSnapshot();
  }

  /** Processes waiting for a client's tool results (for tests and health). */
  toolWaitingCount(): number {
    return this.engine.toolWaitingCount();
  }

  /** Children alive right now (for tests and health). */
  childCount(): number {
    return this.engine.childCount();
  }

  slotCounts(): SlotCounts {
    return this.engine.slotCounts();
  }

  /** Shutdown: refuse new chats, end every child (SIGTERM, then SIGKILL), wait until they are gone. */
  close(): Promise<void> {
    return this.engine.close();
  }
}
