// One `codex exec` through a recording relay (test/helpers/socket-relay.ts), and what it sent kept as a fixture: shared
// by the Codex suites (codex-socket.test.ts, codex-compaction.test.ts). The simulator's model reads notes.txt with
// Codex's shell tool and answers with its marker. Codex is set up with the Connect tab's snippet (a custom provider),
// or with its built-in provider pointed here (`openai_base_url`, docs/clients.md "Codex"), plus any config lines.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import type { SocketRelay } from '../helpers/socket-relay.js';
import { agents, type Mode } from './agents.js';
import type { Bed } from './bed.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const codex = agents.find((a) => a.name === 'codex')!;
export const codexBin = join(root, '.cache/agents/codex', codex.bin);
export const realCli =
  process.env.REAL_ASSISTANT_CLI || join(root, '.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
export const haveRealCli = existsSync(realCli);
export const model = 'assistant-sonnet-4-20250514';
const bases = { tool: '/compat/v1', direct: '/api/v1' } as const;

/** What Codex sent in one message or request body. */
export type Sent = {
  type?: string;
  generate?: boolean;
  previous_response_id?: string;
  input?: Array<{ type?: string }>;
};

export async function runCodex(
  bed: Bed,
  relay: SocketRelay,
  mode: Mode,
  o: { builtIn?: boolean; config?: string[] } = {},
) {
  const base = await mkdtemp(join(tmpdir(), `codex-${mode}-`));
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  await mkdir(cwd, { recursive: true });
  const marker = `AGENT-MARKER-${randomBytes(6).toString('hex')}`;
  const file = join(cwd, 'notes.txt');
  await writeFile(file, `The launch code is ${marker}.\n`);
  bed.sim.knobs.agentToolLoop = { path: file, answerPrefix: 'The file says:' };
  const run = codex.configure({ proxyUrl: relay.url, mode, home, cwd, model, prompt: 'What does notes.txt say?' });
  if (o.builtIn)
    run.files = {
      [join(home, '.codex/config.toml')]: [
        `model = "${model}"`,
        `openai_base_url = "${relay.url}${bases[mode]}"`,
        ...(o.config ?? []),
        '',
      ].join('\n'),
    };
  for (const [path, content] of Object.entries(run.files)) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  const result = await execa(codexBin, run.args, {
    cwd,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: home,
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
      ...(o.builtIn ? { OPENAI_API_KEY: 'dummy', CODEX_API_KEY: 'dummy' } : {}),
    },
    extendEnv: false,
    stdin: 'ignore',
    timeout: 180_000,
    reject: false,
  });
  await rm(base, { recursive: true, force: true });
  return { output: `${String(result.stdout)}\n${String(result.stderr)}`, answer: String(result.stdout), marker };
}

/**
 * What Codex sent, as a fixture: the upgrades' headers (credentials' values left out), its messages and the server's
 * frames, in test-artifacts/<suite>/ and, when `record`, in test/fixtures/<suite>/.
 */
export async function keepSent(relay: SocketRelay, suite: string, name: string, record: boolean): Promise<void> {
  const secret = /authorization|api-key|cookie/i;
  const fixture = {
    upgrades: relay.upgrades.map((h) =>
      Object.fromEntries(Object.entries(h).map(([k, v]) => [k, secret.test(k) ? '<redacted>' : v])),
    ),
    messages: relay.turns.map((t) => ({ transport: t.transport, ...(JSON.parse(t.body) as object) })),
    events: relay.events,
  };
  const text = JSON.stringify(fixture, null, 2) + '\n';
  const dirs = [join(root, 'test-artifacts', suite)];
  if (record) dirs.push(join(root, 'test/fixtures', suite));
  for (const dir of dirs) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.json`), text);
  }
}
