// The bounded, seeded fuzz run of CI (docs/reliability.md "Fuzz suite"): a few thousand generated requests over
// every route family against one in-process proxy (test/fuzz/bed.ts). FUZZ_SEED and FUZZ_RUNS change the seed and
// the total; `npm run fuzz` (scripts/fuzz.ts) is the same properties for long runs with a replay file.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startBed, type Bed } from './bed.js';
import { properties, runsFor, stats } from './properties.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261123);
const total = Number(process.env.FUZZ_RUNS ?? 3000);
const runs = runsFor(total);

let bed: Bed;

beforeAll(async () => {
  bed = await startBed();
});

afterAll(async () => {
  if (process.env.FUZZ_STATS)
    for (const [name, byStatus] of stats) console.log(name, Object.fromEntries([...byStatus].sort()));
  await bed?.close();
});

describe(`fuzz (seed ${seed}, ${total} cases)`, () => {
  for (const property of properties) {
    it(`${property.name}: ${runs.get(property.name)} cases`, async () => {
      await fc.assert(property.make(bed), { seed, numRuns: runs.get(property.name), endOnFailure: true });
    }, 150_000);
  }

  it('leaves no CLI child and no open provider request behind, and logs no secret', async () => {
    expect(await eventually(async () => (await bed.cli.alivePids()).length === 0, 10_000)).toBe(true);
    expect(await eventually(() => bed.sim.openRequests() === 0, 10_000)).toBe(true);
    const logs = bed.proxy.logText();
    const secrets = await bed.secrets();
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const secret of secrets) expect(logs.includes(secret), 'a token in the log').toBe(false);
    expect(bed.proxy.logs().filter((l) => l.msg === 'unhandled error')).toEqual([]);
    expect((await fetch(`${bed.proxy.url}/health`)).status).toBe(200);
  });
});
