// What a CLI chat is given (docs/tool-mode.md "Live conversations"): the `head` (the flags, environment and system
// prompt a process is started with, and the newest user message alone) and, for a fresh process, the whole
// conversation. They are built apart because a live conversation needs only the head: an earlier message the CLI's
// transcript cannot hold (an image in an old tool result) must not refuse a request that continues a process which
// already saw it. Input errors are still thrown before anything starts whenever no live conversation could continue
// the request.

import type { NativeRequest } from '../../formats/native.js';
import { cliUserTurnLine, type CliInput } from '../../translate/native-request-to-cli-input.js';

export interface CliInputs {
  /** Spawn-time flags, environment, system prompt, and `turn`: the latest user message as a stdin line. */
  head: CliInput;
  /** The whole conversation for a fresh process; throws the request's input error when it has one. */
  full(): CliInput;
}

/**
 * `make` is nativeRequestToCliInput with its options; `continuable(head)` says whether a live conversation may
 * continue the request (then an error of the whole conversation waits until a fresh process needs it).
 */
export function cliInputs(
  req: NativeRequest,
  make: (req: NativeRequest) => CliInput,
  continuable?: (head: CliInput) => boolean,
): CliInputs {
  const lastAt = req.messages.length - 1;
  const last = req.messages[lastAt];
  // The spawn-time part does not depend on the messages: it is built over a stand-in one.
  const spawn = make({ ...req, messages: [{ role: 'user', content: '.' }] });
  let turn: string | undefined;
  if (last?.role === 'user') {
    try {
      turn = cliUserTurnLine(last, lastAt);
    } catch {
      // A user turn the CLI cannot take (an image in a tool result): only tool results in it can reach a waiting process.
    }
  }
  const head: CliInput = { ...spawn, stdin: '', turn };
  let full: CliInput | undefined;
  let error: unknown;
  try {
    full = make(req);
  } catch (err) {
    if (!continuable?.(head)) throw err;
    error = err;
  }
  return {
    head,
    full() {
      if (full) return full;
      throw error;
    },
  };
}
