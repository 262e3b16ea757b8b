import { describe, expect, it } from 'vitest';
import { RequestAbort } from '../http/request-abort.js';
import { InFlight } from './in-flight.js';

/** Whether `p` has settled once the queued microtasks ran. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('InFlight', () => {
  it('is drained at once when nothing is in flight', async () => {
    expect(await settled(new InFlight().drained())).toBe(true);
  });

  it('is drained when the last request ends, not before', async () => {
    const inFlight = new InFlight();
    const [a, b] = [new RequestAbort(), new RequestAbort()];
    inFlight.add(a);
    inFlight.add(b);
    const drained = inFlight.drained();
    inFlight.delete(a);
    expect(await settled(drained)).toBe(false);
    inFlight.delete(a); // a request ends once; a second delete changes nothing
    expect(await settled(drained)).toBe(false);
    inFlight.delete(b);
    expect(await settled(drained)).toBe(true);
    expect(inFlight.size).toBe(0);
  });

  it('aborts every request in flight with the reason given', () => {
    const inFlight = new InFlight();
    const aborts = [new RequestAbort(), new RequestAbort()];
    for (const a of aborts) inFlight.add(a);
    const reason = new Error('server shutting down');
    inFlight.abortAll(reason);
    for (const a of aborts) {
      expect(a.aborted).toBe(true);
      expect(a.signal.reason).toBe(reason);
    }
  });
});
