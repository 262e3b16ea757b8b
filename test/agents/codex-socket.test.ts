// Codex on the Responses WebSocket (docs/responses-socket.md), as users run it: the pinned Codex with the Connect
// tab's snippet (`supports_websockets = true`), in tool mode and direct mode, through a recording relay
// (test/helpers/socket-relay.ts) that shows which transport it used and keeps what it sent. A multi-turn task with
// a tool call (the simulator's tool loop: Codex runs its own shell tool on a file and the answer quotes it) must run
// on the socket with no "Falling back from WebSockets" warning, the later turn chained by id with only its new items;
// and a proxy restart in the middle of the session (after the first turn, before the tool's output goes back) must
// not end it. What Codex sent is written to test-artifacts/codex-socket/ (the fixtures in
// test/fixtures/codex-socket/ were recorded this way, with RECORD_FIXTURES=1).

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSocketRelay, type SocketRelay } from '../helpers/socket-relay.js';
import { agents, type Mode } from './agents.js';
import { startAgentsBed, type Bed } from './bed.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const codex = agents.find((a) => a.name === 'codex')!;
const bin = join(root, '.cache/agents/codex', codex.bin);
const realCli =
  process.env.REAL_ASSISTANT_CLI || join(root, '.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const haveRealCli = existsSync(realCli);
const model = 'assistant-sonnet-4-20250514';
const fallback = /Falling back from WebSockets/i;

type Sent = { type?: string; generate?: boolean; previous_response_id?: string; input?: Array<{ type?: string }> };

/** One `codex exec` through the relay; its output and the marker the file holds. */
async function runCodex(bed: Bed, relay: SocketRelay, mode: Mode, builtIn = false) {
  const base = await mkdtemp(join(tmpdir(), `codex-socket-${mode}-`));
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  await mkdir(cwd, { recursive: true });
  const marker = `AGENT-MARKER-${randomBytes(6).toString('hex')}`;
  const file = join(cwd, 'notes.txt');
  await writeFile(file, `The launch code is ${marker}.\n`);
  bed.sim.knobs.agentToolLoop = { path: file, answerPrefix: 'The file says:' };
  const prompt = 'What does notes.txt say?';
  const run = codex.configure({ proxyUrl: relay.url, mode, home, cwd, model, prompt });
  // Codex's built-in provider pointed here instead of a provider of its own (docs/clients.md "Codex").
  if (builtIn)
    run.files = {
      [join(home, '.codex/config.toml')]:
        `model = "${model}"\nopenai_base_url = "${relay.url}${mode === 'direct' ? '/api/v1' : '/compat/v1'}"\n`,
    };
  for (const [path, content] of Object.entries(run.files)) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  const result = await execa(bin, run.args, {
    cwd,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: home,
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
      ...(builtIn ? { OPENAI_API_KEY: 'dummy', CODEX_API_KEY: 'dummy' } : {}),
    },
    extendEnv: false,
    stdin: 'ignore',
    timeout: 180_000,
    reject: false,
  });
  await rm(base, { recursive: true, force: true });
  return { output: `${String(result.stdout)}\n${String(result.stderr)}`, answer: String(result.stdout), marker };
}

/** What Codex sent, as a fixture: the upgrade's header names (values of credentials left out) and its messages. */
async function keep(relay: SocketRelay, name: string): Promise<void> {
  const secret = /authorization|api-key|cookie/i;
  const fixture = {
    upgrades: relay.upgrades.map((h) =>
      Object.fromEntries(Object.entries(h).map(([k, v]) => [k, secret.test(k) ? '<redacted>' : v])),
    ),
    messages: relay.turns.map((t) => ({ transport: t.transport, ...(JSON.parse(t.body) as object) })),
    events: relay.events,
  };
  const text = JSON.stringify(fixture, null, 2) + '\n';
  const dirs = [join(root, 'test-artifacts/codex-socket')];
  if (process.env.RECORD_FIXTURES === '1' && (name === 'direct' || name === 'tool'))
    dirs.push(join(root, 'test/fixtures/codex-socket'));
  for (const dir of dirs) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.json`), text);
  }
}

describe.skipIf(!existsSync(bin))(`${codex.pkg} on the Responses WebSocket`, () => {
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
    const { output, answer, marker } = await runCodex(bed, relay, 'direct', true);
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
