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
const bases = { tool: '/compat/v1', direct: '/api/v1' } as const;

type Sent = { type?: string; previous_response_id?: string; input?: Array<{ type?: string }> };

async function runCodex(bed: Bed, relay: SocketRelay, mode: Mode, compactLimit?: number) {
  const base = await mkdtemp(join(tmpdir(), `codex-compaction-${mode}-`));
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  await mkdir(cwd, { recursive: true });
  const marker = `AGENT-MARKER-${randomBytes(6).toString('hex')}`;
  const file = join(cwd, 'notes.txt');
  await writeFile(file, `The launch code is ${marker}.\n`);
  bed.sim.knobs.agentToolLoop = { path: file, answerPrefix: 'The file says:' };
  const config = join(home, '.codex/config.toml');
  await mkdir(dirname(config), { recursive: true });
  await writeFile(
    config,
    [
      `model = "${model}"`,
      `openai_base_url = "${relay.url}${bases[mode]}"`,
      ...(compactLimit ? [`model_auto_compact_token_limit = ${compactLimit}`] : []),
      '',
    ].join('\n'),
  );
  const result = await execa(bin, ['exec', '--skip-git-repo-check', 'What does notes.txt say?'], {
    cwd,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: home,
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
      OPENAI_API_KEY: 'dummy',
      CODEX_API_KEY: 'dummy',
    },
    extendEnv: false,
    stdin: 'ignore',
    timeout: 180_000,
    reject: false,
  });
  await rm(base, { recursive: true, force: true });
  return { output: `${String(result.stdout)}\n${String(result.stderr)}`, answer: String(result.stdout), marker };
}

async function keep(relay: SocketRelay, name: string): Promise<void> {
  const secret = /authorization|api-key|cookie/i;
  const fixture = {
    upgrades: relay.upgrades.map((h) =>
      Object.fromEntries(Object.entries(h).map(([k, v]) => [k, secret.test(k) ? '<redacted>' : v])),
    ),
    messages: relay.turns.map((t) => ({ transport: t.transport, ...(JSON.parse(t.body) as object) })),
  };
  const text = JSON.stringify(fixture, null, 2) + '\n';
  const dirs = [join(root, 'test-artifacts/codex-compaction')];
  if (process.env.RECORD_FIXTURES === '1') dirs.push(join(root, 'test/fixtures/codex-compaction'));
  for (const dir of dirs) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.json`), text);
  }
}

describe.skipIf(!existsSync(bin))(`${codex.pkg} compacting through the proxy`, () => {
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
          const { output, answer, marker } = await runCodex(bed, relay, mode, 1000);
          await keep(relay, `${mode}-${transport}`);
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
