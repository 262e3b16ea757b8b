// The provider simulator in a process of its own, so that it never shares an event loop with the load generator
// (on two cores, the bench process, the simulator, the proxy and nginx all compete; keeping each in its own process
// lets the OS schedule them like the real thing). The parent (servers.ts) talks to it over the fork IPC channel:
//   parent -> child  { type: 'knobs', id, knobs }   merge knobs (latency, pacing, chunk count, reply text)
//   parent -> child  { type: 'reset', id }          reset(): records, prompt cache and knobs back to the defaults
//   parent -> child  { type: 'bill', id }           the bill of every /v1/messages request since the last one
//   child  -> parent { type: 'ready', url, cliTokenUrl } once listening; { type: 'ack', id, bill? } after each
// The simulator records every request it receives (for tests); a soak of 100,000 requests would make that record
// the largest thing in memory, so it is emptied every second here. The bill (workload w) is kept apart, as plain
// numbers, and at most the last BILL_CAP requests of it.

import { startSimulator, type CacheUsage, type RecordedRequest, type SimulatorKnobs } from '../test/simulator/index.js';

type Message =
  | { type: 'knobs'; id: number; knobs: Partial<SimulatorKnobs> }
  | { type: 'reset'; id: number }
  | { type: 'bill'; id: number };

/** One billed request, as the bench reads it (servers.ts). */
export interface BillEntry {
  model: string;
  /** Messages in the request, and the body's size: which turn of which conversation it was. */
  messages: number;
  bodyBytes: number;
  usage: CacheUsage;
}

const BILL_CAP = 10_000;

function entryOf(record: RecordedRequest): BillEntry {
  const body = (record.json ?? {}) as { model?: unknown; messages?: unknown };
  return {
    model: typeof body.model === 'string' ? body.model : '',
    messages: Array.isArray(body.messages) ? body.messages.length : 0,
    bodyBytes: record.body.length,
    usage: structuredClone(record.billed!),
  };
}

async function main(): Promise<void> {
  let bill: BillEntry[] = [];
  const sim = await startSimulator({
    onBilled: (record) => {
      bill.push(entryOf(record));
      if (bill.length > BILL_CAP) bill.shift();
    },
  });
  const clear = setInterval(() => {
    sim.received.length = 0;
  }, 1000);
  process.on('message', (msg: Message) => {
    if (msg?.type === 'knobs') Object.assign(sim.knobs, msg.knobs);
    else if (msg?.type === 'reset') {
      sim.reset();
      bill = [];
    } else if (msg?.type === 'bill') {
      process.send?.({ type: 'ack', id: msg.id, bill });
      bill = [];
      return;
    } else return;
    sim.received.length = 0;
    process.send?.({ type: 'ack', id: msg.id });
  });
  // The parent going away (or closing the channel) ends the simulator: no orphan keeps a port.
  process.on('disconnect', () => {
    clearInterval(clear);
    void sim.close().then(() => process.exit(0));
  });
  process.send?.({ type: 'ready', url: sim.url, cliTokenUrl: sim.cliTokenUrl });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench simulator: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
