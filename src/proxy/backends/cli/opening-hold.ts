// The answer's opening (message_start, pings) held back until its first content, in the turn loop (turn.ts): a
// process that dies right after its opening has still sent the client nothing, so a fresh process can answer instead
// of a 500 (docs/tool-mode.md "Live conversations").

import type { NativeStreamEvent } from '../../formats/native.js';

export class OpeningHold {
  private readonly held: NativeStreamEvent[] = [];
  /** True once the first content event was let through: from then on something may have reached the client. */
  answered = false;

  /**
   * What goes out before `event`: the held opening at the first content event (`onAnswering` runs then, once), nothing
   * after it; undefined when `event` is itself part of the opening and is held.
   */
  admit(event: NativeStreamEvent, onAnswering: () => void): NativeStreamEvent[] | undefined {
    if (this.answered) return [];
    if (event.type === 'message_start' || event.type === 'ping') {
      this.held.push(event);
      return undefined;
    }
    this.answered = true;
    onAnswering();
    return this.held.splice(0);
  }

  /** The opening still held, for a turn that ends or pauses before any content. */
  release(): NativeStreamEvent[] {
    return this.held.splice(0);
  }
}
