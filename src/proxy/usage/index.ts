// The usage ledger's entry points (docs/usage.md), for the composition root and the desktop app.

import type { Config } from '../config.js';
import { ledgerOptions, type LedgerLog } from './ledger-options.js';
import { UsageLedger } from './ledger.js';
import type { QuotaNames } from '../profile.js';
import type { UsageSink } from './types.js';

/**
 * Opens the ledger with the proxy's settings (DATA_DIR, USAGE_RETENTION_DAYS, USAGE_MAX_MB, CAPTURE_BODIES...);
 * `quotaNames` overrides the provider's quota header names (from the profile).
 */
export function openLedger(config: Config, logger?: LedgerLog, quotaNames?: QuotaNames): UsageLedger {
  return UsageLedger.open({ ...ledgerOptions(config, logger), ...(quotaNames ? { quotaNames } : {}) });
}

/** A sink that keeps nothing: for a proxy started without a ledger (and for tests that do not look at usage). */
export const noopUsageSink: UsageSink = Object.freeze({
  record: () => {},
  upstreamHeaders: () => {},
  cliRateLimit: () => {},
});
