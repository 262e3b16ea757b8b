// What each route of the proxy is, declared once (docs/architecture.md "The route table"): its method and path,
// the error family it speaks (docs/interface.md "Errors": compatible, native, general), the mode it belongs to (its
// on/off setting and metrics label), whether it is a probe (health and metrics: never rate limited, logged at
// debug, an "unhealthy" 503 not counted as a failure) and whether it is in the usage ledger's scope
// (docs/usage.md). Everything else is derived from this table: the error-shape matcher (familyOf), the rate
// limiter's exemptions, the request log's probe and ledger rules, the desktop's probe filter, and http/add-route.ts
// refuses to register a route that is not declared here. Adding a route means a row here and its handler.
// Pure, no Node imports: src/main reads the probe filter from it.

import type { ModeName } from '../shared/modes.js';

export type Family = 'compat' | 'native' | 'general' | 'ollama';
export type RouteMode = ModeName | 'none';

interface RouteDecl {
  method: 'GET' | 'POST' | 'DELETE';
  /** The router pattern (also the metrics label and the ledger's route). */
  path: string;
  family: Family;
  mode: RouteMode;
  /** Health and metrics: never rate limited, never in the ledger, logged at debug level. */
  probe: boolean;
  /** Recorded in the usage ledger: the traffic the proxy carries (a mode's routes), not its own endpoints. */
  ledger: boolean;
  /** Answered to any caller, a web page of another origin or a client without the access key: it reveals nothing
   * and does no work (docs/security.md). */
  open: boolean;
  /** A chat route: the client wire format it speaks (a folder under formats/; routes/wire-routes.ts registers the
   * formats on the contract, formats/format.ts). The answer path is the same for every format and mode. */
  format?: string;
  /** The mode is a setting's, not the row's (the Ollama listener's chats: OLLAMA_MODE); `mode` is the default. */
  modeBySetting: boolean;
}

type Row = [
  method: RouteDecl['method'],
  path: string,
  family: Family,
  mode: RouteMode,
  extra?: { probe?: boolean; ledger?: boolean; open?: boolean; format?: string; modeBySetting?: boolean },
];

const rows: Row[] = [
  // The proxy's own endpoints.
  // GET / ("… is running", docs/lessons.md "First run") and the basic GET /health (docs/interface.md "Health record")
  // are open to every caller; everything else may be refused by the cross-site guard and the access key.
  ['GET', '/', 'general', 'none', { open: true }],
  ['GET', '/health', 'general', 'none', { probe: true, open: true }],
  ['GET', '/health/detailed', 'general', 'none', { probe: true }],
  ['GET', '/metrics', 'general', 'none', { probe: true }],
  ['GET', '/usage/requests', 'general', 'none'],
  ['GET', '/usage/requests/:id', 'general', 'none'],
  ['GET', '/usage/summary', 'general', 'none'],
  ['GET', '/usage/limits', 'general', 'none'],
  ['GET', '/usage/export.csv', 'general', 'none'],
  // The profile's model list (docs/interface.md "Models"), in each base URL's family.
  ['GET', '/v1/models', 'native', 'none'],
  ['GET', '/v1/models/:id', 'native', 'none'],
  ['GET', '/cc/v1/models', 'native', 'none'],
  ['GET', '/cc/v1/models/:id', 'native', 'none'],
  ['GET', '/compat/v1/models', 'compat', 'none'],
  ['GET', '/compat/v1/models/:id', 'compat', 'none'],
  ['GET', '/sdk/models', 'compat', 'none'],
  ['GET', '/sdk/models/:id', 'compat', 'none'],
  // Tool mode (docs/tool-mode.md). /messages answers as /v1/messages: SDKs that append /messages to a base URL
  // reach it from the proxy's root (docs/clients.md).
  ['POST', '/v1/chat/completions', 'native', 'tool', { format: 'native-chat' }],
  ['POST', '/cc/v1/chat/completions', 'compat', 'tool', { format: 'compat' }],
  ['POST', '/sdk/v1/chat/completions', 'compat', 'tool', { format: 'compat' }],
  ['POST', '/compat/v1/chat/completions', 'compat', 'tool', { format: 'compat' }],
  ['POST', '/v1/messages', 'native', 'tool', { format: 'messages' }],
  ['POST', '/messages', 'native', 'tool', { format: 'messages' }],
  ['POST', '/cc/v1/messages', 'native', 'tool', { format: 'messages' }],
  ['POST', '/v1/messages/count_tokens', 'native', 'tool'],
  ['POST', '/messages/count_tokens', 'native', 'tool'],
  ['POST', '/cc/v1/messages/count_tokens', 'native', 'tool'],
  // The Responses API (docs/clients.md "Codex and the Responses API"): OpenAI-shaped errors on every base URL.
  ['POST', '/compat/v1/responses', 'compat', 'tool', { format: 'responses' }],
  ['POST', '/v1/responses', 'compat', 'tool', { format: 'responses' }],
  ['POST', '/cc/v1/responses', 'compat', 'tool', { format: 'responses' }],
  // The compact endpoint of each Responses base URL (docs/compaction.md).
  ['POST', '/compat/v1/responses/compact', 'compat', 'tool', { format: 'responses-compact' }],
  ['POST', '/v1/responses/compact', 'compat', 'tool', { format: 'responses-compact' }],
  ['POST', '/cc/v1/responses/compact', 'compat', 'tool', { format: 'responses-compact' }],
  // Kept responses (docs/responses-store.md), read and removed by id; and the WebSocket handshake of each Responses
  // base URL (responses/socket/): its responses are rows of their own, the handshake is not.
  ['GET', '/compat/v1/responses/:id', 'compat', 'tool', { ledger: false }],
  ['DELETE', '/compat/v1/responses/:id', 'compat', 'tool', { ledger: false }],
  ['GET', '/v1/responses/:id', 'compat', 'tool', { ledger: false }],
  ['DELETE', '/v1/responses/:id', 'compat', 'tool', { ledger: false }],
  ['GET', '/cc/v1/responses/:id', 'compat', 'tool', { ledger: false }],
  ['DELETE', '/cc/v1/responses/:id', 'compat', 'tool', { ledger: false }],
  ['GET', '/compat/v1/responses', 'compat', 'tool', { ledger: false }],
  ['GET', '/v1/responses', 'compat', 'tool', { ledger: false }],
  ['GET', '/cc/v1/responses', 'compat', 'tool', { ledger: false }],
  // Direct mode (docs/direct-mode.md). /api/messages answers as /api/v1/messages, for the same SDKs.
  ['POST', '/api/v1/messages', 'native', 'direct'],
  ['POST', '/api/messages', 'native', 'direct'],
  ['POST', '/api/v1/messages/count_tokens', 'native', 'direct'],
  ['POST', '/api/messages/count_tokens', 'native', 'direct'],
  ['POST', '/api/v1/chat/completions', 'compat', 'direct', { format: 'compat' }],
  ['POST', '/api/v1/responses', 'compat', 'direct', { format: 'responses' }],
  ['POST', '/api/v1/responses/compact', 'compat', 'direct', { format: 'responses-compact' }],
  ['GET', '/api/v1/responses/:id', 'compat', 'direct', { ledger: false }],
  ['DELETE', '/api/v1/responses/:id', 'compat', 'direct', { ledger: false }],
  ['GET', '/api/v1/responses', 'compat', 'direct', { ledger: false }],
  ['GET', '/api/v1/models', 'native', 'direct'],
  ['GET', '/api/v1/models/:id', 'native', 'direct'],
  ['GET', '/api/models', 'native', 'direct'],
  ['GET', '/api/models/:id', 'native', 'direct'],
  // Response-API mode (docs/respapi-mode.md); its errors are compatible-format (docs/interface.md "Compatible errors").
  ['POST', '/respapi/responses', 'compat', 'respapi'],
  ['POST', '/respapi/:session_id/responses', 'compat', 'respapi'],
  // The Ollama listener (docs/ollama.md), a second port: its requests are routed under the internal prefix
  // /ollama (ollama/app.ts adds it to each path), so its routes have their own rows, labels and ledger route
  // beside the main listener's same paths. Every one of its requests is in the ledger: they are all a client's
  // traffic. Its /v1 is the compatible format, as Ollama's own is. The chats' mode is OLLAMA_MODE's (tool unless it
  // says direct; http/add-route.ts takes the registrar's mode for these rows).
  ['GET', '/ollama', 'ollama', 'none', { open: true, ledger: true }],
  ['GET', '/ollama/api/version', 'ollama', 'none', { ledger: true }],
  ['GET', '/ollama/api/tags', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/show', 'ollama', 'none', { ledger: true }],
  ['GET', '/ollama/api/ps', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/chat', 'ollama', 'tool', { format: 'ollama-chat', modeBySetting: true }],
  ['POST', '/ollama/api/generate', 'ollama', 'tool', { format: 'ollama-generate', modeBySetting: true }],
  ['POST', '/ollama/api/pull', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/push', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/create', 'ollama', 'none', { ledger: true }],
  ['DELETE', '/ollama/api/delete', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/copy', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/embed', 'ollama', 'none', { ledger: true }],
  ['POST', '/ollama/api/embeddings', 'ollama', 'none', { ledger: true }],
  ['GET', '/ollama/v1/models', 'compat', 'none', { ledger: true }],
  ['GET', '/ollama/v1/models/:id', 'compat', 'none', { ledger: true }],
  ['POST', '/ollama/v1/chat/completions', 'compat', 'tool', { format: 'compat', modeBySetting: true }],
];

export const routeTable: readonly RouteDecl[] = rows.map(([method, path, family, mode, extra]) => ({
  method,
  path,
  family,
  mode,
  probe: extra?.probe ?? false,
  ledger: extra?.ledger ?? mode !== 'none',
  open: extra?.open ?? false,
  ...(extra?.format ? { format: extra.format } : {}),
  modeBySetting: extra?.modeBySetting ?? false,
}));

/**
 * Families of paths no route serves (an unknown path under a base URL still gets its format's error shape). A
 * declared route's own family wins: /api/v1/chat/completions is compat inside the native /api/v1 area.
 */
const familyAreas: ReadonlyArray<readonly [prefix: string, family: Family]> = [
  ['/ollama/v1', 'compat'],
  ['/ollama', 'ollama'],
  ['/compat', 'compat'],
  ['/respapi', 'compat'],
  ['/v1', 'native'],
  ['/api/v1', 'native'],
  ['/cc/v1', 'native'],
];

// A path may have rows for several methods (a Responses base URL: POST a response, GET its socket handshake); the
// facts read by pattern alone (family, probe, ledger) are the first row's, and a row of another method that must
// stay out of the ledger says so itself (ctx.state.offLedger).
const byPath = new Map<string, RouteDecl>();
const byMethodPath = new Map<string, RouteDecl>();
for (const decl of routeTable) {
  if (!byPath.has(decl.path)) byPath.set(decl.path, decl);
  byMethodPath.set(`${decl.method} ${decl.path}`, decl);
}

/** Declared paths in lower case (the router matches case-insensitively, @koa/router's default). */
const staticFamily = new Map<string, Family>();
const patternFamily: Array<[RegExp, Family]> = [];
for (const decl of routeTable) {
  if (decl.path.includes(':')) {
    const source = decl.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+');
    patternFamily.push([new RegExp(`^${source}/?$`, 'i'), decl.family]);
  } else {
    staticFamily.set(decl.path.toLowerCase(), decl.family);
  }
}

/** The declaration of a route pattern (ctx.state.route), or undefined for 'unmatched'. */
export function routeOf(path: string): RouteDecl | undefined {
  return byPath.get(path);
}

/** The declaration registered for a method and pattern; throws for one the table lacks (a programming error). */
export function declaredRoute(method: RouteDecl['method'], path: string): RouteDecl {
  const decl = byMethodPath.get(`${method} ${path}`);
  if (!decl) throw new Error(`route-table.ts declares no route ${method} ${path}: add its row there`);
  return decl;
}

/** Which error wire shape a request path speaks (docs/interface.md "Errors"), matched case-insensitively as routed. */
export function familyOf(path: string): Family {
  let lower = path.toLowerCase();
  if (lower.length > 1 && lower.endsWith('/')) lower = lower.slice(0, -1);
  const own = staticFamily.get(lower);
  if (own) return own;
  for (const [re, family] of patternFamily) if (re.test(lower)) return family;
  for (const [prefix, family] of familyAreas) {
    if (lower === prefix || lower.startsWith(`${prefix}/`)) return family;
  }
  return 'general';
}

export type Listener = 'main' | 'ollama';

/** Which listener serves a declared route: the Ollama listener's are under its internal prefix (ollama/app.ts). */
export function listenerOf(path: string): Listener {
  return path === '/ollama' || path.startsWith('/ollama/') ? 'ollama' : 'main';
}

/** Request paths of the probes, exact (the rate limiter's exemptions). */
const probePaths = new Set(routeTable.filter((r) => r.probe).map((r) => r.path));

export function isProbePath(path: string): boolean {
  return probePaths.has(path);
}

/** Paths of the open routes in lower case (all are static GET routes). */
const openPaths = new Set(routeTable.filter((r) => r.open).map((r) => r.path.toLowerCase()));

/** Is this request an open route's (GET or HEAD, matched like the router: case-insensitive, one trailing slash)? */
export function isOpenRoute(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return openPaths.has(p.toLowerCase());
}

/** A route pattern as metrics and the window record it ('unmatched' included): is it a probe? */
export function isProbeRoute(route: string): boolean {
  return byPath.get(route)?.probe === true;
}

/**
 * In the usage ledger's scope: a declared route with `ledger`, or a request refused before routing (rate limit,
 * access key, host) whose path lies in one of the API families (docs/usage.md).
 */
export function inLedgerScope(route: string, family: Family): boolean {
  const decl = byPath.get(route);
  if (decl) return decl.ledger;
  return route === 'unmatched' && family !== 'general';
}
