// The seven coding agents of the agents suite, each set up for a custom provider the way its own documentation says,
// in its default configuration (its own tools on), in its one-shot mode. The settings are the window's Connect-tab
// snippets themselves (src/renderer/snippets.ts), which docs/clients.md ("Coding agents") repeats, so what users
// copy is what this suite runs. Base URLs follow each agent's SDK (docs/clients.md, "Which base URL"):
// - AI-SDK agents with a native provider (opencode, Kilo) take a base ending in /v1 and append /messages;
// - pi's native provider takes the bare base and appends /v1/messages;
// - OpenAI-format agents (cn, Cline, qwen-code) take the chat-completions base ending in /v1;
// - Codex speaks only the Responses API and takes the same base, appending /responses.

import { join } from 'node:path';
import { clientSnippets } from '../../src/renderer/snippets.js';

export type Mode = 'tool' | 'direct';

export interface AgentRun {
  /** Commands run first, in order (an agent whose provider is set by its own `auth` command). */
  setup: string[][];
  /** The one-shot run; its stdout carries the final answer. */
  args: string[];
  env: Record<string, string>;
  /** Files written before the run, by absolute path. */
  files: Record<string, string>;
}

export interface RunContext {
  /** http://127.0.0.1:PORT of the proxy, no trailing slash. */
  proxyUrl: string;
  mode: Mode;
  home: string;
  cwd: string;
  model: string;
  prompt: string;
}

export interface Agent {
  /** Short name, also the cache directory under .cache/agents (scripts/setup-agents.sh). */
  name: string;
  /** The npm package and the version scripts/setup-agents.sh pins. */
  pkg: string;
  /** The binary, relative to the agent's cache directory. */
  bin: string;
  /** Which wire format the agent speaks to the proxy. */
  format: 'native' | 'openai' | 'responses';
  configure(ctx: RunContext): AgentRun;
}

/** The window's snippet for this agent (src/renderer/snippets.ts): what the suite runs is what users copy. */
function snippet(id: string, ctx: RunContext): string {
  const sdk = { providerName: 'Provider', jsPackage: 'sdk', jsClass: 'Sdk', pyPackage: 'sdk', pyClass: 'Sdk' };
  const found = clientSnippets({ baseUrl: ctx.proxyUrl, apiKey: 'dummy', model: ctx.model, sdk, mode: ctx.mode }).find(
    (s) => s.id === id,
  );
  if (!found) throw new Error(`no snippet ${id}`);
  return found.text;
}

/** `export NAME=value` lines as an environment. */
function exportsOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  return env;
}

export const agents: Agent[] = [
  {
    name: 'opencode',
    pkg: 'opencode-ai@1.18.33',
    bin: 'node_modules/.bin/opencode',
    format: 'native',
    configure: (ctx) => ({
      setup: [],
      args: ['run', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.config/opencode/opencode.json')]: snippet('opencode', ctx) },
    }),
  },
  {
    name: 'kilo',
    pkg: '@kilocode/cli@7.7.7',
    bin: 'node_modules/.bin/kilo',
    format: 'native',
    configure: (ctx) => ({
      setup: [],
      args: ['run', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.config/kilo/kilo.json')]: snippet('kilo', ctx) },
    }),
  },
  {
    name: 'cn',
    pkg: '@continuedev/cli@1.5.47',
    bin: 'node_modules/.bin/cn',
    format: 'openai',
    configure: (ctx) => ({
      setup: [],
      args: ['-p', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.continue/config.yaml')]: snippet('continue', ctx) },
    }),
  },
  {
    name: 'cline',
    pkg: 'cline@3.0.65',
    bin: 'node_modules/.bin/cline',
    format: 'openai',
    // The snippet is one `cline auth …` command line (its words hold no spaces).
    configure: (ctx) => ({
      setup: [snippet('cline', ctx).split(' ').slice(1)],
      args: [ctx.prompt],
      env: {},
      files: {},
    }),
  },
  {
    name: 'qwen',
    pkg: '@qwen-code/qwen-code@0.15.10',
    bin: 'node_modules/.bin/qwen',
    format: 'openai',
    configure: (ctx) => ({ setup: [], args: ['-p', ctx.prompt], env: exportsOf(snippet('qwen', ctx)), files: {} }),
  },
  {
    name: 'pi',
    pkg: '@mariozechner/pi-coding-agent@0.73.1',
    bin: 'node_modules/.bin/pi',
    format: 'native',
    configure: (ctx) => ({
      setup: [],
      args: ['--provider', 'assistant-proxy', '--model', ctx.model, '-p', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.pi/agent/models.json')]: snippet('pi', ctx) },
    }),
  },
  {
    name: 'codex',
    pkg: '@openai/codex@0.171.0',
    bin: 'node_modules/.bin/codex',
    format: 'responses',
    // One-shot: `codex exec`, outside a git repository, its default sandbox (reading a file is allowed).
    configure: (ctx) => ({
      setup: [],
      args: ['exec', '--skip-git-repo-check', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.codex/config.toml')]: snippet('codex', ctx) },
    }),
  },
];
