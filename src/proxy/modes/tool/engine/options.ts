// What tool mode's engine is built with (components.ts gives it through CliBackend).

import type { Config } from '../../../config.js';
import type { FindResult } from '../../../health/find-cli.js';
import type { Logger } from '../../../logger.js';
import type { Profile } from '../../../profile.js';
import type { UsageSink } from '../../../usage/types.js';

export interface CliBackendOptions {
  config: Pick<
    Config,
    | 'cliWorkDir'
    | 'cliAllowedTools'
    | 'cliDisallowedTools'
    | 'cliUnconfinedShell'
    | 'respapiCredentialsPath'
    | 'cliMaxRetries'
    | 'cliMaxConcurrent'
    | 'cliQueueSize'
    | 'cliFirstTokenTimeoutMs'
    | 'cliToolResultTimeoutMs'
    | 'requestTimeoutMs'
    | 'cliPoolSize'
    | 'cliPoolIdleMs'
    | 'credentialsPath'
    | 'dataDir'
    | 'cliUserSetup'
    | 'cliLiveMax'
    | 'cliLiveIdleMs'
    | 'cliLiveMaxMb'
  >;
  profile: Profile;
  logger: Logger;
  /** Where the CLI is, looked up per chat so a CLI installed while the proxy runs is found. */
  findCli: () => FindResult;
  /** The environment every child starts from (Services.cliEnv: the user's, PATH fixed for a GUI launch, without the
   * proxy's own secrets, health/cli-env.ts); tool mode adds its own settings to it. */
  cliEnv: NodeJS.ProcessEnv;
  /** Receives the CLI's rate_limit_event lines (the quota windows, docs/usage.md). */
  usage?: Pick<UsageSink, 'cliRateLimit'>;
}
