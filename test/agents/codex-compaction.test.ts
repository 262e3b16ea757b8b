// Codex's remote compaction through the proxy (docs/compaction.md), as users run it: the pinned Codex with its
// built-in provider pointed here (`openai_base_url`, which makes Codex compact remotely: docs/clients.md "Codex's
// context window") and a tiny `model_auto_compact_token_limit`, so the limit comes within the first turn. In tool mode
// (the real CLI) and direct mode, on the Responses socket and over HTTP (the relay refuses the socket, as a server
// without one does): Codex must send a compaction_trigger, get its one compaction item, go on from it and finish the
// task (the simulator's model reads a file with Codex's shell tool, then answers from the summary, which still says
// what the file held). What Codex sent is kept in test-artifacts/codex-compaction/ (and, with RECORD_FIXTURES=1, as
// the fixtures in test/fixtures/codex-compaction/). What compaction saves is measured on a long conversation by
// test/compaction.test.ts: this session is too short for its summary to be smaller than what it replaced.

import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSocketRelay, type SocketRelay } from '../helpers/socket-relay.js';
import { startAgentsBed, type Bed } from './bed.js';
import { codex, codexBin, haveRealCli, keepSent, realCli, runCodex, type Sent } from './codex-run.js';

describe.skipIf(!existsSync(codexBin))(`${codex.pkg} compacting through the proxy`, () => {
  let bed: Bed;
  let relay: SocketRelay | undefined;
  beforeAll(async () => {
    bed = await startAgentsBed(realCli, haveRealCli);
  }, 60_000);
  afterAll(async () => {
    await bed?.close();
  });
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  for (const mode of ['direct', 'tool'] as const)
    for (const transport of ['socket', 'http'] as const)
      it.skipIf(mode === 'tool' && !haveRealCli)(
        `${mode} mode, ${transport}: a session past its compaction limit compacts and finishes its task`,
        async () => {
          relay = await startSocketRelay(bed.proxy.url);
          relay.refuseUpgrades = transport === 'http';
          bed.sim.reset();
          const { output, answer, marker } = await runCodex(bed, relay, mode, {
            builtIn: true,
            config: ['model_auto_compact_token_limit = 1000'],
          });
          await keepSent(relay, 'codex-compaction', `${mode}-${transport}`, process.env.RECORD_FIXTURES === '1');
          expect(output).not.toMatch(/Error running remote compact task/);
          expect(output).toMatch(/context compacted/);
          expect(answer).toContain(marker);
          const turns = relay.turns.filter((t) => t.transport === transport);
          expect(turns.length).toBe(relay.turns.length);
          const sent = turns.map((t) => JSON.parse(t.body) as Sent);
          const trigger = sent.findIndex((m) => m.input?.at(-1)?.type === 'compaction_trigger');
          expect(trigger).toBeGreaterThanOrEqual(0);
          // The next request carries the compaction item in place of the conversation.
          expect(sent.slice(trigger + 1).some((m) => m.input?.some((i) => i.type === 'compaction'))).toBe(true);
        },
        240_000,
      );
});
