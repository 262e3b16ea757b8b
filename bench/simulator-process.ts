// The provider simulator in a process of its own, so that it never shares an event loop with the load generator
// (on two cores, the bench process, the simulator, the proxy and nginx all compete; keeping each in its own process
// lets the OS schedule them like the real thing). The parent (servers.ts) talks to it over the fork IPC channel:
//   parent -> child  { type: 'knobs', id, knobs }   merge knobs (latency, pacing, chunk count, reply text)
//   child  -> parent { type: 'ready', url, cliTokenUrl } once listening; { type: 'ack', id } after each change
// The simulator records every request it receives (for tests); a soak of 100,000 requests would make that record
// the largest thing in memory, so it is emptied every second here.

import { startSimulator, type SimulatorKnobs } from '../test/simulator/index.js';

interface KnobsMessage {
  type: 'knobs';
  id: number;
  knobs: Partial<SimulatorKnobs>;
}

async function main(): Promise<void> {
  const sim = await startSimulator();
  const clear = setInterval(() => {
    sim.received.length = 0;
  }, 1000);
  process.on('message', (msg: KnobsMessage) => {
    if (msg?.type !== 'knobs') return;
    Object.assign(sim.knobs, msg.knobs);
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
