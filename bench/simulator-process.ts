// The provider simulator in a process of its own, so that it never shares an event loop with the load generator
// (docs/benchmarks.md "How it runs"). The parent (servers.ts) talks to it over the fork IPC channel:
//   parent -> child  { type: 'knobs', id, knobs }   merge knobs (latency, pacing, chunk count, reply text)
//   parent -> child  { type: 'reset', id }          reset(): records, prompt cache and knobs back to the defaults
//   parent -> child  { type: 'bill', id }           the bill of every /v1/messages request since the last one
//   child  -> parent { url, cliTokenUrl } once listening; { id, bill? } after each
// The simulator records every request it receives (for tests); a soak would make that the largest thing in memory,
// so it is emptied every second here. The bill (workload w) is kept apart, at most its last 10,000 requests.

import { startSimulator, type CacheUsage, type SimulatorKnobs } from '../test/simulator/index.js';

/** One billed request, as the bench reads it: its messages tell which turn of a conversation it was. */
export interface BillEntry {
  messages: number;
  usage: CacheUsage;
}

if (process.send) {
  let bill: BillEntry[] = [];
  const sim = await startSimulator({
    onBilled: (record) => {
      const messages = (record.json as { messages?: unknown } | undefined)?.messages;
      bill.push({ messages: Array.isArray(messages) ? messages.length : 0, usage: structuredClone(record.billed!) });
      if (bill.length > 10_000) bill.shift();
    },
  });
  const clear = setInterval(() => (sim.received.length = 0), 1000);
  type Message = { type: 'knobs' | 'reset' | 'bill'; id: number; knobs?: Partial<SimulatorKnobs> };
  process.on('message', (msg: Message) => {
    if (msg.type === 'knobs') Object.assign(sim.knobs, msg.knobs);
    if (msg.type === 'reset') sim.reset();
    process.send?.({ id: msg.id, bill: msg.type === 'bill' ? bill : undefined });
    if (msg.type !== 'knobs') bill = [];
    sim.received.length = 0;
  });
  // The parent going away (or closing the channel) ends the simulator: no orphan keeps a port.
  process.on('disconnect', () => {
    clearInterval(clear);
    void sim.close().then(() => process.exit(0));
  });
  process.send({ url: sim.url, cliTokenUrl: sim.cliTokenUrl });
}
