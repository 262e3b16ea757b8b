// The per-conversation MCP server that offers a client's own tools to its assistant CLI (docs/tool-mode.md "The
// client's own tools"), built on the official MCP TypeScript SDK (streamable HTTP transport).
//
// - It listens on 127.0.0.1 with an OS-chosen port and answers only requests that carry the conversation's secret as
//   a bearer token (the CLI sends it from the owner-only --mcp-config file); anything else gets a 401 before the SDK
//   sees it. So another local process cannot list or answer a conversation's tools.
// - tools/list answers the tools of the request that started the conversation.
// - tools/call is handed out, never run here: the call (tool name, arguments, the provider's tool_use id from
//   _meta) waits until `answer(id, result)` gives the client's result, or the server closes (then the call fails).
//   A result may arrive before the call does (the CLI calls a turn's tools one after the other): it is kept and
//   given to the call when it comes.
// - It is hardened against other local processes (docs/tool-mode.md "The client's own tools"): at most
//   `maxConnections` open connections (the CLI uses one or two), a request head must arrive within 5 s, the Host
//   must be the loopback address it listens on and a browser's Origin, if any, must be that same address (so a web
//   page cannot reach it through DNS rebinding); everything else is refused before the secret is even compared.

import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, ServerResponse, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream/promises';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpCallResult, McpToolDefinition } from '../translate/native-tools-to-mcp.js';

interface ClientToolServerOptions {
  tools: McpToolDefinition[];
  /** The header that carries the secret (profile.cli.clientTools.secretHeader). */
  secretHeader: string;
  /** The _meta field that holds the provider's tool_use id (profile.cli.clientTools.toolUseIdMeta). */
  toolUseIdMeta: string;
  /** Called when the CLI calls a tool (for logs and tests). */
  onCall?: (call: { id: string; name: string }) => void;
  /** How soon a request head must arrive (default mcpHeadTimeoutMs). */
  headTimeoutMs?: number;
  /** Open connections at most (default 8); more are closed on arrival. */
  maxConnections?: number;
  /** Called for each accepted socket, returning its release; false refuses it (the proxy's own connection cap). */
  admit?: () => (() => void) | false;
}

/** A request head must arrive this soon: only the CLI talks to this server, and it sends at once. */
const mcpHeadTimeoutMs = 5000;
const defaultMaxConnections = 8;

interface Waiting {
  resolve: (result: McpCallResult) => void;
  /** The HTTP answer the call's result is written on (the SDK's SSE stream of that POST). */
  answer?: ServerResponse;
}

/** The field of the SDK's per-request auth info that carries the request's HTTP answer to the call handler. */
const answerKey = 'answer';

export class ClientToolServer {
  readonly secret = randomBytes(32).toString('base64url');
  private readonly waiting = new Map<string, Waiting>();
  private readonly early = new Map<string, McpCallResult>();
  private readonly calls: string[] = [];
  private closed = false;

  private constructor(
    private readonly http: HttpServer,
    private readonly mcp: Server,
    readonly url: string,
  ) {}

  static async start(opts: ClientToolServerOptions): Promise<ClientToolServer> {
    const mcp = new Server({ name: 'assistant-proxy-client-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    // The handlers are set before the instance exists (it needs the port); they find it here.
    const ref: { server?: ClientToolServer } = {};
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: opts.tools }));
    mcp.setRequestHandler(CallToolRequestSchema, (req, extra) => {
      const id = req.params._meta?.[opts.toolUseIdMeta];
      if (typeof id !== 'string' || id === '' || !ref.server) {
        return {
          content: [
            { type: 'text', text: 'The call carried no tool_use id, so the client cannot be asked for its result.' },
          ],
          isError: true,
        };
      }
      opts.onCall?.({ id, name: req.params.name });
      const answer = extra.authInfo?.extra?.[answerKey];
      return ref.server.waitFor(id, extra.signal, answer instanceof ServerResponse ? answer : undefined);
    });
    await mcp.connect(transport);
    const header = opts.secretHeader.toLowerCase();
    let expected = Buffer.alloc(0);
    let port = 0;
    // The head deadline is checked every second, not at node's default of 30 s.
    const http = createServer(
      { connectionsCheckingInterval: 1000, requestTimeout: 0, headersTimeout: opts.headTimeoutMs ?? mcpHeadTimeoutMs },
      (req, res) => {
        // Loopback Host and no foreign Origin: refused before the secret is compared.
        const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
        const origin = req.headers.origin;
        if (
          !hosts.includes(String(req.headers.host ?? '').toLowerCase()) ||
          (origin !== undefined && !hosts.some((h) => origin.toLowerCase() === `http://${h}`))
        ) {
          res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden');
          return;
        }
        const got = Buffer.from(String(req.headers[header] ?? ''));
        // Compared in constant time, as the proxy's own access key is (docs/security.md).
        if (expected.length === 0 || got.length !== expected.length || !timingSafeEqual(got, expected)) {
          res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
          return;
        }
        // The SDK hands a request's auth info to its handlers (extra.authInfo): the request is authenticated by now,
        // and its HTTP answer rides along, so close() can wait until a held call's result is written on it.
        const authed = Object.assign(req, {
          auth: { token: '', clientId: 'cli', scopes: [], extra: { [answerKey]: res } } satisfies AuthInfo,
        });
        transport.handleRequest(authed, res).catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
          else res.destroy();
        });
      },
    );
    // A call waits for a client as long as CLI_TOOL_RESULT_TIMEOUT_MS allows; Node's default request limits must not end it first.
    http.maxConnections = opts.maxConnections ?? defaultMaxConnections;
    if (opts.admit) {
      const admit = opts.admit;
      http.prependListener('connection', (socket: Socket) => {
        const release = admit();
        if (release === false) {
          socket.destroy();
          return;
        }
        socket.once('close', release);
      });
    }
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    port = (http.address() as { port: number }).port;
    const server = new ClientToolServer(http, mcp, `http://127.0.0.1:${port}/mcp`);
    ref.server = server;
    expected = Buffer.from(`Bearer ${server.secret}`);
    return server;
  }

  /** Ids of the tools/call requests received so far, in order. */
  callIds(): readonly string[] {
    return this.calls;
  }

  /** Gives the client's result to the call with this tool_use id, now or when it comes. */
  answer(id: string, result: McpCallResult): void {
    const waiting = this.waiting.get(id);
    if (waiting) {
      this.waiting.delete(id);
      waiting.resolve(result);
    } else {
      this.early.set(id, result);
    }
  }

  private waitFor(id: string, signal: AbortSignal, answer?: ServerResponse): Promise<McpCallResult> {
    this.calls.push(id);
    const early = this.early.get(id);
    if (early) {
      this.early.delete(id);
      return Promise.resolve(early);
    }
    if (this.closed) return Promise.reject(new Error('the conversation has ended'));
    return new Promise<McpCallResult>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(id);
        reject(new Error('the call was cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        resolve: (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        answer,
      });
    });
  }

  /** Ends every waiting call with an error result and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const written: Array<Promise<unknown>> = [];
    for (const [id, waiting] of this.waiting) {
      this.waiting.delete(id);
      waiting.resolve({
        content: [{ type: 'text', text: 'The client did not send a result for this call.' }],
        isError: true,
      });
      // The SDK writes that result on the call's own HTTP answer and then ends it, a few ticks later; closing the
      // transport and the connections first would drop it and leave the caller waiting on a dead stream. The end of
      // that answer (or its connection closing under it) is what is waited for.
      if (waiting.answer) written.push(finished(waiting.answer).catch(() => undefined));
    }
    await Promise.all(written);
    await this.mcp.close().catch(() => undefined);
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
