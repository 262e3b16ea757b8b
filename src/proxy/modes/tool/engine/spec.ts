// What a CLI process is started with, and its key: a warm process is taken, and a live conversation continued, only
// by a request that would start exactly the same process. The spec stays an object from the request's plan
// (request-plan.ts) to the spawn; only the key is a string.

import type { CliInput } from '../translate/native-request-to-cli-input.js';

/** The spawn-time part of a CLI input: flags, environment, system prompt, the first stdin line (a JSON schema). */
export type ProcessSpec = Pick<CliInput, 'args' | 'env' | 'systemPrompt' | 'initLine'>;

/** What a process is started with: its spec, and the transcript of earlier turns it resumes, if any. */
export type SpawnInput = ProcessSpec & Pick<CliInput, 'transcript'>;

/** The registry's key of what a process is started with. */
export const keyOf = (spec: ProcessSpec): string =>
  JSON.stringify([Object.entries(spec.env), spec.systemPrompt, spec.args, spec.initLine ?? null]);
