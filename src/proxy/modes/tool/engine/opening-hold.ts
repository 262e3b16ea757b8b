// The answer's opening (message_start, pings) held back until its first content, in the turn loop (turn.ts): a
// process that dies right after its opening has still sent the client nothing, so a fresh process can answer instead
// of an error (docs/tool-mode.md "Live conversations"). For a client that reads the answer whole (not streamed),
// every event is held until the turn ends: such a client sees nothing before then, so a process that dies at any
// point of its turn can still be replaced.

import type { NativeStreamEvent } from '../../../formats/native.js';

export class OpeningHold {
  private readonly held: NativeStreamEvent[] = [];
  private began = false;
  /** True once an event was let through: from then on something may have reached the client. */
  answered = false;

  /** `whole`: the client reads the answer whole, so every event is held until `release`. */
  constructor(private readonly whole = false) {}

  /**
   * What goes out before `event`: the held opening at the first content event (`onAnswering` runs then, once), nothing
   * after it; undefined when `event` is held (part of the opening, or any event of an answer read whole).
   */
  admit(event: NativeStreamEvent, onAnswering: () => void): NativeStreamEvent[] | undefined {
    if (this.answered) return [];
    const opening = event.type === 'message_start' || event.type === 'ping';
    if (!opening && !this.began) {
      this.began = true;
      onAnswering();
    }
    if (opening || this.whole) {
      this.held.push(event);
      return undefined;
    }
    this.answered = true;
    return this.held.splice(0);
  }

  /** What is still held, for a turn that ends or pauses: the opening, or the whole answer of a client reading it whole. */
  release(): NativeStreamEvent[] {
    return this.held.splice(0);
  }
}
