// Codex on the Responses WebSocket (docs/responses-socket.md), as users run it: the pinned Codex with the Connect
// tab's snippet (`supports_websockets = true`), in tool mode and direct mode, through a recording relay
// (test/helpers/socket-relay.ts) that shows which transport it used and keeps what it sent. A multi-turn task with
// a tool call (the simulator's tool loop: Codex runs its own shell tool on a file and the answer quotes it) must run
// on the socket with no "Falling back from WebSockets" warning, the later turn chained by id with only its new items;
// and a proxy restart in the middle of the session (after the first turn, before the tool's output goes back) must
// not end it. What Codex sent is written to test-artifacts/codex-socket/ (the fixtures in
// test/fixtures/codex-socket/ were recorded this way, with RECORD_FIXTURES=1).

import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSocketRelay, type SocketRelay } from '../helpers/socket-relay.js';
import { startAgentsBed, type Bed } from './bed.js';
import { codex, codexBin, haveRealCli, keepSent, realCli, runCodex, type Sent } from './codex-run.js';

const fallback = /Falling back from WebSockets/i;

/** What Codex sent (test/fixtures/codex-socket/ holds the plain runs, recorded with RECORD_FIXTURES=1). */
const keep = (relay: SocketRelay, name: string) =>
  keepSent(relay, 'codex-socket', name, process.env.RECORD_FIXTURES === '1' && (name === 'direct' || name === 'tool'));

describe.skipIf(!existsSync(codexBin))(`${codex.pkg} on the Responses WebSocket`, () => {
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

  it('direct mode: the built-in provider pointed here (openai_base_url) uses the socket too', async () => {
    relay = await startSocketRelay(bed.proxy.url);
    const { output, answer, marker } = await runCodex(bed, relay, 'direct', { builtIn: true });
    await keep(relay, 'direct-built-in');
    expect(output).not.toMatch(fallback);
    expect(answer).toContain(marker);
    expect(relay.upgrades.length).toBeGreaterThanOrEqual(1);
    expect(relay.turns.every((t) => t.transport === 'socket')).toBe(true);
  }, 240_000);

  for (const mode of ['direct', 'tool'] as const) {
    it.skipIf(mode === 'tool' && !haveRealCli)(
      `${mode} mode: a task with a tool call runs on the socket, chained by id, with no fallback`,
      async () => {
        relay = await startSocketRelay(bed.proxy.url);
        const { output, answer, marker } = await runCodex(bed, relay, mode);
        await keep(relay, mode);
        expect(output).not.toMatch(fallback);
        expect(answer).toContain(marker);
        expect(relay.upgrades[0]['openai-beta']).toBe('responses_websockets=2026-02-06');
        expect(relay.turns.every((t) => t.transport === 'socket')).toBe(true);
        const sent = relay.turns.map((t) => JSON.parse(t.body) as Sent);
        expect(sent[0]).toMatchObject({ type: 'response.create', generate: false });
        // The turn that carries the tool's output names the previous response and sends only the new items.
        const toolTurn = sent.find((m) => m.input?.some((i) => i.type === 'function_call_output'));
        expect(toolTurn?.previous_response_id).toMatch(/^resp_/);
        expect(toolTurn?.input?.every((i) => i.type === 'function_call_output')).toBe(true);
      },
      240_000,
    );

    it.skipIf(mode === 'tool' && !haveRealCli)(
      `${mode} mode: a proxy restart in the middle of the session does not end it`,
      async () => {
        const r = (relay = await startSocketRelay(bed.proxy.url));
        let completed = 0;
        let restarted: Promise<void> | undefined;
        r.onEvent = (type) => {
          // After the prewarm and the first turn (the tool call): the proxy goes, and comes back on another port.
          if (type !== 'response.completed' || ++completed !== 2) return;
          r.hold();
          restarted = bed.restart().then((p) => {
            r.target = p.url;
            r.release();
          });
        };
        const { output, answer, marker } = await runCodex(bed, r, mode);
        await restarted;
        await keep(r, `${mode}-restart`);
        expect(output).not.toMatch(fallback);
        expect(answer).toContain(marker);
        expect(r.upgrades.length).toBeGreaterThanOrEqual(2);
        expect(r.turns.every((t) => t.transport === 'socket')).toBe(true);
      },
      240_000,
    );
  }
});
