// The CLI's OAuth credential file (shape: docs/direct-mode.md; test/simulator/credentials.ts writes one; the object
// under profile.credentials.rootKey holds accessToken, refreshToken, expiresAt in ms). Direct mode injects its
// access token (docs/interface.md "Authentication") and refreshes it before it expires through the token URL (the one
// grant, refresh-grant.ts). Built on the shared RefreshingCredential (single-flight, never stale) and writeFileAtomic
// (owner-only, crash-safe), so:
// - one refresh at a time however many requests wait (docs/lessons.md "Tokens and auth");
// - the file is rewritten with every other field kept as it was (scopes, subscriptionType, other root keys);
// - a missing file or a refused refresh is a 401 that says how to log in again (an unreachable token endpoint a 503),
//   and the file is left untouched.

import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { sweepStaleTemps, writeFileAtomic } from './atomic-write.js';
import { refreshGrant } from './refresh-grant.js';
import { RefreshingCredential } from './refreshing-credential.js';
import { ProxyError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Profile } from '../profile.js';

interface CliCredential {
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch; undefined when the file does not say. */
  expiresAt?: number;
}

interface CliCredentialsOptions {
  path: string;
  tokenUrl: string;
  profile: Profile;
  /** The proxy's upstream connection pool (keep-alive, connect timeout). */
  dispatcher: Dispatcher;
  /** Deadline for the token endpoint's answer. */
  timeoutMs: number;
  logger: Logger;
  now?: () => number;
}

const storedSchema = z.looseObject({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.number().optional(),
});

export class CliCredentials {
  private readonly credential: RefreshingCredential<CliCredential>;

  constructor(private readonly opts: CliCredentialsOptions) {
    this.credential = new RefreshingCredential<CliCredential>({
      read: () => this.read(),
      tokenOf: (c) => c.accessToken,
      expiresAt: (c) => c.expiresAt,
      refresh: (c) => this.refresh(c),
      write: (c) => this.write(c),
      skewMs: opts.profile.credentials.refreshSkewMs,
      now: opts.now,
      onRefresh: (outcome, error) => {
        // Never the token itself: only the outcome and, on failure, our own (token-free) message.
        if (outcome === 'ok') opts.logger.info('CLI OAuth token refreshed');
        else
          opts.logger.warn(
            { reason: error instanceof Error ? error.message : String(error) },
            'CLI OAuth token refresh failed',
          );
      },
    });
  }

  /** A valid credential, refreshed first when it is about to expire. Throws a 401 ProxyError with the remedy. */
  get(): Promise<CliCredential> {
    return this.credential.get();
  }

  /** Sends with the login, refreshing it once when the provider refuses it (RefreshingCredential.send). */
  send<A>(
    attempt: (credential: CliCredential) => Promise<A>,
    refused: (answer: A) => boolean,
    discard: (answer: A) => Promise<unknown>,
  ): Promise<A> {
    return this.credential.send(attempt, refused, discard);
  }

  private loginError(what: string): ProxyError {
    return new ProxyError(
      'authentication',
      `${what}. ${this.opts.profile.cli.loginHint}, or send your own API key in x-api-key.`,
    );
  }

  private async readRaw(): Promise<{ text: string; root: Record<string, unknown> }> {
    let text: string;
    try {
      // A writer killed between write and rename leaves a temp file holding tokens (auth/atomic-write.ts).
      await sweepStaleTemps(this.opts.path);
      text = await readFile(this.opts.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      this.opts.logger.warn({ path: this.opts.path, code }, 'CLI credential file not readable');
      throw this.loginError(
        code === 'ENOENT'
          ? 'No CLI login found: the credential file does not exist'
          : `The CLI credential file cannot be read (${code ?? 'error'})`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw this.loginError('The CLI credential file is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw this.loginError('The CLI credential file has an unexpected shape');
    return { text, root: parsed as Record<string, unknown> };
  }

  private async read(): Promise<CliCredential> {
    const { root } = await this.readRaw();
    const stored = storedSchema.safeParse(root[this.opts.profile.credentials.rootKey]);
    if (!stored.success) throw this.loginError('The CLI credential file holds no OAuth login');
    const { accessToken, refreshToken, expiresAt } = stored.data;
    return { accessToken, refreshToken, expiresAt };
  }

  private async refresh(current: CliCredential): Promise<CliCredential> {
    if (!current.refreshToken)
      throw this.loginError('The CLI login has expired and the credential file has no refresh token');
    const answer = await refreshGrant({
      tokenUrl: this.opts.tokenUrl,
      refreshToken: current.refreshToken,
      fields: { client_id: this.opts.profile.credentials.clientId },
      dispatcher: this.opts.dispatcher,
      timeoutMs: this.opts.timeoutMs,
      login: 'the CLI login',
      refused: (message) => this.loginError(message),
    });
    const now = (this.opts.now ?? Date.now)();
    return {
      accessToken: answer.access_token,
      // The endpoint may rotate the refresh token; when it does not send one, the old one stays valid.
      refreshToken: answer.refresh_token ?? current.refreshToken,
      expiresAt: answer.expires_in != null ? now + answer.expires_in * 1000 : undefined,
    };
  }

  /** Writes the new tokens into the file as it is now, keeping every other field and the file's permissions. */
  private async write(next: CliCredential): Promise<void> {
    const rootKey = this.opts.profile.credentials.rootKey;
    let text = '';
    let root: Record<string, unknown> = {};
    try {
      ({ text, root } = await this.readRaw());
    } catch {
      /* the file vanished meanwhile: write a fresh one */
    }
    const before = root[rootKey];
    const entry =
      typeof before === 'object' && before !== null && !Array.isArray(before)
        ? { ...(before as Record<string, unknown>) }
        : {};
    entry.accessToken = next.accessToken;
    if (next.refreshToken !== undefined) entry.refreshToken = next.refreshToken;
    if (next.expiresAt !== undefined) entry.expiresAt = next.expiresAt;
    else delete entry.expiresAt;
    const updated = { ...root, [rootKey]: entry };
    // Keep the file's layout: the CLI writes it compact; a hand-edited file may be indented.
    const indented = /\n\s/.test(text);
    await writeFileAtomic(this.opts.path, JSON.stringify(updated, null, indented ? 2 : undefined));
  }
}
