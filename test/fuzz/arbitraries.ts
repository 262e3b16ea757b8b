// fast-check generators of requests to the proxy: the documented routes with valid bodies (docs/interface.md: the
// native, compatible and response-API chat requests and the native message form), and hostile variations of every part
// a client controls: method, request target, Host, headers and body. Hostile values are drawn from what breaks parsers
// in practice: dot segments and encoded slashes, wrong case, deep nesting, lone surrogates, prototype keys, huge
// numbers, truncated JSON.

import fc from 'fast-check';
import { defaultProfile } from '../../src/proxy/profile.js';
import type { RawRequest } from './bed.js';

export type BodyKind =
  'nativeMessages' | 'nativeChat' | 'compat' | 'respapi' | 'countTokens' | 'directMessages' | 'directCompat';

export interface RouteDef {
  method: 'GET' | 'POST';
  /** A concrete request target. */
  path: string;
  body?: BodyKind;
}

const nativeModels = defaultProfile.models.map((m) => m.id);
/** Whether the model takes sampling settings: today's adaptive-only models refuse them (docs/models.md). */
const takesSampling = (id: string): boolean => {
  const thinking = defaultProfile.models.find((m) => m.id === id)?.capabilities?.thinking;
  return !(thinking?.length === 1 && thinking[0] === 'adaptive');
};
const respapiModels = defaultProfile.respapiModels.map((m) => m.id);

/** Every route of docs/interface.md "Endpoints" this proxy serves, plus its own additions (docs/http.md). */
export const routes: RouteDef[] = [
  { method: 'POST', path: '/v1/chat/completions', body: 'nativeChat' },
  { method: 'POST', path: '/cc/v1/chat/completions', body: 'compat' },
  { method: 'POST', path: '/sdk/v1/chat/completions', body: 'compat' },
  { method: 'POST', path: '/compat/v1/chat/completions', body: 'compat' },
  { method: 'POST', path: '/v1/messages', body: 'nativeMessages' },
  { method: 'POST', path: '/cc/v1/messages', body: 'nativeMessages' },
  { method: 'POST', path: '/api/v1/messages', body: 'directMessages' },
  { method: 'POST', path: '/api/v1/messages/count_tokens', body: 'countTokens' },
  { method: 'POST', path: '/api/v1/chat/completions', body: 'directCompat' },
  { method: 'POST', path: '/respapi/responses', body: 'respapi' },
  { method: 'POST', path: '/respapi/fuzz-session-1/responses', body: 'respapi' },
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/compat/v1/models' },
  { method: 'GET', path: '/sdk/models' },
  { method: 'GET', path: '/cc/v1/models' },
  { method: 'GET', path: '/api/models' },
  { method: 'GET', path: '/api/v1/models' },
  { method: 'GET', path: `/v1/models/${nativeModels[1]}` },
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/health/detailed' },
  { method: 'GET', path: '/metrics' },
];

/** Targets fuzzed as near misses too, though not (yet) answered 200 in every build: GET / (docs/clients.md). */
const otherTargets = [
  '/',
  '/v1',
  '/compat/v1',
  '/respapi',
  '/api/v1/messages/batches',
  '/v1/completions',
  '/v1/embeddings',
];
const knownTargets = [...routes.map((r) => r.path), ...otherTargets];

export const jsonRoutes = routes.filter((r) => r.body !== undefined);

/** Upstream paths the provider may see (the simulator's routes; docs/direct-mode.md, docs/respapi-mode.md). */
export const documentedUpstreamPaths = new Set([
  '/v1/messages',
  '/v1/messages/count_tokens',
  '/v1/models',
  '/v1/oauth/token',
  '/respapi/responses',
  '/respapi-oauth/token',
]);

const prompt = fc.string({ minLength: 0, maxLength: 40, unit: 'grapheme' }).map((s) => `Say ${s}`);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const withoutUndefined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const history = fc.oneof(
  prompt.map((p) => [{ role: 'user', content: p }]),
  fc.tuple(prompt, prompt, prompt).map(([a, b, c]) => [
    { role: 'user', content: a },
    { role: 'assistant', content: b },
    { role: 'user', content: c },
  ]),
);

const schema = fc.constantFrom(
  { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  {
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'object', properties: { n: { type: 'number' } } } } },
  },
  { type: 'object', properties: {} },
);
const compatTools = fc.array(
  fc.record({
    type: fc.constant('function'),
    function: fc.record({ name: fc.constantFrom('get_weather', 'lookup'), description: prompt, parameters: schema }),
  }),
  { minLength: 1, maxLength: 2 },
);
const nativeTools = fc.array(
  fc.record({ name: fc.constantFrom('get_weather', 'lookup'), description: prompt, input_schema: schema }),
  { minLength: 1, maxLength: 2 },
);
const responseFormat = fc.oneof(
  fc.constant({ type: 'json_object' }),
  schema.map((s) => ({ type: 'json_schema', json_schema: { name: 'answer', schema: s } })),
);
// A finished tool round in native block form: the assistant's tool_use, then the user's tool_result.
const toolRound = fc.tuple(prompt, fc.jsonValue({ maxDepth: 2 }), prompt).map(([ask, input, result]) => [
  { role: 'user', content: ask },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_fuzz_1', name: 'lookup', input: { q: input } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_fuzz_1', content: result }] },
]);

/** A valid body for each kind. */
export function validBody(kind: BodyKind): fc.Arbitrary<Record<string, unknown>> {
  switch (kind) {
    case 'nativeMessages':
    case 'nativeChat':
      return (
        fc
          .record({
            model: fc.constantFrom(...nativeModels),
            max_tokens: fc.integer({ min: 1, max: 4096 }),
            messages: history,
            stream: maybe(fc.boolean()),
            system: maybe(prompt),
            temperature: maybe(fc.double({ min: 0, max: 1, noNaN: true })),
          })
          // The native route is the client's own request, passed on unfitted (docs/models.md): a valid one leaves out
          // the sampling settings a model refuses, as a client of today's models does.
          .map(({ temperature, ...rest }) =>
            withoutUndefined(takesSampling(rest.model) ? { ...rest, temperature } : rest),
          )
      );
    case 'compat':
      return fc
        .record({
          model: fc.constantFrom(...nativeModels),
          messages: fc
            .tuple(maybe(prompt), history)
            .map(([sys, h]) => (sys === undefined ? h : [{ role: 'system', content: sys }, ...h])),
          stream: maybe(fc.boolean()),
          max_tokens: fc.integer({ min: 1, max: 4096 }),
          temperature: maybe(fc.double({ min: 0, max: 2, noNaN: true })),
          user: maybe(fc.string({ maxLength: 10 })),
          response_format: maybe(responseFormat),
        })
        .map(withoutUndefined);
    case 'directMessages':
      return fc
        .tuple(validBody('nativeMessages'), maybe(nativeTools), maybe(toolRound))
        .map(([b, tools, round]) => withoutUndefined({ ...b, tools, messages: round ?? b.messages }));
    case 'directCompat':
      return fc.tuple(validBody('compat'), maybe(compatTools)).map(([b, tools]) => withoutUndefined({ ...b, tools }));
    case 'respapi':
      return fc.oneof(
        fc
          .record({ model: fc.constantFrom(...respapiModels), messages: history, stream: maybe(fc.boolean()) })
          .map(withoutUndefined),
        // The response-API form (docs/respapi-mode.md "Request bodies"): input items and other fields forwarded.
        fc
          .record({
            model: fc.constantFrom(...respapiModels),
            input: fc.oneof(
              prompt,
              prompt.map((p) => [{ role: 'user', content: [{ type: 'input_text', text: p }] }]),
            ),
            instructions: maybe(prompt),
            stream: maybe(fc.boolean()),
            metadata: maybe(fc.dictionary(fc.constantFrom('a', 'b'), fc.string({ maxLength: 8 }))),
          })
          .map(withoutUndefined),
      );
    case 'countTokens':
      return fc.record({ model: fc.constantFrom(...nativeModels), messages: history });
  }
}

export const validRequest: fc.Arbitrary<{ route: RouteDef; body?: Record<string, unknown> }> = fc
  .constantFrom(...routes)
  .chain((route) => (route.body ? validBody(route.body).map((body) => ({ route, body })) : fc.constant({ route })));

// ---- hostile values ----------------------------------------------------------------------------------------

// Deep values stand in the generated data as a short marker string, expanded only when the body is serialised
// (bodyText): fast-check prints and shrinks generated values recursively, and would itself overflow on them.
const deepMarker = (depth: number) => `\u0001DEEP:${depth}`;

/** The JSON text of a generated body, with deep markers expanded into nesting of that depth. */
export function bodyText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.replace(/"\\u0001DEEP:(\d+)"/g, (_, n: string) => {
    const depth = Number(n);
    return '[{"k":'.repeat(depth / 2) + '"bottom"' + '}]'.repeat(depth / 2);
  });
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom(deepMarker(300), deepMarker(5000), deepMarker(10_000), deepMarker(200)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '\ud800',
      '\udfff x',
      '\u0000',
      '\u202e',
      '%00',
      '${x}',
      '{{x}}',
      '</script>',
      'x'.repeat(70_000),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -1e308, -0, 2 ** 53 + 1, -1, 0, 1.5, 1e-320) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { __proto__: { polluted: true } },
      JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
      { constructor: { prototype: { polluted: true } } },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [[]], [{}], null, true, '') },
);

type Path = Array<string | number>;

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (prefix.length > 6) return out;
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function setAt(root: unknown, path: Path, value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (remove) {
    if (Array.isArray(at)) at.splice(Number(last), 1);
    else delete at[last];
  } else {
    at[last] = value;
  }
  return copy;
}

export type Mutation = { op: 'set' | 'delete' | 'add'; pathIndex: number; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('set' as const, 'set' as const, 'delete' as const, 'add' as const),
  pathIndex: fc.nat(),
  key: fc.oneof(
    fc.constantFrom(
      'tools',
      'tool_choice',
      'response_format',
      'input',
      'content',
      'stream_options',
      'metadata',
      'stop',
      'n',
      '__proto__',
      'constructor',
      'top_k',
      'thinking',
      'system',
      'instructions',
      'parameters',
      'json_schema',
      'reasoning',
    ),
    fc.string({ maxLength: 12 }),
  ),
  value: hostileValue,
});

/** Applies mutations to a valid body: each sets, deletes or adds one field somewhere inside it. */
export function mutate(body: unknown, mutations: Mutation[]): unknown {
  let out = body;
  for (const m of mutations) {
    const paths = pathsOf(out);
    const path = paths[m.pathIndex % paths.length];
    if (m.op === 'delete') out = path.length === 0 ? out : setAt(out, path, undefined, true);
    else if (m.op === 'add') {
      const target =
        path.length === 0 ? out : path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], out);
      if (target && typeof target === 'object' && !Array.isArray(target))
        out = setAt(out, [...path, m.key], m.value, false);
    } else out = setAt(out, path, m.value, false);
  }
  return out;
}

export const mutatedJsonRequest = fc.constantFrom(...jsonRoutes).chain((route) =>
  fc.record({
    route: fc.constant(route),
    body: validBody(route.body!),
    mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  }),
);

const targetChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%/!$&'()*+,;=:@?".split('');
const segment = fc.string({ unit: fc.constantFrom(...targetChars), maxLength: 16 });
const hostileSegment = fc.constantFrom(
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '%2f',
  '%2F',
  '%00',
  '%ff',
  '%',
  '%zz',
  '',
  '~',
  '..%2f',
  '%5c',
  'respapi',
  'v1',
  'api',
);

/** Request targets: documented ones, their near misses, and random ones. Always origin form (starts with /). */
export const requestTarget: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...knownTargets) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...knownTargets),
        fc.constantFrom('upper', 'slash', 'double', 'dots', 'encoded', 'query', 'insert'),
        hostileSegment,
        segment,
      )
      .map(([p, how, hs, seg]) => {
        switch (how) {
          case 'upper':
            return p.toUpperCase();
          case 'slash':
            return `${p}/`;
          case 'double':
            return p.replace('/', '//');
          case 'dots':
            return `/${hs}${p}`;
          case 'encoded':
            return p.replace(/\//g, (m, i: number) => (i === 0 ? m : '%2F'));
          case 'query':
            return `${p}?${seg}`;
          case 'insert': {
            const parts = p.split('/');
            parts.splice(1 + (seg.length % Math.max(1, parts.length - 1)), 0, hs);
            return parts.join('/');
          }
        }
      }),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(segment, hostileSegment), { minLength: 1, maxLength: 5 })
      .map((s) => `/${s.join('/')}`),
  },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(segment, hostileSegment)).map(([s]) => `/respapi/${s}/responses`) },
);

const visible = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

export const hostHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'localhost:8000', '[::1]:1', 'app.localhost'),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '[::1].attacker.com',
      '127.0.0.1:80.attacker.com',
      'localhost:evil',
      'attacker.com',
      'localhost.attacker.com',
      '127.0.0.1.nip.io',
      '[::1',
      'localhost:0',
      'localhost:99999',
      '0x7f000001',
      'user@localhost',
      'localhost,attacker.com',
    ),
  },
  { weight: 1, arbitrary: visible.filter((s) => s.length > 0) },
);

const headerNames = [
  'authorization',
  'x-api-key',
  'anthropic-beta',
  'anthropic-version',
  'x-request-id',
  'accept',
  'origin',
  'x-forwarded-for',
  'x-forwarded-host',
  'cookie',
  'x-proxy-session-id',
  'session_id',
  'openai-beta',
];

export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.oneof(fc.constantFrom(...headerNames), fc.stringMatching(/^x-[a-z0-9-]{1,12}$/)),
  fc.oneof(
    visible,
    fc.constantFrom(
      'Bearer dummy',
      'Bearer ',
      'text/event-stream',
      'null',
      'http://evil.test',
      'prompt-caching-2024-07-31,oauth-2025-04-20',
    ),
  ),
  { maxKeys: 4 },
);

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/vnd.x+json',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
    ),
  },
);

// Methods the HTTP parser knows (an unknown token is refused by node:http itself before the proxy sees it;
// CONNECT switches protocols and is left out for the same reason).
export const method: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('POST') },
  { weight: 3, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE') },
);

export const rawBody: fc.Arbitrary<string | Buffer | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 2, arbitrary: mutatedJsonRequest.map((m) => bodyText(mutate(m.body, m.mutations))) },
  {
    weight: 1,
    arbitrary: fc.tuple(validRequest, fc.nat()).map(([v, cut]) => {
      const t = JSON.stringify(v.body ?? {});
      return t.slice(0, cut % (t.length + 1));
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(validRequest, fc.constantFrom('\ufeff', ' ', 'x', '}', ',', '\u0000'))
      .map(([v, junk]) =>
        junk === '\ufeff' ? junk + JSON.stringify(v.body ?? {}) : JSON.stringify(v.body ?? {}) + junk,
      ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '['.repeat(20_000) + ']'.repeat(20_000),
      `{"model":"m","messages":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    ),
  },
);

/** Any request a client could send: each part independently valid, near-valid or hostile. */
export const anyRequest: fc.Arbitrary<RawRequest> = fc
  .record({ method, target: requestTarget, host: hostHeader, headers: extraHeaders, type: contentType, body: rawBody })
  .map(({ method: m, target, host, headers, type, body }) => {
    const h: Record<string, string> = { ...headers };
    if (host !== undefined) h.host = host;
    if (type !== undefined && body !== undefined) h['content-type'] = type;
    return { method: m, path: target, headers: h, body };
  });
