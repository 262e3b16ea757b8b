// What one CLI chat request lives by (docs/tool-mode.md "Process hygiene"), in the one turn loop (turn.ts) of plain
// chats and chats with the client's own tools alike: a stop controller that shutdown aborts, a gone client that aborts
// it with the cancellation message, and two deadlines (first event, whole request) so that a client gets an error in
// seconds, not after the CLI's minutes of retries. Also the step taken for each stdout line, and the error when
// stdout ends without a result.

import { ProxyError } from '../../../errors.js';
import { parseCliLine, type CliLineParse } from '../translate/cli-events.js';
import { type Logger } from '../../../logger.js';
import { redactSecrets } from '../../../redact.js';
import {
  stepCliLine,
  type CliRetry,
  type CliStep,
  type CliTranslateState,
} from '../translate/cli-events-to-native-events.js';
import { mapCliError, type CliErrorOptions } from '../translate/map-cli-error.js';
import type { UsageSink } from '../../../usage/types.js';
import type { ConversationEnd } from './cli-conversation.js';

/** After its input is closed the CLI exits by itself; one that lingers longer than this is ended. */
export const lingerAfterResultMs = 5000;

export type ChatPhase = 'queued' | 'running' | 'answering';

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The first-event deadline passed: say why, faithfully (a retrying CLI reports the provider's status). */
export function firstEventError(
  phase: ChatPhase,
  retry: CliRetry | undefined,
  limitMs: number,
  slots: { running: number; max: number },
  errors: CliErrorOptions,
): ProxyError {
  const limit = `${seconds(limitMs)} (setting CLI_FIRST_TOKEN_TIMEOUT_MS)`;
  if (phase === 'queued') {
    return new ProxyError(
      'unavailable',
      `No assistant CLI slot became free within ${limit}: ${slots.running} of ${slots.max} are busy (setting CLI_MAX_CONCURRENT)`,
      {
        retryAfter: 5,
      },
    );
  }
  if (retry?.status != null) {
    const mapped = mapCliError({ status: retry.status, text: retry.error ?? '' }, errors, retry.delayMs);
    return new ProxyError(mapped.kind, `The assistant CLI was still retrying after ${limit}: ${mapped.message}`, {
      retryAfter: mapped.retryAfter,
    });
  }
  return new ProxyError('timeout', `The assistant CLI did not start answering within ${limit}`);
}

export interface ChatDeadlinesOptions {
  /** CLI_FIRST_TOKEN_TIMEOUT_MS: from the request's start to the first event of the answer. */
  firstEventMs: number;
  /** REQUEST_TIMEOUT_MS: from the request's start to the end of the answer. */
  requestMs: number;
  /** The error of the first-event deadline, given the phase the chat reached and the CLI's last retry. */
  firstEventError: (phase: ChatPhase, retry: CliRetry | undefined) => ProxyError;
  /** Registers the stop controller so that shutdown aborts it; returns its removal. */
  track: (stop: AbortController) => () => void;
}

/** One request's stop signal, its deadlines and its gone-client listener, until `dispose()`. */
export class ChatDeadlines {
  private readonly stop = new AbortController();
  private phase: ChatPhase = 'queued';
  private retry: CliRetry | undefined;
  private readonly untrack: () => void;
  private readonly firstTimer: NodeJS.Timeout;
  private readonly wholeTimer: NodeJS.Timeout;
  private readonly onClientGone: () => void;

  /** `client` fires when the client goes away, or on shutdown past its grace period. */
  constructor(
    private readonly client: AbortSignal,
    opts: ChatDeadlinesOptions,
  ) {
    const stop = this.stop;
    this.untrack = opts.track(stop);
    this.onClientGone = () => {
      const why = client.reason instanceof Error ? client.reason.message : 'client disconnected';
      stop.abort(new ProxyError('unavailable', `The chat was cancelled (${why})`));
    };
    if (client.aborted) this.onClientGone();
    else client.addEventListener('abort', this.onClientGone, { once: true });
    this.firstTimer = setTimeout(() => stop.abort(opts.firstEventError(this.phase, this.retry)), opts.firstEventMs);
    this.wholeTimer = setTimeout(
      () =>
        stop.abort(
          new ProxyError(
            'timeout',
            `The chat did not finish within ${seconds(opts.requestMs)} (setting REQUEST_TIMEOUT_MS)`,
          ),
        ),
      opts.requestMs,
    );
  }

  /** Aborted by a gone client, a deadline, shutdown or `abort()`; its reason is the error to report. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** A slot is held and a process runs: a first-event deadline now blames the CLI, not the queue. */
  markRunning(): void {
    this.phase = 'running';
  }

  /** The first event of the answer came: the first-event deadline is over. */
  markAnswering(): void {
    if (this.phase === 'answering') return;
    this.phase = 'answering';
    clearTimeout(this.firstTimer);
  }

  /** The CLI retries a failed provider call: a first-event deadline reports that call's status. */
  setRetry(retry: CliRetry): void {
    this.retry = retry;
  }

  abort(reason: unknown): void {
    this.stop.abort(reason);
  }

  /** Runs `fn` when the chat is stopped (at once if it already is); returns the listener's removal. */
  onStop(fn: () => void): () => void {
    const signal = this.stop.signal;
    if (signal.aborted) fn();
    else signal.addEventListener('abort', fn, { once: true });
    return () => signal.removeEventListener('abort', fn);
  }

  /** The request is over: timers cleared, the client's listener removed, shutdown no longer aborts it. */
  dispose(): void {
    clearTimeout(this.firstTimer);
    clearTimeout(this.wholeTimer);
    this.client.removeEventListener('abort', this.onClientGone);
    this.untrack();
  }
}

/**
 * One stdout line of the CLI through parseCliLine and stepCliLine: a malformed line is logged and ignored, quota
 * windows go to the usage sink (docs/usage.md), a retry is logged and noted for the first-event deadline. A blank line
 * gives undefined.
 */
export function stepLine(
  line: string,
  state: CliTranslateState,
  deadlines: ChatDeadlines,
  log: Logger,
  usage: Pick<UsageSink, 'cliRateLimit'> | undefined,
): { parsed: CliLineParse; step: CliStep } | undefined {
  if (line.trim() === '') return undefined;
  const parsed = parseCliLine(line);
  if (parsed.kind === 'malformed') {
    log.warn(
      { reason: parsed.reason, line: redactSecrets(parsed.text) },
      'unparseable line from the assistant CLI, ignored',
    );
  } else if (parsed.kind === 'rate_limit') {
    usage?.cliRateLimit(parsed.info);
  }
  const step = stepCliLine(parsed, state);
  if (step.retry) {
    deadlines.setRetry(step.retry);
    log.warn(
      { attempt: step.retry.attempt, status: step.retry.status },
      'the assistant CLI is retrying a failed provider call',
    );
  }
  return { parsed, step };
}

/** stdout ended: the translator's verdict, with the exit code and stderr when the CLI died without a result. */
export function endError(
  error: ProxyError | undefined,
  end: ConversationEnd,
  stderrTail: string,
  installHint: string,
): ProxyError {
  if (end.spawnError)
    return new ProxyError('unavailable', `The assistant CLI could not be started (${end.spawnError}). ${installHint}`, {
      retryable: false,
    });
  // A CLI that ends without its answer is an upstream that failed, not the proxy's own bug: 502 (docs/tool-mode.md
  // "Errors"), which the SDKs retry.
  const err = error ?? new ProxyError('internal', 'The assistant CLI ended without a result');
  if (err.kind !== 'internal') return err;
  const how = end.signal ? `was ended by ${end.signal}` : `exited with code ${end.exitCode ?? 'unknown'}`;
  const lastLine = stderrTail.trim().split('\n').at(-1)?.trim() ?? '';
  const said = lastLine ? `: ${redactSecrets(lastLine).slice(0, 300)}` : '';
  return new ProxyError('upstream', `The assistant CLI ${how} without finishing its answer${said}`);
}
