// Long fuzz runs of the properties the CI runs in test/fuzz/fuzz.test.ts (docs/reliability.md "Fuzz suite"):
//
//   npm run fuzz -- --runs 50000 [--seed N] [--only anyRequest,mutatedBodies] [--out DIR]
//   npm run fuzz -- --replay fuzz-replay-<seed>-<property>.json
//
// Prints the seed first (so any run can be repeated), a heartbeat every ten seconds, and the answers seen per
// property at the end. On a failure it writes a replay file (property, seed, counterexample path, the shrunk
// counterexample and the finding) and exits 1; --replay runs exactly that counterexample again.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { eventually, startBed } from '../test/fuzz/bed.js';
import { properties, runsFor, stats } from '../test/fuzz/properties.js';

interface Replay {
  property: string;
  seed: number;
  path: string;
  counterexample: string;
  finding: string;
  command: string;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50000' },
    seed: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string', default: '.' },
    replay: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log('npm run fuzz -- [--runs N] [--seed N] [--only a,b] [--out DIR] | --replay FILE');
  console.log(`properties: ${properties.map((p) => p.name).join(', ')}`);
  process.exit(0);
}

const replay = values.replay ? (JSON.parse(await readFile(values.replay, 'utf8')) as Replay) : undefined;
const seed = replay?.seed ?? (values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31));
const total = Number(values.runs);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(total) || total < 1) {
  console.error('--seed and --runs must be whole numbers');
  process.exit(2);
}
const only = replay ? [replay.property] : values.only?.split(',').map((s) => s.trim());
const selected = properties.filter((p) => !only || only.includes(p.name));
if (selected.length === 0) {
  console.error(`no such property: ${only?.join(', ')}; properties: ${properties.map((p) => p.name).join(', ')}`);
  process.exit(2);
}
const runs = runsFor(total);

console.log(
  replay
    ? `replaying ${replay.property} seed ${seed} path ${replay.path}`
    : `fuzz seed ${seed}, ${total} cases over ${selected.map((p) => `${p.name} ${runs.get(p.name)}`).join(', ')}`,
);

const bed = await startBed({ settings: { logLevel: 'debug' } });
const started = Date.now();
const seen = () => [...stats.values()].reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0);
const heartbeat = setInterval(
  () => console.log(`  ${seen()} cases, ${Math.round((Date.now() - started) / 1000)} s`),
  10_000,
);

let failed = false;
try {
  for (const property of selected) {
    const t0 = Date.now();
    const details = await fc.check(property.make(bed), {
      seed,
      numRuns: replay ? 1 : runs.get(property.name),
      path: replay?.path,
      endOnFailure: false,
    });
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    if (!details.failed) {
      console.log(`${property.name}: ${details.numRuns} cases passed in ${seconds} s`);
      continue;
    }
    failed = true;
    const finding =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    const counterexample = fc.stringify(details.counterexample).slice(0, 20_000);
    const file = values.replay
      ? resolve(values.replay)
      : join(resolve(values.out), `fuzz-replay-${seed}-${property.name}.json`);
    const record: Replay = {
      property: property.name,
      seed,
      path: details.counterexamplePath ?? '',
      counterexample,
      finding,
      command: `npm run fuzz -- --replay ${file}`,
    };
    if (!replay) {
      await mkdir(resolve(values.out), { recursive: true });
      await writeFile(file, JSON.stringify(record, null, 2));
    }
    console.log(
      `${property.name}: FAILED after ${details.numRuns} cases (${seconds} s), shrunk ${details.numShrinks} times`,
    );
    console.log(finding);
    console.log(`replay file: ${file}\nreplay with: ${record.command}`);
  }
  // After every property: nothing left running, no secret logged, still serving.
  const cliLeft = (await eventually(async () => (await bed.cli.alivePids()).length === 0, 10_000))
    ? 0
    : (await bed.cli.alivePids()).length;
  const upstreamLeft = (await eventually(() => bed.sim.openRequests() === 0, 10_000)) ? 0 : bed.sim.openRequests();
  const logs = bed.proxy.logText();
  const leaked = (await bed.secrets()).some((secret) => logs.includes(secret));
  const health = (await fetch(`${bed.proxy.url}/health`)).status;
  console.log(
    `after the run: ${cliLeft} CLI children alive, ${upstreamLeft} provider requests open, token in logs: ${leaked ? 'YES' : 'no'}, /health ${health}`,
  );
  if (cliLeft || upstreamLeft || leaked || health !== 200) failed = true;
  for (const [name, byStatus] of stats)
    console.log(
      `  ${name}: ${[...byStatus]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
  console.log(
    `${seen()} cases in ${Math.round((Date.now() - started) / 1000)} s, seed ${seed}: ${failed ? 'FAILED' : 'passed'}`,
  );
} finally {
  clearInterval(heartbeat);
  await bed.close();
}
process.exit(failed ? 1 : 0);
