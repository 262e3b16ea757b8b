// Diagnose: checks each enabled mode end to end and says, in plain words, what to do about each failure
// (docs/desktop.md "Diagnose"). Plain Node, no Electron: `npm run serve -- --diagnose` and the window's Diagnose
// button run the same code.
//
// The test requests go through a proxy's own HTTP routes, not through the backends directly: a running proxy's
// URL when one is given (the app passes its own, so the check sees exactly what clients see, access key
// included), otherwise a temporary proxy with the same settings on 127.0.0.1 and an OS-chosen port, closed
// afterwards. Either way a pass means a client's request would work, through the whole pipeline.

import { ConfigError, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { createProfile, type Profile } from '../profile.js';
import { createProxy } from '../server.js';
import { cliProbe, defaultDeps, serviceVersion, type ProxyDeps } from '../services.js';
import {
  cliCheck,
  directModelsCheck,
  loginCheck,
  respapiCredentialsCheck,
  respapiRequestCheck,
  skip,
  timed,
  toolRequestCheck,
  type ProxyTarget,
} from './checks.js';
import { billingCheck, type BillingReader } from './billing-check.js';
import { renderDiagnoseText } from './render.js';
import type { DiagnoseCheck, DiagnoseReport } from './types.js';

import { homedir } from 'node:os';
import { withoutPrivateDetails } from './private-details.js';

interface DiagnoseOptions {
  profile?: Profile;
  deps?: Partial<ProxyDeps>;
  /** A running proxy to send the test requests through (e.g. http://127.0.0.1:8000); default: a temporary one. */
  proxyUrl?: string;
  /** The access key that proxy requires; default config.accessKey. */
  accessKey?: string;
  /** Logger of the temporary proxy; default silent (the report is the output). */
  logger?: Logger;
  /** Deadline of each test request; default 90 s (a cold CLI start can take a while). */
  requestTimeoutMs?: number;
  /** The fetch used to reach the proxy (tests); default the global one. */
  fetch?: typeof fetch;
  /** Keep the account's e-mail and home-directory paths in the report (`--diagnose --full`); default: left out. */
  full?: boolean;
  /** The home directory written `~` in the report (tests); default os.homedir(). */
  home?: string;
  /** The usage ledger: the provider's billing refusals it recorded are a check of their own (billing-check.ts). */
  usage?: BillingReader;
}

const toolModes = (config: Config) => config.modes.includes('tool') || config.modes.includes('direct');

export async function diagnose(config: Config, opts: DiagnoseOptions = {}): Promise<DiagnoseReport> {
  const profile = opts.profile ?? createProfile();
  const deps = defaultDeps(opts.deps);
  const now = deps.now;
  const startedAt = new Date(now()).toISOString();
  const checks: DiagnoseCheck[] = [];
  const on = (m: Config['modes'][number]) => config.modes.includes(m);

  // The CLI and its login: tool mode runs the CLI; direct mode sends the CLI's OAuth token.
  let cliOk = false;
  let loggedIn = false;
  if (toolModes(config)) {
    // The proxy's own probe (services.ts): the children's environment, never PROXY_ACCESS_KEY.
    const probe = cliProbe(config, profile, deps);
    const snap = await probe.refresh().catch(() => probe.snapshot());
    const mode = on('tool') ? 'tool' : 'direct';
    const cli = await timed('cli', mode, 'Assistant CLI found', async () => cliCheck(snap, profile), now);
    cliOk = cli.status === 'pass';
    checks.push(cli);
    const login = await timed(
      'login',
      mode,
      'CLI logged in',
      async () =>
        cliOk || snap.auth.status !== 'unknown' ? loginCheck(snap, profile, now()) : skip('needs the CLI (see above)'),
      now,
    );
    loggedIn = login.status === 'pass';
    checks.push(login);
  }

  let temporary: { close(graceMs?: number): Promise<void> } | undefined;
  let target: ProxyTarget | undefined;
  let targetName = opts.proxyUrl ?? 'a temporary proxy on 127.0.0.1';
  const wantsRequests = config.modes.length > 0;
  try {
    if (wantsRequests) {
      if (opts.proxyUrl) {
        target = {
          url: opts.proxyUrl.replace(/\/+$/, ''),
          accessKey: opts.accessKey ?? config.accessKey,
          fetch: opts.fetch ?? fetch,
          timeoutMs: opts.requestTimeoutMs ?? 90_000,
        };
      } else {
        const proxy = createProxy({
          config: { ...config, host: '127.0.0.1', port: 0 },
          profile,
          logger: opts.logger ?? createLogger('silent'),
          deps: opts.deps,
        });
        const bound = await proxy.listen();
        temporary = proxy;
        // The provider's model list is read once the proxy listens: the checks below see its outcome.
        if (on('tool') || on('direct')) await proxy.catalog.refresh();
        targetName = `a temporary proxy on ${bound.url}`;
        target = {
          url: bound.url.replace(/\/+$/, ''),
          accessKey: config.accessKey,
          fetch: opts.fetch ?? fetch,
          timeoutMs: opts.requestTimeoutMs ?? 90_000,
        };
      }
    }
    if (on('tool') && target) {
      const t = target;
      checks.push(
        await timed(
          'tool-request',
          'tool',
          'A tiny request through tool mode',
          async () =>
            cliOk && loggedIn ? toolRequestCheck(t, profile) : skip('needs the CLI found and logged in (see above)'),
          now,
        ),
      );
    }
    if (on('direct') && target) {
      const t = target;
      checks.push(
        await timed(
          'direct-models',
          'direct',
          "Direct mode's credentials accepted by the provider",
          async () => directModelsCheck(t, profile, config.credentialsPath),
          now,
        ),
      );
    }
    if (on('respapi')) {
      const creds = await timed(
        'respapi-credentials',
        'respapi',
        'Response-API credentials present',
        () => respapiCredentialsCheck(config.respapiCredentialsPath, profile, now()),
        now,
      );
      checks.push(creds);
      const t = target;
      if (creds.status !== 'unset') {
        checks.push(
          await timed(
            'respapi-request',
            'respapi',
            'Response-API credentials valid (a tiny request)',
            async () =>
              creds.status === 'pass' && t
                ? respapiRequestCheck(t, profile)
                : skip('needs the credential file (see above)'),
            now,
          ),
        );
      }
    }
    if (opts.usage && config.modes.length > 0)
      checks.push(await billingCheck(opts.usage, now(), on('tool') ? 'tool' : (config.modes[0] ?? 'tool')));
  } catch (err) {
    // The temporary proxy could not start (a setting it refuses): one failed check that says so.
    const message = err instanceof ConfigError ? err.message : (err as Error).message;
    checks.push({
      id: 'proxy',
      mode: config.modes[0] ?? 'tool',
      title: 'A proxy to send the test requests through',
      status: 'fail',
      detail: message,
      remedy: 'Fix the setting named above, then run diagnose again.',
      durationMs: 0,
    });
  } finally {
    await temporary?.close(0).catch(() => undefined);
  }

  return {
    version: serviceVersion(),
    startedAt,
    platform: `${process.platform} ${process.arch}`,
    node: process.versions.node,
    modes: [...config.modes],
    target: targetName,
    checks,
    ok: checks.every((c) => c.status !== 'fail'),
  };
}

/**
 * The entry point for `--diagnose` (src/proxy/cli.ts): runs every check, and returns the report, its text and
 * whether all is well (exit 0 then, 1 otherwise).
 */
export async function runDiagnose(
  config: Config,
  opts: DiagnoseOptions = {},
): Promise<{ report: DiagnoseReport; text: string; ok: boolean }> {
  const raw = await diagnose(config, opts);
  // A report is made to be shared: no e-mail, no home path, unless the owner asked for the full one.
  const report = opts.full ? raw : withoutPrivateDetails(raw, opts.home ?? homedir());
  return { report, text: renderDiagnoseText(report), ok: report.ok };
}
