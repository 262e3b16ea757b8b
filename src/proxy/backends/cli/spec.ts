// What a CLI process is started with, as one string list and one key: a warm process is taken, and a live
// conversation continued, only by a request that would start exactly the same process.

import type { CliInput } from '../../translate/native-request-to-cli-input.js';

/** The spawn-time part of a CLI input: flags, environment, system prompt. */
export type ProcessSpec = Pick<CliInput, 'args' | 'env' | 'systemPrompt'>;

/** What a process is started with: its spec, and the transcript of earlier turns it resumes, if any. */
export type SpawnInput = ProcessSpec & Pick<CliInput, 'transcript'>;

/**
 * The per-request environment (output limit, thinking budget) and the system prompt go in as entries that start with
 * a NUL, which no argument can hold (native-request-to-cli-input.ts refuses NUL in every argument from a client).
 */
const envMark = '\0env:';
const systemMark = '\0system:';

export function toSpec(input: ProcessSpec): string[] {
  return [
    ...Object.entries(input.env).map(([k, v]) => `${envMark}${k}=${v}`),
    `${systemMark}${input.systemPrompt}`,
    ...input.args,
  ];
}

export function fromSpec(spec: string[]): ProcessSpec {
  const env: Record<string, string> = {};
  const args: string[] = [];
  let systemPrompt = '';
  for (const item of spec) {
    if (item.startsWith(systemMark)) systemPrompt = item.slice(systemMark.length);
    else if (!item.startsWith(envMark)) args.push(item);
    else {
      const eq = item.indexOf('=');
      env[item.slice(envMark.length, eq)] = item.slice(eq + 1);
    }
  }
  return { args, env, systemPrompt };
}

/** The registry's key of a spec list. */
export const specKey = (spec: string[]): string => JSON.stringify(spec);

/** The registry's key of what a process is started with. */
export const keyOf = (input: ProcessSpec): string => specKey(toSpec(input));
