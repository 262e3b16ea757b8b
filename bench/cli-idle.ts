// What one idle tool-mode CLI process costs the machine (docs/tool-mode.md "Idle cost"): CPU (% of one core),
// wake-ups per second (context switches of all its threads) and resident memory, for a warm process (started, stdin
// open, nothing written yet: backends/cli/warm-pool.ts) and a live one (one turn answered, waiting for the next on
// stdin: the idle state of backends/cli/processes.ts). The process is started as the backend starts it: the same
// flags, system prompt file,
// environment and isolation, from nativeRequestToCliInput; the real CLI talks to the provider simulator on
// 127.0.0.1 with a credential file in a temporary HOME, so nothing reaches a real provider.
//
//   npx tsx bench/cli-idle.ts            (IDLE_SECONDS=30 by default; REAL_ASSISTANT_CLI to use another binary)
//
// Figures are the whole process tree (the CLI and any child it starts), read from /proc: utime+stime of every live
// process plus cutime+cstime of the CLI (children it already reaped), and voluntary+nonvoluntary context switches
// of every thread under /proc/PID/task. Linux only. Run on a quiet machine: other load does not change these
// counters much, but it delays the samples.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliChildEnv } from '../src/proxy/backends/child-env.js';
import { createProfile } from '../src/proxy/profile.js';
import { nativeRequestToCliInput } from '../src/proxy/translate/native-request-to-cli-input.js';
import { startSimulator, writeCliCredentials } from '../test/simulator/index.js';

const cached = fileURLToPath(
  new URL('../.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe', import.meta.url),
);
const cliPath = process.env.REAL_ASSISTANT_CLI || cached;
const seconds = Number(process.env.IDLE_SECONDS ?? 30);
const settleMs = 10_000;
const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The pid and every descendant still alive. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    for (const task of readdirSync(`/proc/${out[i]}/task`)) {
      const kids = read(`/proc/${out[i]}/task/${task}/children`)?.trim();
      if (kids) out.push(...kids.split(/\s+/).map(Number));
    }
  }
  return out;
}

interface Sample {
  cpuTicks: number;
  switches: number;
  rssKb: number;
  processes: number;
  threads: number;
  at: number;
}

function sample(pid: number): Sample {
  let cpuTicks = 0;
  let switches = 0;
  let rssKb = 0;
  let threads = 0;
  const pids = tree(pid);
  for (const p of pids) {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const stat = read(`/proc/${p}/stat`);
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    cpuTicks += Number(f[11]) + Number(f[12]) + (p === pid ? Number(f[13]) + Number(f[14]) : 0);
    rssKb += Number(/^VmRSS:\s+(\d+)/m.exec(read(`/proc/${p}/status`) ?? '')?.[1] ?? 0);
    for (const task of readdirSync(`/proc/${p}/task`)) {
      const status = read(`/proc/${p}/task/${task}/status`) ?? '';
      threads++;
      switches += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      switches += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    }
  }
  return { cpuTicks, switches, rssKb, processes: pids.length, threads, at: performance.now() };
}

async function idle(label: string, pid: number): Promise<void> {
  await new Promise((r) => setTimeout(r, settleMs));
  const a = sample(pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const b = sample(pid);
  const wall = (b.at - a.at) / 1000;
  const cpu = ((b.cpuTicks - a.cpuTicks) / ticks / wall) * 100;
  const wakeups = (b.switches - a.switches) / wall;
  console.log(
    `${label.padEnd(5)} idle ${wall.toFixed(1)} s: CPU ${cpu.toFixed(2)} % of a core, ${wakeups.toFixed(1)} wake-ups/s, ` +
      `RSS ${(b.rssKb / 1024).toFixed(0)} MB (${b.processes} process(es), ${b.threads} threads)`,
  );
}

async function main(): Promise<void> {
  if (!existsSync(cliPath))
    throw new Error(`no real assistant CLI at ${cliPath} (npm run test:setup, or set REAL_ASSISTANT_CLI)`);
  const sim = await startSimulator({ knobs: { replyText: 'Hello from the simulator.', answerTools: false } });
  const home = await mkdtemp(join(tmpdir(), 'cli-idle-'));
  try {
    const profile = createProfile();
    await mkdir(join(home, '.claude'), { recursive: true, mode: 0o700 });
    await writeCliCredentials(join(home, '.claude'), {
      accessToken: 'sk-ant-oat01-idle-bench',
      refreshToken: 'sk-ant-ort01-idle-bench',
      expiresAt: Date.now() + 3_600_000,
    });
    const work = join(home, 'work');
    await mkdir(work, { recursive: true });
    const input = nativeRequestToCliInput(
      {
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Say hello in a few words.' }],
      },
      { profile },
    );
    const promptFile = join(home, 'system.txt');
    await writeFile(promptFile, input.systemPrompt, { mode: 0o600 });
    // As CliBackend.childEnv() and startProcess(): the proxy's env without its secrets, the retry cap, the request's env.
    const env = {
      ...cliChildEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, [profile.cli.baseUrlEnv]: sim.url }),
      [profile.cli.maxRetriesEnv]: '2',
      ...input.env,
    };
    const child = spawn(cliPath, [...input.args, profile.cli.systemPromptFileFlag, promptFile], {
      cwd: work,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let answered: () => void = () => {};
    const result = new Promise<void>((r) => (answered = r));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (/"type":"result"/.test(out)) answered();
    });
    child.stderr.resume();
    const exited = new Promise((r) => child.on('exit', r));
    try {
      console.log(
        `real CLI ${cliPath}\n(each figure: ${settleMs / 1000} s to settle, then ${seconds} s measured; CLK_TCK ${ticks})`,
      );
      await idle('warm', child.pid!);
      child.stdin.write(input.stdin);
      await Promise.race([
        result,
        new Promise((_, no) => setTimeout(() => no(new Error('no answer within 60 s')), 60_000)),
      ]);
      await idle('live', child.pid!);
      console.log(
        `provider calls during the run: ${sim.requests('/v1/messages').length} (the one turn; no idle traffic)`,
      );
    } finally {
      child.stdin.end();
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    await sim.close();
    await rm(home, { recursive: true, force: true });
  }
}

await main();
