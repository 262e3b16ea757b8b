// The fuzz properties (docs/reliability.md "Fuzz suite"), shared by the bounded CI run (test/fuzz/fuzz.test.ts)
// and long runs (scripts/fuzz.ts). Each one sends generated requests to a proxy with every mode on (test/fuzz/bed.ts)
// and checks what a client and the provider would see:
//   anyRequest      any method, target, Host, headers and body: a right-shaped answer (docs/interface.md "Errors", by
//                   the target's family), never our own 500, never a hang, streams that end and parse;
//   mutatedBodies   valid bodies of every JSON route with fields set, removed or added to hostile values: the same;
//   validRequests   valid requests of every documented route: 200 and a complete answer;
// and, for all three, the provider only ever sees documented paths.

import fc from 'fast-check';
import {
  anyRequest,
  bodyText,
  documentedUpstreamPaths,
  mutatedJsonRequest,
  mutate,
  validRequest,
  type Mutation,
  type RouteDef,
} from './arbitraries.js';
import { sendRaw, type Bed, type RawAnswer, type RawRequest } from './bed.js';
import {
  errorAnswerProblem,
  errorBodyProblem,
  familyOfTarget,
  parseSseText,
  streamError,
  streamProblem,
} from './shapes.js';

export interface FuzzProperty {
  name: string;
  /** Share of the run's cases (CI and long runs split their total by these weights). */
  weight: number;
  make(bed: Bed): fc.IAsyncPropertyWithHooks<[unknown]>;
}

/** Raised with a message that says what was sent and what came back. */
class Finding extends Error {}

function describeRequest(req: RawRequest): string {
  const body =
    req.body === undefined
      ? '(no body)'
      : typeof req.body === 'string'
        ? req.body.slice(0, 300)
        : `<${req.body.length} bytes>`;
  return `${req.method} ${req.path} ${JSON.stringify(req.headers ?? {})} ${body}`;
}

function fail(req: RawRequest, answer: RawAnswer, why: string): never {
  throw new Finding(`${why}\n  sent: ${describeRequest(req)}\n  got: ${answer.status} ${answer.text.slice(0, 400)}`);
}

/** The checks every answer must pass, whatever was sent. */
function checkAnswer(req: RawRequest, answer: RawAnswer): void {
  if (answer.timedOut) fail(req, answer, 'no complete answer in time (a hang)');
  if (answer.error) fail(req, answer, `connection failed: ${answer.error}`);
  if (answer.status === 500) fail(req, answer, 'our own 500');
  const shape = errorAnswerProblem(req.path, req.method, answer);
  if (shape) fail(req, answer, shape);
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status === 200 && type.startsWith('text/event-stream')) {
    const events = parseSseText(answer.text);
    const problem = streamProblem(events);
    if (problem) fail(req, answer, problem);
    const err = streamError(events);
    if (err) {
      // An in-stream error is fine when the request was bad in a way only the provider could see, but it must be
      // shaped like its family's error bodies (docs/principles.md "Errors after headers"); the native stream uses the
      // provider's own form.
      const family = familyOfTarget(req.path);
      const why = errorBodyProblem(family === 'general' ? 'general' : family, err.body);
      if (why && !(family === 'native' && (err.body as { type?: string }).type === 'error'))
        fail(req, answer, `in-stream error in the wrong shape: ${why}`);
    }
  }
}

function checkUpstream(bed: Bed, from: number): void {
  const seen = bed.sim.received.slice(from);
  for (const r of seen) {
    if (!documentedUpstreamPaths.has(r.path))
      throw new Finding(`the provider saw an undocumented path: ${r.method} ${r.url}`);
  }
}

/** Answers seen, by property and status ("200 sse" for streams), for the run's summary. */
export const stats = new Map<string, Map<string, number>>();

function count(property: string, answer: RawAnswer): void {
  const byStatus = stats.get(property) ?? new Map<string, number>();
  stats.set(property, byStatus);
  const key = `${answer.status}${String(answer.headers['content-type'] ?? '').startsWith('text/event-stream') ? ' sse' : ''}`;
  byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
}

async function exchange(bed: Bed, req: RawRequest, property: string): Promise<RawAnswer> {
  // Keep the simulator's record short in long runs; reset() also restores its knobs, which fuzzing never changes.
  if (bed.sim.received.length > 500) bed.sim.reset();
  const from = bed.sim.received.length;
  const answer = await sendRaw(bed.proxy.url, req, 20_000);
  count(property, answer);
  // Direct mode forwards the provider's own answers faithfully (docs/direct-mode.md), its 500s included: a 500 is
  // ours only when the provider did not answer 500 itself.
  const providerSaid500 = bed.sim.received.slice(from).some((r) => r.answeredStatus === 500);
  checkAnswer(req, providerSaid500 && answer.status === 500 ? { ...answer, status: 502 } : answer);
  checkUpstream(bed, from);
  return answer;
}

export const properties: FuzzProperty[] = [
  {
    name: 'anyRequest',
    weight: 5,
    make: (bed) =>
      fc.asyncProperty(anyRequest as fc.Arbitrary<unknown>, async (req) => {
        await exchange(bed, req as RawRequest, 'anyRequest');
      }),
  },
  {
    name: 'mutatedBodies',
    weight: 3,
    make: (bed) =>
      fc.asyncProperty(mutatedJsonRequest as fc.Arbitrary<unknown>, async (input) => {
        const m = input as { route: RouteDef; body: unknown; mutations: Mutation[] };
        const text = bodyText(mutate(m.body, m.mutations));
        await exchange(
          bed,
          { method: 'POST', path: m.route.path, headers: { 'content-type': 'application/json' }, body: text },
          'mutatedBodies',
        );
      }),
  },
  {
    name: 'validRequests',
    weight: 2,
    make: (bed) =>
      fc.asyncProperty(validRequest as fc.Arbitrary<unknown>, async (input) => {
        const v = input as { route: { method: string; path: string }; body?: unknown };
        const req: RawRequest =
          v.body === undefined
            ? { method: v.route.method, path: v.route.path }
            : {
                method: 'POST',
                path: v.route.path,
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify(v.body),
              };
        const answer = await exchange(bed, req, 'validRequests');
        if (answer.status !== 200) fail(req, answer, `a valid request was answered ${answer.status}`);
        if (String(answer.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          const err = streamError(parseSseText(answer.text));
          if (err) fail(req, answer, 'a valid streamed request ended with an in-stream error');
        }
      }),
  },
];

/** Splits a total number of cases between the properties by weight (at least one each). */
export function runsFor(total: number): Map<string, number> {
  const sum = properties.reduce((s, p) => s + p.weight, 0);
  return new Map(properties.map((p) => [p.name, Math.max(1, Math.round((total * p.weight) / sum))]));
}

export { Finding };
