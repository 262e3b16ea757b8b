// Starting a fresh CLI process (docs/tool-mode.md "How the CLI is run", "Isolation"): the one place a process is
// spawned, for a chat, a tool conversation and the warm pool alike, so that what a fresh start is given (files written
// before it, flags added) and what is cleaned up after it live together. The child runs in the app-owned working
// directory with the user's own environment plus a bound on the CLI's retries, in its own process group (ending it
// also ends the tools it started, docs/principles.md "Child processes"), dying with the proxy where the system allows
// (death-signal.ts), and gets its system prompt through an owner-only file (prompt-files.ts), never an argument.

import { rmSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { ProxyError } from '../../../errors.js';
import type { CliInputOptions } from '../translate/native-request-to-cli-input.js';
import { toolRulesToCliPermissions, type CliPermissions } from '../translate/tool-rules-to-cli-permissions.js';
import { withAnnouncements } from '../translate/native-messages-to-cli-transcript.js';
import { Announcements } from './announcements.js';
import { CliConversation } from './cli-conversation.js';
import { filesFingerprint } from './proc-facts.js';
import { dyingWithParent } from './death-signal.js';
import { killGraceMs, processGroups } from './end-child.js';
import type { CliBackendOptions } from './options.js';
import { fileError, PromptFiles } from './prompt-files.js';
import type { SpawnInput } from './spec.js';

export class ProcessStarter {
  private workDirReady = false;
  private readonly prompts: PromptFiles;
  /** Transcripts of the earlier turns a fresh process resumes (docs/tool-mode.md "A fresh start"). */
  private readonly transcripts: PromptFiles;
  /** What the built-in tools may do (docs/security.md "The CLI's own tools"), and its settings file once written. */
  private readonly permissions: CliPermissions;
  private permissionsFile: string | undefined;
  private readonly announcements: Announcements;

  constructor(private readonly opts: CliBackendOptions) {
    const { config, profile } = opts;
    this.prompts = new PromptFiles(join(config.dataDir, 'cli-prompts'));
    this.transcripts = new PromptFiles(join(config.dataDir, 'cli-transcripts'), '.jsonl');
    this.prompts.sweep();
    this.transcripts.sweep();
    this.announcements = new Announcements({
      profile,
      logger: opts.logger,
      cwd: config.cliWorkDir,
      env: () => this.childEnv(),
      tempDir: () => this.transcripts.tempDir(),
    });
    this.permissions = toolRulesToCliPermissions({
      profile,
      allowedTools: config.cliAllowedTools,
      disallowedTools: config.cliDisallowedTools,
      unconfinedShell: config.cliUnconfinedShell,
      deniedDirs: [resolve(config.dataDir)],
      deniedFiles: [resolve(config.credentialsPath), resolve(config.respapiCredentialsPath)],
      workDir: resolve(config.cliWorkDir),
    });
    if (this.permissions.refused.length > 0) {
      opts.logger.warn(
        { refused: this.permissions.refused },
        'CLI_ALLOWED_TOOLS names tools that run commands as you, past every file rule; they are not offered unless CLI_UNCONFINED_SHELL=true (docs/security.md)',
      );
    }
  }

  /** The login and settings a process starts under: a new login, another CLI binary or environment replaces processes. */
  fingerprint(): string {
    const { config } = this.opts;
    return filesFingerprint([config.credentialsPath], {
      cli: this.opts.findCli().path,
      env: this.childEnv(),
      cwd: config.cliWorkDir,
    });
  }

  childEnv(): NodeJS.ProcessEnv {
    const env = { ...this.opts.cliEnv };
    // The CLI retries failed provider calls for minutes by default (fixtures/cli-recordings/README.md).
    env[this.opts.profile.cli.maxRetriesEnv] = String(this.opts.config.cliMaxRetries);
    return env;
  }

  /** The CLI's path, with the working directory ready: what a start needs (throws the 503 / 500 a chat reports). */
  async prepare(): Promise<string> {
    const cliPath = this.cliPath();
    await this.ensureWorkDir();
    return cliPath;
  }

  /**
   * `spec` with the CLI's own announcements in its transcript where a live process had them (announcements.ts), so
   * that a fresh start sends the prefix an evicted process left in the provider's cache; `spec` itself when it
   * resumes nothing or they cannot be learnt. A request that ends meanwhile (`signal`) stops waiting; the run goes on
   * for the next.
   */
  async withAnnouncements<S extends SpawnInput>(cliPath: string, spec: S, signal?: AbortSignal): Promise<S> {
    if (spec.transcript === undefined) return spec;
    const learning = this.announcements.get(cliPath, spec);
    const announced = signal ? await abortable(learning, signal) : await learning;
    return announced ? { ...spec, transcript: withAnnouncements(spec.transcript, announced) } : spec;
  }

  /**
   * Starts the CLI with `spec`, stdin open for the turns to come; `key` is what a later request must be started with
   * to continue it. The one spawn of the engine: what a fresh process is given before it starts (a file written for
   * it, flags added) goes here, and every file in `files` is removed when the spawn fails or the process exits.
   */
  start(cliPath: string, spec: SpawnInput, key: string): CliConversation {
    const { profile, config } = this.opts;
    const files: string[] = [];
    const args = [...spec.args];
    try {
      files.push(this.prompts.write(spec.systemPrompt));
      args.push(profile.cli.systemPromptFileFlag, files[0]);
      // The earlier turns for the CLI to resume (docs/tool-mode.md "A fresh start"): owner-only in the data directory,
      // removed with the process like its prompt file.
      if (spec.transcript !== undefined) {
        files.push(this.transcripts.write(spec.transcript));
        args.push(profile.cli.resumeFlag, files[1]);
      }
    } catch (err) {
      for (const file of files) rmSync(file, { force: true });
      throw fileError("the CLI's input files", config.dataDir, err);
    }
    let child: ResultPromise;
    try {
      child = this.spawn(cliPath, args, spec.env);
    } catch (err) {
      for (const file of files) rmSync(file, { force: true });
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new ProxyError('unavailable', `The assistant CLI could not be started (${code}); retry shortly`, {
        retryAfter: 5,
      });
    }
    // The JSON schema, if any, is the first line the process reads: on stdin, never in its argv (docs/security.md).
    if (spec.initLine !== undefined) child.stdin?.write(spec.initLine);
    const modelAt = spec.args.indexOf(profile.cli.modelFlag);
    return new CliConversation(child, {
      key,
      model: modelAt >= 0 ? (spec.args[modelAt + 1] ?? 'unknown') : 'unknown',
      fingerprint: this.fingerprint(),
      files,
      now: Date.now,
    });
  }

  /** The built-in tools offered and the owner-only settings file of their rules, written on first use. */
  builtInTools(): CliInputOptions['builtInTools'] {
    if (this.permissions.tools.length === 0) return undefined;
    if (this.permissionsFile === undefined) {
      try {
        this.permissionsFile = this.prompts.writeShared(
          'tool-rules.json',
          JSON.stringify(this.permissions.settings, null, 2),
        );
      } catch (err) {
        throw fileError("the CLI's tool rules", this.opts.config.dataDir, err);
      }
    }
    return { tools: this.permissions.tools, settingsFile: this.permissionsFile };
  }

  /** Shutdown, once every process has exited (or the wait gave up): the files left are removed. */
  close(): void {
    this.prompts.close();
    this.transcripts.close();
  }

  /** execa with the child's options; a spawn failure (EMFILE, EAGAIN...) is reported, never thrown as an event. */
  private spawn(cliPath: string, args: string[], env: Record<string, string>): ResultPromise {
    // It dies with the proxy where the system allows (death-signal.ts): a killed proxy leaves no CLI calling on.
    const [file, argv] = dyingWithParent(cliPath, args);
    const child = execa(file, argv, {
      stdin: 'pipe',
      cwd: this.opts.config.cliWorkDir,
      env: { ...this.childEnv(), ...env },
      extendEnv: false,
      buffer: false,
      reject: false,
      stripFinalNewline: false,
      forceKillAfterDelay: killGraceMs,
      windowsHide: true,
      detached: processGroups,
    });
    // Node emits a failed spawn (EMFILE, ENOENT...) as an `error` event: with no listener at that moment it would end
    // the whole proxy. The failure itself reaches the reader through the result (cli-conversation.ts).
    child.on('error', () => undefined);
    return child;
  }

  /** The app-owned working directory, created on first use (empty, owner-only). A failure is not cached. */
  private async ensureWorkDir(): Promise<void> {
    if (this.workDirReady) return;
    const dir = this.opts.config.cliWorkDir;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      // The path lies under the owner's home, and any local caller may get this answer: it goes to the log alone.
      throw new ProxyError(
        'internal',
        `Cannot use the assistant CLI's working directory (${code}); set CLI_WORKDIR to a directory the proxy may create (the proxy's log names the path)`,
        { retryable: false, ownerDetail: `CLI_WORKDIR: ${dir}` },
      );
    }
    this.workDirReady = true;
  }

  /**
   * Where the CLI is, looked up now (a CLI installed while the proxy runs is found); a 503 when nowhere. The places
   * searched lie under the owner's home, and any local caller may read this answer: they are named only in
   * /health/detailed with the owner's key (docs/security.md).
   */
  cliPath(): string {
    const found = this.opts.findCli();
    if (found.path) return found.path;
    throw new ProxyError(
      'unavailable',
      `The assistant CLI was not found on PATH nor in the usual install places (the owner's /health/detailed lists where it looked). ${this.opts.profile.cli.installHint}`,
      { retryable: false },
    );
  }
}

/** `p`, or the reason of `signal` once it aborts first. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
