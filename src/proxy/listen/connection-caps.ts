// Connection caps (docs/security.md "Another local user or process"). Without them one local process opened about
// 20,000 half-open connections, the proxy ran out of file descriptors, and every new client (and the CLI children and
// the usage database, which need descriptors too) failed while they were held. Two caps:
// - total open connections: node's own server.maxConnections, which closes an extra connection on arrival and emits
// 'drop';
// - open connections per client address: counted here, the extra one closed on arrival.
// Either way one warn line says which cap was reached (then at most one line per interval with the number closed
// meanwhile, so a flood cannot flood the log), and assistant_proxy_refused_connections_total counts them. Held sockets
// are reclaimed by the server's timeouts (listeners.ts): headersTimeout for a connection that never finishes its request
// head, keepAliveTimeout for an idle kept-alive one; a stream being answered is never cut.
//
// On loopback every local client has the same address, so the per-client cap cannot tell a hostile local process from
// the user's own tools: it bounds what one address holds so that the proxy keeps descriptors for its own work; it does
// not guarantee a local client a slot (docs/security.md says so).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface ConnectionCapsOptions {
  total: number;
  perClient: number;
  warn(fields: Record<string, unknown>, message: string): void;
  refused(reason: 'total' | 'per_client'): void;
  now?: () => number;
  /** Shortest time between two warn lines of the same cap. */
  logEveryMs?: number;
}

export function attachConnectionCaps(server: Server, opts: ConnectionCapsOptions): { open(address: string): number } {
  const now = opts.now ?? Date.now;
  const logEveryMs = opts.logEveryMs ?? 10_000;
  const perAddress = new Map<string, number>();
  const lastLog = { total: -Infinity, per_client: -Infinity };
  const suppressed = { total: 0, per_client: 0 };

  function report(reason: 'total' | 'per_client', address: string | undefined): void {
    opts.refused(reason);
    const t = now();
    if (t - lastLog[reason] < logEveryMs) {
      suppressed[reason]++;
      return;
    }
    lastLog[reason] = t;
    const limit = reason === 'total' ? opts.total : opts.perClient;
    const closedSince = suppressed[reason];
    suppressed[reason] = 0;
    opts.warn(
      { cap: reason, limit, client: address, closedSinceLastLine: closedSince },
      reason === 'total'
        ? `connection cap reached: ${limit} open connections (MAX_CONNECTIONS); new connections are closed until some end`
        : `connection cap reached: ${limit} open connections from ${address ?? 'one client'} (MAX_CONNECTIONS_PER_CLIENT); its new connections are closed until some end`,
    );
  }

  server.maxConnections = opts.total;
  server.on('drop', (data?: { remoteAddress?: string }) => report('total', data?.remoteAddress));
  // Prepended: the extra connection is closed before the HTTP layer reads a byte of it.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const open = perAddress.get(address) ?? 0;
    if (open >= opts.perClient) {
      socket.destroy();
      report('per_client', address);
      return;
    }
    perAddress.set(address, open + 1);
    socket.once('close', () => {
      const n = (perAddress.get(address) ?? 1) - 1;
      if (n <= 0) perAddress.delete(address);
      else perAddress.set(address, n);
    });
  });
  return { open: (address) => perAddress.get(address) ?? 0 };
}
