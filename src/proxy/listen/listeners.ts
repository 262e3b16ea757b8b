// The listeners' life: the main port and, when OLLAMA_PORT is set, the Ollama port (docs/ollama.md), each an HTTP
// server over an app the composition root (server.ts) made. Here, and nowhere else:
// - the servers' receive deadlines, connection caps (connection-caps.ts) and node's own refusals (http/client-error.ts);
// - binding (bind.ts): the main port's failure is the start's, the Ollama port's is a state the proxy runs on with;
// - the open sockets, counted in the cap together with the sockets the proxy opens itself (admitSocket);
// - shutdown (docs/http.md "Shutdown"): stop accepting, close idle connections, let the in-flight requests end within
//   the grace period (awaited on their end, in-flight.ts), then abort them and await their end (bounded), and destroy
//   what is left.

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import type { Config } from '../config.js';
import { onClientError } from '../http/client-error.js';
import type { RefusalLog } from '../http/refusal-log.js';
import type { ProxyState } from '../http/state.js';
import type { Logger } from '../logger.js';
import type { ProxyMetrics } from '../metrics.js';
import { bind, PortInUseError } from './bind.js';
import { attachConnectionCaps } from './connection-caps.js';
import type { InFlight } from './in-flight.js';

/** What the Ollama port is doing, for the start-up summary, health and the window. */
export type OllamaListenerStatus =
  | { state: 'off' }
  | { state: 'listening'; port: number; url: string }
  | { state: 'port-in-use'; port: number; message: string }
  | { state: 'failed'; port: number; message: string };

/** Room in the main listener's connection cap for a socket the proxy opens itself: false when there is none, else
 * the function to call when that socket closes. */
export type SocketAdmission = () => (() => void) | false;

interface ListenersOptions {
  config: Pick<Config, 'host' | 'port' | 'ollamaPort' | 'maxConnections' | 'maxConnectionsPerClient' | 'bodyTimeoutMs'>;
  logger: Logger;
  metrics: Pick<ProxyMetrics, 'refusedConnections'>;
  now: () => number;
  /** The guards' refusal log, which node's own refusals share (http/client-error.ts). */
  refusals: RefusalLog;
  /** The requests being answered, which a shutdown waits for. */
  inFlight: InFlight;
  /** The main listener's app. */
  app: Koa<ProxyState>;
  /** The Ollama listener's app, when OLLAMA_PORT is set. */
  ollamaApp?: Koa<ProxyState>;
  /** What else the main listener's server serves, attached before it binds (the Responses WebSocket's upgrades). */
  attach?(server: Server): void;
}

/** A request head must arrive within this; clients send it at once (docs/security.md, "Another local user"). */
const headersTimeoutMs = 15_000;
/** An idle kept-alive connection is closed after this; client pools reconnect on their own. */
const keepAliveTimeoutMs = 30_000;
/** How long requests aborted at the end of the grace period may take to end (their CLI child or upstream call ended,
 * their error written) before their sockets are destroyed under them. */
const abortedEndMs = 1_000;

export class Listeners {
  private main: Server | undefined;
  private ollamaServer: Server | undefined;
  private ollamaStatus: OllamaListenerStatus = { state: 'off' };
  /** The open connections of both listeners, destroyed at the end of a shutdown. */
  private readonly sockets = new Set<Socket>();
  /** Sockets the proxy opened itself that count in the main listener's cap (SocketAdmission). */
  private ownSockets = 0;

  constructor(private readonly opts: ListenersOptions) {}

  /** The main listener's server; undefined when not listening. */
  get server(): Server | undefined {
    return this.main;
  }

  /** The port the main listener bound (differs from config.port when that is 0); undefined when not listening. */
  get port(): number | undefined {
    return this.main ? (this.main.address() as AddressInfo).port : undefined;
  }

  /** The Ollama listener's state (docs/ollama.md): off, listening, or its port taken. */
  ollama(): OllamaListenerStatus {
    return this.ollamaStatus;
  }

  /** Binds the main port (rejects with PortInUseError when it is taken), then the Ollama port when there is one. */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    const { config, app, ollamaApp, logger } = this.opts;
    const main = this.serve(app);
    this.opts.attach?.(main);
    await bind(main, config.host, config.port, { flag: '--port', env: 'PORT' });
    main.on('error', (err) => logger.error({ err }, 'server error'));
    this.main = main;
    this.fitRoom();
    if (ollamaApp) await this.listenOllama(ollamaApp, config.ollamaPort ?? 0);
    const addr = main.address() as AddressInfo;
    return { host: addr.address, port: addr.port, url: urlOf(addr) };
  }

  /**
   * A socket the proxy opens itself (tool mode's per-conversation MCP servers, docs/tool-mode.md "The client's own
   * tools") counts in MAX_CONNECTIONS of the main listener: it is refused when the cap is reached, and while it is
   * open the main listener has one connection less.
   */
  readonly admitSocket: SocketAdmission = () => {
    if (this.sockets.size + this.ownSockets >= this.opts.config.maxConnections) return false;
    this.ownSockets++;
    this.fitRoom();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.ownSockets--;
      this.fitRoom();
    };
  };

  /** Stops accepting, lets in-flight requests end up to `graceMs`, then ends them; resolves once both ports are closed. */
  async close(graceMs: number): Promise<void> {
    const servers = [this.main, this.ollamaServer].filter((s): s is Server => s !== undefined);
    this.main = undefined;
    this.ollamaServer = undefined;
    if (this.opts.ollamaApp) this.ollamaStatus = { state: 'off' };
    const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
    for (const s of servers) s.closeIdleConnections();
    await this.drain(graceMs);
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(closed);
  }

  /** The in-flight requests end within the grace period; past it they are aborted and awaited a little longer. */
  private async drain(graceMs: number): Promise<void> {
    const { inFlight, logger } = this.opts;
    if (await within(inFlight.drained(), graceMs)) return;
    logger.warn({ inFlight: inFlight.size }, 'shutdown grace period over; ending in-flight requests');
    inFlight.abortAll(new Error('server shutting down'));
    if (!(await within(inFlight.drained(), abortedEndMs)))
      logger.warn(
        { inFlight: inFlight.size },
        'in-flight requests did not end when aborted; closing their connections',
      );
  }

  /** The main listener takes what the proxy's own sockets leave of the cap. */
  private fitRoom(): void {
    if (this.main) this.main.maxConnections = this.opts.config.maxConnections - this.ownSockets;
  }

  /** An HTTP server for one listener's app, with the deadlines, connection caps and refusals every listener has. */
  private serve(app: Koa<ProxyState>): Server {
    const { config, logger, metrics, now, refusals } = this.opts;
    const callback = app.callback();
    // requestTimeout covers receiving the request only (head and body), never the answer, so long streams are not
    // cut; it closes a connection that drips a body to a path that never reads it (docs/security.md), a second
    // after the body deadline, so routes answer 408 first. A connection that has not sent a whole request head
    // within headersTimeout, or sits idle between requests for keepAliveTimeout, is closed, so held sockets are
    // reclaimed; the connection caps bound how many there are.
    const receiveMs = config.bodyTimeoutMs + 1_000;
    // requireHostHeader off: node's own 400 for an HTTP/1.1 request without Host would have no nosniff and no body;
    // the host guard answers it instead, in the family's shape (docs/http.md "Requests node refuses").
    const server = createServer(
      {
        requestTimeout: receiveMs,
        headersTimeout: Math.min(headersTimeoutMs, receiveMs),
        connectionsCheckingInterval: 1_000,
        requireHostHeader: false,
      },
      callback,
    );
    server.keepAliveTimeout = keepAliveTimeoutMs;
    attachConnectionCaps(server, {
      total: config.maxConnections,
      perClient: config.maxConnectionsPerClient,
      warn: (fields, message) => logger.warn(fields, message),
      refused: (reason) => metrics.refusedConnections.labels(reason).inc(),
      now,
    });
    // An unknown Expect value would otherwise get node's bare 417; through Koa it gets a family-shaped answer.
    server.on('checkExpectation', callback);
    // What node's parser refuses (a malformed request, a head over the size limit, a receive deadline) is answered
    // with node's status but with nosniff and a body (http/client-error.ts).
    server.on(
      'clientError',
      onClientError({ log: (level, fields, message) => logger[level](fields, message), refusals }),
    );
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  /**
   * The Ollama port is an extra: when it cannot be bound (a real Ollama already has 11434) the proxy says so in
   * one line and runs on without it; the state is shown by health, the start-up summary and the window.
   */
  private async listenOllama(app: Koa<ProxyState>, port: number): Promise<void> {
    const { config, logger } = this.opts;
    const server = this.serve(app);
    try {
      await bind(server, config.host, port, { flag: '--ollama-port', env: 'OLLAMA_PORT' });
    } catch (err) {
      const inUse = err instanceof PortInUseError;
      const message = inUse
        ? `Ollama port ${port} is already in use on ${config.host} (is Ollama itself running?); the Ollama API is off, the proxy runs on. Choose another port with --ollama-port or OLLAMA_PORT.`
        : `The Ollama API could not listen on ${config.host}:${port}: ${(err as Error).message}`;
      this.ollamaStatus = { state: inUse ? 'port-in-use' : 'failed', port, message };
      logger.warn({ port, host: config.host }, message);
      return;
    }
    server.on('error', (err) => logger.error({ err }, 'server error'));
    this.ollamaServer = server;
    const addr = server.address() as AddressInfo;
    this.ollamaStatus = { state: 'listening', port: addr.port, url: urlOf(addr) };
  }
}

function urlOf(addr: AddressInfo): string {
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${shownHost}:${addr.port}`;
}

/** Whether `settled` settles within `ms`. */
async function within(settled: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([settled.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
