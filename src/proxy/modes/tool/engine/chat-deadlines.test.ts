import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProxyError } from '../../../errors.js';
import { ChatDeadlines, endError, firstEventError, type ChatPhase } from './chat-deadlines.js';
import type { CliRetry } from '../translate/cli-events-to-native-events.js';

const errors = { notLoggedInPattern: 'Not logged in', loginHint: 'Log in first.' };

function make(client: AbortSignal, slots = { running: 2, max: 2 }) {
  const active = new Set<AbortController>();
  const deadlines = new ChatDeadlines(client, {
    firstEventMs: 1000,
    requestMs: 5000,
    firstEventError: (phase: ChatPhase, retry: CliRetry | undefined) =>
      firstEventError(phase, retry, 1000, slots, errors),
    track: (stop) => {
      active.add(stop);
      return () => active.delete(stop);
    },
  });
  return { deadlines, active };
}

describe('ChatDeadlines', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a request still queued at the first-event deadline gets a 503 naming the busy slots', () => {
    const { deadlines } = make(new AbortController().signal);
    vi.advanceTimersByTime(999);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.signal.reason).toBeInstanceOf(ProxyError);
    expect(deadlines.signal.reason).toMatchObject({ kind: 'unavailable', retryAfter: 5 });
    expect((deadlines.signal.reason as Error).message).toBe(
      'No assistant CLI slot became free within 1 s (setting CLI_FIRST_TOKEN_TIMEOUT_MS): 2 of 2 are busy (setting CLI_MAX_CONCURRENT)',
    );
    deadlines.dispose();
  });

  it('a running CLI with no event times out, and one that is retrying reports the provider status it retries', () => {
    const quiet = make(new AbortController().signal).deadlines;
    quiet.markRunning();
    const retrying = make(new AbortController().signal).deadlines;
    retrying.markRunning();
    retrying.setRetry({ attempt: 3, status: 429, error: 'rate limited', delayMs: 2000 });
    vi.advanceTimersByTime(1000);
    expect(quiet.signal.reason).toMatchObject({
      kind: 'timeout',
      message: 'The assistant CLI did not start answering within 1 s (setting CLI_FIRST_TOKEN_TIMEOUT_MS)',
    });
    expect(retrying.signal.reason).toMatchObject({ kind: 'rate_limit' });
    expect((retrying.signal.reason as Error).message).toMatch(
      /^The assistant CLI was still retrying after 1 s \(setting CLI_FIRST_TOKEN_TIMEOUT_MS\): /,
    );
    quiet.dispose();
    retrying.dispose();
  });

  it('once answering, only the whole-request deadline is left', () => {
    const { deadlines } = make(new AbortController().signal);
    deadlines.markRunning();
    deadlines.markAnswering();
    vi.advanceTimersByTime(4999);
    expect(deadlines.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadlines.signal.reason).toMatchObject({
      kind: 'timeout',
      message: 'The chat did not finish within 5 s (setting REQUEST_TIMEOUT_MS)',
    });
    deadlines.dispose();
  });

  it('a gone client aborts with the cancellation message and runs the stop listeners', () => {
    const client = new AbortController();
    const { deadlines } = make(client.signal);
    const ended = vi.fn();
    deadlines.onStop(ended);
    client.abort(new Error('socket closed'));
    expect(deadlines.signal.reason).toMatchObject({
      kind: 'unavailable',
      message: 'The chat was cancelled (socket closed)',
    });
    expect(ended).toHaveBeenCalledTimes(1);
    deadlines.dispose();

    const gone = new AbortController();
    gone.abort('no error');
    const late = make(gone.signal).deadlines;
    expect(late.signal.reason).toMatchObject({ message: 'The chat was cancelled (client disconnected)' });
    const now = vi.fn();
    late.onStop(now);
    expect(now).toHaveBeenCalledTimes(1);
    late.dispose();
  });

  it('dispose clears both timers, forgets the client and untracks the stop controller', () => {
    const client = new AbortController();
    const { deadlines, active } = make(client.signal);
    expect(active.size).toBe(1);
    const off = deadlines.onStop(vi.fn());
    off();
    deadlines.dispose();
    expect(active.size).toBe(0);
    client.abort();
    vi.advanceTimersByTime(10_000);
    expect(deadlines.signal.aborted).toBe(false);
  });
});

describe('endError', () => {
  it('names a CLI that could not start, keeps a translated failure, and quotes the last stderr line of a crash', () => {
    expect(endError(undefined, { spawnError: 'ENOENT' }, '', 'Install it.')).toMatchObject({
      kind: 'unavailable',
      message: 'The assistant CLI could not be started (ENOENT). Install it.',
    });
    const limited = new ProxyError('rate_limit', 'slow down');
    expect(endError(limited, { exitCode: 1 }, 'noise', 'Install it.')).toBe(limited);
    // A CLI's death is an upstream's failure (502), not the proxy's own bug (500).
    expect(endError(undefined, { exitCode: 3 }, 'first\nlast words\n', 'Install it.')).toMatchObject({
      kind: 'upstream',
      status: 502,
      message: 'The assistant CLI exited with code 3 without finishing its answer: last words',
    });
    expect(endError(undefined, { signal: 'SIGKILL' }, '', 'Install it.')).toMatchObject({
      kind: 'upstream',
      status: 502,
      message: 'The assistant CLI was ended by SIGKILL without finishing its answer',
    });
  });
});
