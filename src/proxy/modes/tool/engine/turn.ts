// The one turn loop of tool mode (docs/tool-mode.md "Flow"), for plain chats and chats with the client's own tools
// alike: under a child slot, a request takes the process that continues its conversation (a live one by one user
// turn, one waiting for its tool results, a warm one) or starts a fresh one, reads the process's stdout lines through
// the translator (chat-deadlines.ts stepLine), holds the answer's opening until its first content (opening-hold.ts),
// and ends the turn in one of three ways: the process is kept idle for the next turn, parked waiting for the client's
// tool results, or ended. Its source (plain-turns.ts, tool-turns.ts) says which process is taken and what is kept.
//
// A process that dies before anything of its answer reached the client is dropped and the request is answered once
// more by a fresh process with the whole conversation (docs/tool-mode.md "A CLI that dies mid-turn"): a taken one
// (live, warm, waiting for tools) whatever its end, a fresh one when a signal ended it (killed, or hung: hang-watch.ts;
// a CLI that exits by itself has said why, and would say it again). A client that reads the answer whole has been
// sent nothing until the turn ends, so its turn can be replaced at any point. At most once per request. The slot is
// held until the turn ends with the process kept or parked, or until it has exited.

import { ProxyError } from '../../../errors.js';
import type { NativeRequest, NativeStreamEvent, NativeUsage } from '../../../formats/native.js';
import type { Logger } from '../../../logger.js';
import {
  createCliTranslateState,
  finishCliLines,
  type CliTranslateOptions,
} from '../translate/cli-events-to-native-events.js';
import { AnswerRecorder, type AnswerRecord } from './conversation-history.js';
import { laneOfCliRateLimit } from '../../../usage/billing-lane.js';
import type { BillingLane, UsageSink } from '../../../usage/types.js';
import { ChatDeadlines, lingerAfterResultMs, stepLine, type ChatDeadlinesOptions } from './chat-deadlines.js';
import type { CliConversation, ConversationEnd } from './cli-conversation.js';
import { OpeningHold } from './opening-hold.js';

/** How a request came by a process it did not start itself. */
type TakenHow = 'continued' | 'resumed' | 'warm';

export interface Taken {
  proc: CliConversation;
  how: TakenHow;
}

/** What a kind of chat decides in the loop: which process answers, how it is read, what is kept after. */
export interface TurnSource {
  /**
   * Once the request holds a slot: a process that is already this conversation's (continued or resumed, its turn
   * handed over) or a warm one given the whole conversation; undefined when none fits. May throw the request's input
   * error.
   */
  take(): Promise<Taken | undefined>;
  /**
   * A new process given the whole conversation (when nothing was taken, or the taken one was found dead); `signal`
   * stops its wait for room.
   */
  fresh(signal: AbortSignal): Promise<CliConversation>;
  /** What the translator needs of this process beside the request's model (client tool names, usage reported). */
  translate(proc: CliConversation): Partial<CliTranslateOptions>;
  /** The turn finished with its `result`: true when the process is kept idle for the next turn. */
  finished(proc: CliConversation, answer: AnswerRecord): boolean;
  /** The turn stopped at client tool calls: true when the process is parked waiting for their results. */
  paused(proc: CliConversation, ids: string[], answer: AnswerRecord, usage: NativeUsage | undefined): boolean;
}

/** Where a request's rate_limit_event lines go, and the lane carried to it when its turn printed none. */
export interface TurnBilling extends Pick<UsageSink, 'cliRateLimit'> {
  cliLaneCarried?(lane: BillingLane): void;
}

/** Everything one request brings to its turn, in one object. */
export interface TurnRequest {
  readonly req: NativeRequest;
  /** Fires when the client goes away (or on shutdown past its grace period). */
  readonly signal: AbortSignal;
  /** Bound to the request (requestId). */
  readonly log: Logger;
  /** Where its rate_limit_event lines go: the ledger's quota windows and the request's own observer of who pays. */
  readonly billing: TurnBilling | undefined;
  /** Its first-event and whole-request deadlines (chat-deadlines.ts). */
  readonly deadlines: ChatDeadlinesOptions;
  /** The client reads the answer whole (not streamed): every event is held until the turn ends (opening-hold.ts). */
  readonly whole: boolean;
}

/** What the loop needs of the engine (engine.ts). */
export interface TurnHost {
  readonly profile: { cli: { notLoggedInPattern: string; loginHint: string; structuredOutputTool: string } };
  acquireSlot(signal: AbortSignal): Promise<() => void>;
  /** A taken process was found dead before it answered (`continued`: it was handed out as a live conversation). */
  lost(proc: CliConversation, continued: boolean): void;
  endError(error: ProxyError | undefined, end: ConversationEnd, stderrTail: string): ProxyError;
}

const diedMessage: Record<TakenHow | 'new', string> = {
  warm: 'the warm assistant CLI had died before its turn; a new one answers with the whole conversation',
  continued: 'the live assistant CLI had died between turns; a fresh one answers with the whole conversation',
  resumed: 'the assistant CLI waiting for tool results had died; a fresh one answers with the whole conversation',
  new: 'the assistant CLI was ended before its answer reached the client; a fresh one answers with the whole conversation',
};

/** Whether a process that ended before anything reached the client may be replaced by a fresh one (see above). */
function replaceable(taken: Taken | undefined, end: ConversationEnd): boolean {
  return end.spawnError === undefined && (taken !== undefined || end.signal !== undefined);
}

/** One request's turn: the events of its answer, from the process `source` gives it. */
export async function* runTurn(
  host: TurnHost,
  turn: TurnRequest,
  source: TurnSource,
): AsyncGenerator<NativeStreamEvent> {
  const { req, log, billing, whole } = turn;
  const deadlines = new ChatDeadlines(turn.signal, turn.deadlines);
  // Whether any process printed a lane for this request; if none did, the answering process's last one is carried.
  let laneReported = false;
  let release: (() => void) | undefined;
  let proc: CliConversation | undefined;
  let slot: (() => void) | undefined;
  // failed: ended at once; stopped: the CLI said why (its `result` or its end), it exits by itself.
  let outcome: 'failed' | 'stopped' | 'finished' | 'paused' = 'failed';
  let pausedFor: string[] = [];
  let pauseUsage: NativeUsage | undefined;
  const answer = new AnswerRecorder();
  try {
    let taken: Taken | undefined;
    let first = true;
    // A fresh process already answers in place of one that died: it is not replaced in turn.
    let replaced = false;
    for (;;) {
      // A fresh process after a dead one takes a slot of its own (the dead one's was freed at its exit).
      release ??= await host.acquireSlot(deadlines.signal);
      if (deadlines.signal.aborted) throw deadlines.signal.reason;
      taken = first ? await source.take() : undefined;
      first = false;
      const running = taken?.proc ?? (await source.fresh(deadlines.signal));
      proc = running;
      slot = once(release);
      release = undefined;
      void running.exited.then(slot);
      deadlines.markRunning();
      log.debug(
        {
          pid: running.pid,
          conversation: running.id,
          model: req.model,
          how: taken?.how ?? 'new',
          turn: running.turns + 1,
        },
        'assistant CLI turn started',
      );
      const offStop = deadlines.onStop(() => running.end());
      const usage: Pick<UsageSink, 'cliRateLimit'> = {
        cliRateLimit: (info) => {
          const lane = laneOfCliRateLimit(info);
          if (lane) {
            running.lane = lane;
            laneReported = true;
          }
          billing?.cliRateLimit(info);
        },
      };
      const translate = createCliTranslateState({
        model: req.model,
        notLoggedInPattern: host.profile.cli.notLoggedInPattern,
        loginHint: host.profile.cli.loginHint,
        // A JSON schema's answer is the CLI's structured output (docs/tool-mode.md "Structured output").
        ...(req.output_config?.format ? { structuredOutputTool: host.profile.cli.structuredOutputTool } : {}),
        ...source.translate(running),
      });
      const opening = new OpeningHold(whole);
      try {
        for (;;) {
          const item = await running.next(deadlines.signal);
          if (item.kind === 'end') {
            if (!opening.answered && !replaced && replaceable(taken, item.end)) {
              // Nothing reached the client yet: answered as a request no kept process waits for.
              log.warn(
                {
                  pid: running.pid,
                  conversation: running.id,
                  how: taken?.how ?? 'new',
                  exitCode: item.end.exitCode,
                  signal: item.end.signal,
                  hung: running.hung,
                },
                diedMessage[taken?.how ?? 'new'],
              );
              await running.exited;
              host.lost(running, taken?.how === 'continued');
              proc = undefined;
              replaced = true;
              pauseUsage = undefined;
              break;
            }
            outcome = 'stopped';
            if (running.hung)
              throw new ProxyError(
                'unavailable',
                `The assistant CLI stopped making progress (${running.hung}) and was ended`,
                { retryAfter: 1 },
              );
            throw host.endError(finishCliLines(translate).error, item.end, running.stderrTail);
          }
          const stepped = stepLine(item.line, translate, deadlines, log, usage);
          if (!stepped) continue;
          const { parsed, step } = stepped;
          if (parsed.kind === 'unknown')
            log.debug({ type: parsed.type }, 'assistant CLI line of an unknown type, ignored');
          if (step.error) {
            outcome = 'stopped';
            throw step.error;
          }
          for (const event of step.events) {
            if (event.type === 'message_delta' && step.pause) pauseUsage = { input_tokens: 0, ...event.usage };
            const before = opening.admit(event, () => deadlines.markAnswering());
            if (!before) continue;
            yield* before;
            answer.add(event);
            yield event;
          }
          if (step.pause || step.done)
            for (const event of opening.release()) {
              answer.add(event);
              yield event;
            }
          if (step.pause) {
            outcome = 'paused';
            pausedFor = step.pause;
            return;
          }
          if (step.done) {
            outcome = 'finished';
            return;
          }
        }
      } finally {
        offStop();
      }
    }
  } finally {
    deadlines.dispose();
    release?.();
    if (proc?.lane && !laneReported) billing?.cliLaneCarried?.(proc.lane);
    if (proc) settle(proc);
  }

  function settle(p: CliConversation): void {
    if (outcome === 'finished' && source.finished(p, answer.record())) slot?.();
    else if (
      outcome === 'paused' &&
      !deadlines.signal.aborted &&
      source.paused(p, pausedFor, answer.record(), pauseUsage)
    )
      slot?.();
    // Not kept: its input is closed, so the CLI exits by itself after its turn.
    else if ((outcome === 'finished' || outcome === 'stopped') && p.alive) p.finish(lingerAfterResultMs);
    else p.end();
  }
}

/** A function that does its work once, however often it is called. */
function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
