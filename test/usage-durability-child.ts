// Child process for usage-durability.test.ts: records a row every few ms into the ledger in argv[2] and prints
// "<requestId> <time recorded>" for each (stdout to a pipe is synchronous on Linux, so a printed row was really
// handed to the ledger before the parent's kill). Runs until it is killed.

import { UsageLedger } from '../src/proxy/usage/ledger.js';

const ledger = UsageLedger.open({ dataDir: process.argv[2], retentionDays: 90, maxMb: 512 });
let n = 0;
setInterval(() => {
  for (let i = 0; i < 5; i++) {
    const at = Date.now();
    const requestId = `dur_${n++}`;
    ledger.record({
      requestId,
      startedAt: at,
      mode: 'tool',
      route: '/v1/messages',
      method: 'POST',
      streamed: false,
      modelRequested: 'assistant-sonnet-4',
      modelServed: 'assistant-sonnet-4',
      client: 'curl',
      status: 200,
      outcome: 'ok',
      errorType: null,
      tokens: { input: 1, output: 1, cacheRead: null, cacheWrite: null },
      ttftMs: null,
      durationMs: 1,
    });
    process.stdout.write(`${requestId} ${at}\n`);
  }
}, 2);
