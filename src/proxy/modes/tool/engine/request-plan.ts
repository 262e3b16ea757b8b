// A request's plan, made once (docs/tool-mode.md "Live conversations"): what a process is started with (its spec:
// flags, environment, system prompt) and its registry key, the newest user message alone as a stdin line, the
// digests of its messages (message-digests.ts), and, for a fresh process, the whole conversation. Each is computed
// once here and passed on to the turn source, the registry and the warm pool.
//
// The CLI input is built once, the whole conversation with it. Only when the whole conversation has an input error
// is the spawn-time part built apart (over a stand-in message, as it does not depend on the messages): a live
// conversation needs only the head, and an earlier message the CLI's transcript cannot hold (an image in an old tool
// result) must not refuse a request that continues a process which already saw it. Input errors are still thrown
// before anything starts whenever no live conversation could continue the request.

import type { NativeRequest } from '../../../formats/native.js';
import { cliUserTurnLine, type CliInput } from '../translate/native-request-to-cli-input.js';
import { MessageDigests } from './message-digests.js';
import type { ProcessSpec } from './spec.js';

export interface RequestPlan {
  /** What a process is started with: flags, environment, system prompt. */
  readonly spec: ProcessSpec;
  /** The registry's key of that spec: only a process started with the same may answer the request. */
  readonly key: string;
  /** The newest user message as a stdin line, for a live process (undefined when the request ends otherwise). */
  readonly turn: string | undefined;
  readonly digests: MessageDigests;
  /** The whole conversation for a fresh process; throws the request's input error when it has one. */
  full(): CliInput;
}

/**
 * `make` is nativeRequestToCliInput with its options, `keyOf` the key of a spec (a tool chat's names its tools);
 * `continuable(plan)` says whether a live conversation may continue the request (then an error of the whole
 * conversation waits until a fresh process needs it).
 */
export function planRequest(
  req: NativeRequest,
  make: (req: NativeRequest) => CliInput,
  keyOf: (spec: ProcessSpec) => string,
  continuable?: (plan: RequestPlan) => boolean,
): RequestPlan {
  let full: CliInput | undefined;
  let error: unknown;
  try {
    full = make(req);
  } catch (err) {
    error = err;
  }
  const spawn = full ?? make({ ...req, messages: [{ role: 'user', content: '.' }] });
  const spec: ProcessSpec = {
    args: spawn.args,
    env: spawn.env,
    systemPrompt: spawn.systemPrompt,
    ...(spawn.initLine !== undefined ? { initLine: spawn.initLine } : {}),
  };
  const plan: RequestPlan = {
    spec,
    key: keyOf(spec),
    turn: full ? full.turn : newestTurn(req),
    digests: new MessageDigests(req.messages),
    full() {
      if (full) return full;
      throw error;
    },
  };
  if (!full && !continuable?.(plan)) throw error;
  return plan;
}

/** The newest user message as a stdin line, when the CLI can take it. */
function newestTurn(req: NativeRequest): string | undefined {
  const lastAt = req.messages.length - 1;
  const last = req.messages[lastAt];
  if (last?.role !== 'user') return undefined;
  try {
    return cliUserTurnLine(last, lastAt);
  } catch {
    // A user turn the CLI cannot take (an image in a tool result): only tool results in it can reach a waiting process.
    return undefined;
  }
}
