// The agents suite (`npm run test:agents`, opt-in: not part of `npm test`). Each of seven coding agents, installed
// pinned by scripts/setup-agents.sh into .cache/agents and set up as its own docs say (agents.ts), runs in its
// one-shot mode, in a temporary working directory and HOME, against a real proxy with the provider simulator
// behind it, through tool mode and through direct mode. The simulator drives a real tool loop
// (test/simulator/agent-tool-loop.ts): it calls the agent's own read-file tool on a file in the working directory
// and answers with what came back, so the final answer shows the file's marker only if the agent ran the tool and
// returned its result.
//
// Tool mode runs the real assistant CLI (the fake CLI never calls a provider), pointed at the simulator with a
// temporary HOME and credential file as test/tool-real-cli.test.ts does; without it the tool-mode cases skip and
// say why. What each run did is written to test-artifacts/agents/<agent>-<mode>.txt.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { execa, type Result } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../simulator/index.js';
import { agents, type Agent, type Mode } from './agents.js';
import { startAgentsBed, type Bed } from './bed.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cacheDir = join(root, '.cache/agents');
const artifacts = join(root, 'test-artifacts/agents');
const realCli =
  process.env.REAL_ASSISTANT_CLI || join(root, '.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const haveRealCli = existsSync(realCli);
const model = 'assistant-sonnet-4-20250514';
const answerPrefix = 'The file says:';
const runTimeoutMs = 180_000;
const only = (process.env.AGENTS_ONLY ?? '').split(',').filter(Boolean);

if (!haveRealCli)
  console.warn(
    `[agents] tool-mode cases skipped: no real assistant CLI at ${realCli} (run npm run test:setup, or set REAL_ASSISTANT_CLI)`,
  );

// eslint-disable-next-line no-control-regex -- terminal colour codes are what it strips
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

function toolResultsOf(request: RecordedRequest): string[] {
  const body = request.json as { messages?: Array<{ role?: string; content?: unknown }> } | undefined;
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type?: string; content?: unknown }>)
      if (b.type === 'tool_result') out.push(JSON.stringify(b.content));
  }
  return out;
}

/** The tool calls the provider made in a conversation, as name(input), from the history an agent sent back. */
function toolCallsOf(request: RecordedRequest): string[] {
  const body = request.json as { messages?: Array<{ role?: string; content?: unknown }> } | undefined;
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type?: string; name?: string; input?: unknown }>)
      if (b.type === 'tool_use') out.push(`${b.name}(${JSON.stringify(b.input)})`);
  }
  return out;
}

function toolNamesOf(request: RecordedRequest): string[] {
  const tools = (request.json as { tools?: Array<{ name?: unknown }> } | undefined)?.tools ?? [];
  return tools.map((t) => String(t.name));
}

async function runAgent(
  bed: Bed,
  agent: Agent,
  mode: Mode,
): Promise<{ record: string; answer: string; marker: string; result: Result; requests: RecordedRequest[] }> {
  const base = await mkdtemp(join(tmpdir(), `agent-${agent.name}-${mode}-`));
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  const marker = `AGENT-MARKER-${randomBytes(6).toString('hex')}`;
  const file = join(cwd, 'notes.txt');
  await writeFile(file, `The launch code is ${marker}.\n`);
  bed.sim.knobs.agentToolLoop = { path: file, answerPrefix };
  const prompt = 'What does notes.txt say?';
  const run = agent.configure({ proxyUrl: bed.proxy.url, mode, home, cwd, model, prompt });
  for (const [path, content] of Object.entries(run.files)) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  const env = {
    // The agents that are Node programs run on the Node that runs the suite (the project's Node 24 under npm).
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    ...run.env,
  };
  const bin = join(cacheDir, agent.name, agent.bin);
  const from = bed.sim.received.length;
  const lines: string[] = [
    `agent: ${agent.pkg} (${agent.format} format), node ${process.version}`,
    `mode: ${mode}`,
    `cwd: ${cwd}`,
    `marker: ${marker}`,
  ];
  for (const args of run.setup) {
    const setup = await execa(bin, args, {
      cwd,
      env,
      extendEnv: false,
      stdin: 'ignore',
      timeout: 60_000,
      reject: false,
      all: true,
    });
    lines.push(`setup: ${agent.name} ${args.join(' ')} -> exit ${setup.exitCode}`, stripAnsi(setup.all ?? ''));
  }
  for (const [path, content] of Object.entries(run.files)) lines.push(`file ${path}:`, content);
  for (const [k, v] of Object.entries(run.env)) lines.push(`env ${k}=${v}`);
  const started = Date.now();
  const result = await execa(bin, run.args, {
    cwd,
    env,
    extendEnv: false,
    stdin: 'ignore',
    timeout: runTimeoutMs,
    reject: false,
  });
  const requests = bed.sim.received.slice(from).filter((r) => r.path === '/v1/messages');
  lines.push(
    `run: ${agent.name} ${run.args.map((a) => JSON.stringify(a)).join(' ')}`,
    `exit: ${result.exitCode}${result.timedOut ? ' (timed out)' : ''} after ${Date.now() - started} ms`,
    '--- stdout',
    stripAnsi(result.stdout as string),
    '--- stderr (last 4000 chars)',
    stripAnsi(result.stderr as string).slice(-4000),
    `--- provider requests: ${requests.length}`,
    ...requests.map(
      (r) =>
        `${r.answeredStatus ?? '-'} tools(${toolNamesOf(r).length})=[${toolNamesOf(r).join(',')}] calls=[${toolCallsOf(r).join(', ')}] tool_results=${toolResultsOf(r).length} auth=${r.headers.authorization ? 'bearer' : r.headers['x-api-key'] ? 'x-api-key' : 'none'}`,
    ),
  );
  const record = lines.join('\n');
  await mkdir(artifacts, { recursive: true });
  await writeFile(join(artifacts, `${agent.name}-${mode}.txt`), record + '\n');
  await rm(base, { recursive: true, force: true });
  return { record, answer: stripAnsi(result.stdout as string), marker, result, requests };
}

describe('coding agents through the proxy', () => {
  let bed: Bed;

  beforeAll(async () => {
    bed = await startAgentsBed(realCli, haveRealCli);
  }, 60_000);

  afterAll(async () => {
    await bed?.close();
  });

  for (const agent of agents) {
    const installed = existsSync(join(cacheDir, agent.name, agent.bin));
    const chosen = only.length === 0 || only.includes(agent.name);
    if (!installed)
      console.warn(
        `[agents] ${agent.name} skipped: not installed in ${join(cacheDir, agent.name)} (run bash scripts/setup-agents.sh)`,
      );
    describe.skipIf(!installed || !chosen)(`${agent.pkg}`, () => {
      for (const mode of ['direct', 'tool'] as const) {
        const title = `${mode} mode: reads a file with its own tool and answers with its content`;
        it.skipIf(mode === 'tool' && !haveRealCli)(
          title,
          async () => {
            const { record, answer, marker, requests } = await runAgent(bed, agent, mode);
            const context = `${agent.name} in ${mode} mode; record: test-artifacts/agents/${agent.name}-${mode}.txt\n${record.slice(-3000)}`;
            // The tool really ran: its output went back to the provider as a tool_result.
            const resultsCarryingMarker = requests.filter((r) => toolResultsOf(r).some((t) => t.includes(marker)));
            expect(
              resultsCarryingMarker.length,
              `the agent's read result never reached the provider: ${context}`,
            ).toBeGreaterThan(0);
            // ...and the final answer, made from that result, is what the agent printed.
            expect(answer, `the final answer does not show the file's content: ${context}`).toMatch(
              new RegExp(`${answerPrefix}[\\s\\S]*${marker}`),
            );
            if (mode === 'tool') {
              // Through the CLI: the provider saw the CLI's login and the agent's tools offered as the CLI's MCP tools.
              expect(resultsCarryingMarker[0].headers.authorization, context).toBe(`Bearer ${bed.cliToken}`);
              expect(
                toolNamesOf(resultsCarryingMarker[0]).every((n) => n.startsWith('mcp__')),
                `the CLI offered tools other than the agent's: ${context}`,
              ).toBe(true);
            } else {
              expect(resultsCarryingMarker[0].headers.authorization, context).toBe(`Bearer ${bed.directToken}`);
            }
          },
          runTimeoutMs + 30_000,
        );
      }
    });
  }
});
