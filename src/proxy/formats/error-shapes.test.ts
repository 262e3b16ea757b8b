// Every error shape's bytes, pinned in one literal fixture (__fixtures__/error-shapes.txt): before headers (the
// outermost renderer's whole answer on a path of each family, and the node-parser refusal), after headers (each
// wire format's stream writer, the byte-level forwarder's and the response-API relay's events, through the one
// writer of errors after headers), and the type name each records for the log, metrics and ledger.
// docs/interface.md "Errors" defines the shapes; a change to any byte on the wire shows here as a changed line.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyError, type ErrorKind } from '../errors.js';
import { createLogger } from '../logger.js';
import { defaultProfile } from '../profile.js';
import type { Family } from '../route-table.js';
import { clientErrorAnswer } from '../http/client-error.js';
import { errorRenderer } from '../http/errors.js';
import { requestId } from '../http/request-id.js';
import { encodeSse, type SseEvent } from '../http/sse.js';
import type { ProxyState } from '../http/state.js';
import { failAfterHeaders } from '../http/stream-error.js';
import { respapiErrors } from '../respapi/stream-errors.js';
import { familyErrorShapes } from './error-shapes.js';
import { nativeErrorShape } from './native-error-shape.js';
import { wireFormats } from './registry.js';

const kinds: ErrorKind[] = [
  'invalid_request',
  'authentication',
  'permission',
  'not_found',
  'model_not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limit',
  'internal',
  'upstream',
  'unavailable',
  'timeout',
];

/** One of each kind, and the options that change a shape: a field, a provider's own code, a prompt over the
 * context window, Retry-After, a billing refusal, a secret to redact, a message over two lines; and our own bug. */
const errors: Array<[name: string, err: unknown]> = [
  ...kinds.map((kind): [string, unknown] => [kind, new ProxyError(kind, `The ${kind} failure`)]),
  [
    'field',
    new ProxyError('invalid_request', 'Invalid request: model is required', { field: 'model', issue: 'is required' }),
  ],
  ['field-without-issue', new ProxyError('invalid_request', 'Invalid request: top_k', { field: 'top_k' })],
  [
    'provider-code',
    new ProxyError('invalid_request', 'No response resp_1 is kept', {
      field: 'previous_response_id',
      code: 'previous_response_not_found',
    }),
  ],
  ['context-length', new ProxyError('invalid_request', 'prompt is too long: 210000 tokens > 200000 maximum')],
  ['retry-after', new ProxyError('rate_limit', 'Slow down', { retryAfter: 7, headers: { 'x-ratelimit-a': '1' } })],
  ['status-over-kind', new ProxyError('unavailable', 'Overloaded', { status: 529, retryable: false })],
  [
    'billing-refusal',
    new ProxyError('invalid_request', 'Extra usage is off for this organization', { refusal: 'extra_usage_off' }),
  ],
  ['secret', new ProxyError('upstream', 'refused key sk-ant-api03-abcdefghijklmnopqrstuv')],
  ['two-lines', new ProxyError('upstream', 'first line\nsecond line')],
  ['bug', new TypeError('cannot read x of undefined')],
];

const families: Array<[Family, string]> = [
  ['compat', '/compat/v1/chat/completions'],
  ['native', '/v1/messages'],
  ['general', '/health/nothing'],
  ['ollama', '/ollama/api/chat'],
];

const quiet = () => createLogger('fatal', new Writable({ write: (_c, _e, cb) => cb() }));

let server: Server;
let base: string;
let thrown: unknown;
/** What a route sets once matched (http/add-route.ts): its format's own shape, if it has one. */
let routeShape: ProxyState['errorShape'];
const recorded: Array<Partial<ProxyState>> = [];

beforeAll(async () => {
  const app = new Koa<ProxyState>();
  app.silent = true;
  app.use(async (ctx, next) => {
    await next();
    const s = ctx.state;
    recorded.push({
      errorType: s.errorType,
      billingRefusal: s.billingRefusal,
      errorField: s.errorField,
      errorReason: s.errorReason,
    });
  });
  app.use(requestId());
  app.use(errorRenderer(quiet(), familyErrorShapes));
  app.use((ctx) => {
    if (routeShape) ctx.state.errorShape = routeShape;
    throw thrown;
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const shown = (headers: Headers) =>
  ['content-type', 'retry-after', 'x-should-retry', 'request-id', 'x-ratelimit-a']
    .filter((h) => headers.has(h))
    .map((h) => `${h}: ${headers.get(h)}`)
    .join(' | ');

const recordOf = (r: Partial<ProxyState>) => JSON.stringify(r);

function sseText(events: SseEvent[]): string {
  return events.map(encodeSse).join('');
}

function ndjsonText(events: SseEvent[]): string {
  return events.map((ev) => `${typeof ev.data === 'string' ? ev.data : JSON.stringify(ev.data)}\n`).join('');
}

/** A minimal valid body of each format on the contract, for its answer options. */
const bodies: Record<string, unknown> = {
  'native-chat': { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  messages: { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
  compat: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
  responses: { model: 'm', input: 'hi' },
  'responses-compact': { model: 'm', input: 'hi' },
  'ollama-chat': { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
  'ollama-generate': { model: 'm', prompt: 'hi' },
};

const meta = { model: 'm', created: 1_700_000_000, startedAt: 0, now: () => 1_000 };

function afterHeaders(label: string, state: ProxyState, events: SseEvent[], ndjson = false): string {
  const record = recordOf({ errorType: state.errorType, billingRefusal: state.billingRefusal });
  return `${label}\n${record}\n${ndjson ? ndjsonText(events) : sseText(events)}`;
}

const stateOf = (family: Family) => ({ requestId: 'req_pin', family }) as ProxyState;

describe('every error shape, byte for byte', () => {
  it('has one shape per family, each of its own family', () => {
    for (const [family] of families) expect(familyErrorShapes[family].family).toBe(family);
  });

  it('before headers, after headers, and the type name each records', async () => {
    const out: string[] = [];
    for (const [name, err] of errors) {
      out.push(`==== ${name}`);
      if (err instanceof ProxyError)
        out.push(`type names: ${families.map(([f]) => `${f}=${familyErrorShapes[f].typeName(err)}`).join(' ')}`);
      for (const [family, path] of families) {
        thrown = err;
        const res = await fetch(base + path, { headers: { 'x-request-id': 'req_pin' } });
        const body = await res.text();
        out.push(`-- before headers, ${family} ${path}: ${res.status} | ${shown(res.headers)}`);
        out.push(body);
        out.push(recordOf(recorded.at(-1)!));
      }
      for (const [formatName, format] of wireFormats) {
        const path = families.find(([f]) => f === format.errorShape.family)![1];
        thrown = err;
        routeShape = format.errorShape;
        const res = await fetch(base + path, { headers: { 'x-request-id': 'req_pin' } });
        routeShape = undefined;
        out.push(`-- before headers, on a route of format ${formatName}: ${res.status} | ${shown(res.headers)}`);
        out.push(await res.text());
        out.push(recordOf(recorded.at(-1)!));
      }
      for (const [formatName, format] of wireFormats) {
        const parsed = format.parse(bodies[formatName], { api: defaultProfile.api });
        if (formatName.startsWith('responses')) (parsed.answer as { id?: string }).id = 'resp_pin';
        const writer = format.answer(meta, parsed.answer).stream();
        const state = stateOf(format.errorShape.family);
        const events = failAfterHeaders(err, state, writer.errors, quiet());
        out.push(afterHeaders(`-- after headers, format ${formatName}`, state, events, writer.framing === 'ndjson'));
      }
      const forwarded = stateOf('native');
      out.push(
        afterHeaders(
          '-- after headers, the byte-level forwarder',
          forwarded,
          failAfterHeaders(err, forwarded, nativeErrorShape, quiet()),
        ),
      );
      const relayed = stateOf('compat');
      out.push(
        afterHeaders(
          '-- after headers, the response-API relay',
          relayed,
          failAfterHeaders(err, relayed, respapiErrors, quiet()),
        ),
      );
    }
    out.push('==== refused by the HTTP parser');
    out.push(
      clientErrorAnswer({ status: 431, kind: 'invalid_request', message: 'Too large', issue: 'request head too large' })
        .toString('utf8')
        .replaceAll('\r\n', '\n'),
    );
    await expect(out.join('\n') + '\n').toMatchFileSnapshot('./__fixtures__/error-shapes.txt');
  });
});
