// What the CLI announces on the first message a process sends (its environment, model, token budget and date
// reminders) and on every later prompt, learnt from the CLI itself, so that a fresh start's transcript holds them where
// the evicted process had them and the provider reads that process's cached prefix (docs/tool-mode.md "A fresh start").
//
// The CLI keeps these as `attachment` entries in its own session files and renders them itself when it resumes one;
// the proxy neither writes nor copies their text. To learn them, the CLI is run once with the process's own flags,
// working directory and environment, but in a throwaway HOME (no login: it answers "Not logged in" without calling
// anyone, its provider URL a closed local port all the same) and with its session persistence on, given two one-word
// prompts; its session file then holds what it announced. One run (about 1-2 s) per CLI, spec and day, in memory.
// Under CLI_USER_SETUP (the user's own settings and session history) nothing is learnt: a throwaway HOME would not
// announce what the user's set-up does.

import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../../../logger.js';
import type { Profile } from '../../../profile.js';
import { announcedIn, type Announced } from '../translate/native-messages-to-cli-transcript.js';
import { dyingWithParent } from './death-signal.js';
import { keyOf, type ProcessSpec } from './spec.js';

/** Learnt sets kept (one per CLI, spec and day); the oldest goes first. */
const maxKept = 32;
const probeTimeoutMs = 15_000;

interface AnnouncementsOptions {
  profile: Profile;
  logger: Logger;
  cwd: string;
  /** The environment a process of the proxy gets. */
  env: () => NodeJS.ProcessEnv;
  /** A new empty owner-only directory for one run's HOME (removed after it). */
  tempDir: () => string;
  /** The local date the CLI announces (fixed in tests). */
  today?: () => string;
}

const localDate = (): string => new Date().toLocaleDateString('sv');

export class Announcements {
  private readonly learnt = new Map<string, Promise<Announced | undefined>>();

  constructor(private readonly opts: AnnouncementsOptions) {}

  /** What a process of `spec` announces; undefined when it cannot be learnt (never throws). */
  get(cliPath: string, spec: ProcessSpec): Promise<Announced | undefined> {
    const iso = this.opts.profile.cli.isolation;
    if (!spec.args.includes(iso.noSessionPersistenceFlag)) return Promise.resolve(undefined);
    const key = JSON.stringify([cliPath, (this.opts.today ?? localDate)(), keyOf(spec)]);
    let found = this.learnt.get(key);
    if (!found) {
      found = this.learn(cliPath, spec);
      this.learnt.set(key, found);
      if (this.learnt.size > maxKept) this.learnt.delete(this.learnt.keys().next().value!);
    }
    return found;
  }

  private async learn(cliPath: string, spec: ProcessSpec): Promise<Announced | undefined> {
    const { profile, logger } = this.opts;
    const { cli } = profile;
    const iso = cli.isolation;
    const home = this.opts.tempDir();
    const sessionId = randomUUID();
    try {
      const promptFile = join(home, 'system-prompt.txt');
      writeFileSync(promptFile, spec.systemPrompt, { mode: 0o600 });
      // The process's flags with its session written, and no MCP server (a tool conversation's is its own).
      const args = spec.args.filter((a) => a !== iso.noSessionPersistenceFlag);
      const mcp = args.indexOf(iso.mcpConfigFlag);
      if (mcp >= 0) args[mcp + 1] = iso.emptyMcpConfig;
      args.push(cli.sessionIdFlag, sessionId, cli.systemPromptFileFlag, promptFile);
      const env: NodeJS.ProcessEnv = { ...this.opts.env(), ...spec.env, HOME: home };
      env[cli.baseUrlEnv] = 'http://127.0.0.1:9';
      env[cli.maxRetriesEnv] = '0';
      for (const name of cli.homeOverrideEnvs) delete env[name];
      const line = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`;
      const [file, argv] = dyingWithParent(cliPath, args);
      const run = await execa(file, argv, {
        cwd: this.opts.cwd,
        env,
        extendEnv: false,
        input: (spec.initLine ?? '') + line('.') + line('.'),
        reject: false,
        timeout: probeTimeoutMs,
        windowsHide: true,
      });
      const session = readdirSync(home, { recursive: true, encoding: 'utf8' }).find((p) =>
        p.endsWith(`${sessionId}.jsonl`),
      );
      const announced = session ? announcedIn(readFileSync(join(home, session), 'utf8')) : undefined;
      if (!announced)
        logger.warn(
          { exitCode: run.exitCode, timedOut: run.timedOut },
          'could not learn what the assistant CLI announces on a first message: a fresh start reads less from the cache (docs/tool-mode.md "A fresh start")',
        );
      return announced;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not learn what the assistant CLI announces');
      return undefined;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
}
