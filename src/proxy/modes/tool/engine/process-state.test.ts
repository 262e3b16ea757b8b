import { describe, expect, it } from 'vitest';
import { can, next, type ConversationState, type ProcessEvent } from './process-state.js';

const states: ConversationState[] = ['warm', 'idle', 'busy', 'waiting-for-tools', 'ended'];
const events: ProcessEvent[] = ['begin', 'resume', 'rest', 'pause', 'end', 'exit'];

/** The diagram of docs/tool-mode.md "Live conversations", move by move. */
const legal: Array<[ConversationState, ProcessEvent, ConversationState]> = [
  ['warm', 'begin', 'busy'],
  ['idle', 'begin', 'busy'],
  ['busy', 'rest', 'idle'],
  ['busy', 'pause', 'waiting-for-tools'],
  ['waiting-for-tools', 'resume', 'busy'],
  ...states.flatMap((s): Array<[ConversationState, ProcessEvent, ConversationState]> => [
    [s, 'end', 'ended'],
    [s, 'exit', 'ended'],
  ]),
];

describe('next: the state machine of a CLI process', () => {
  it.each(legal)('%s --%s--> %s', (from, event, to) => {
    expect(next(from, event)).toBe(to);
    expect(can(from, event)).toBe(true);
  });

  const illegal = states.flatMap((s) =>
    events
      .filter((e) => !legal.some(([f, ev]) => f === s && ev === e))
      .map((e): [ConversationState, ProcessEvent] => [s, e]),
  );

  it('has exactly the legal moves above and refuses the other 15', () => {
    expect(illegal).toHaveLength(states.length * events.length - legal.length);
    expect(illegal).toHaveLength(15);
  });

  it.each(illegal)('refuses %s --%s-->', (from, event) => {
    expect(can(from, event)).toBe(false);
    expect(() => next(from, event)).toThrow(`cannot ${event} from the state ${from}`);
  });

  it('never hands a busy or ended process to a second reader', () => {
    expect(() => next('busy', 'begin')).toThrow();
    expect(() => next('ended', 'begin')).toThrow();
    expect(() => next('ended', 'resume')).toThrow();
    expect(() => next('idle', 'resume')).toThrow();
  });
});
