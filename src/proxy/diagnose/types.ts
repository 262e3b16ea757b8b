// The diagnose report's shapes (docs/desktop.md "Diagnose"): what `--diagnose` prints and the window shows.

import type { ModeName } from '../../shared/modes.js';

/** `unset`: an optional mode whose login is absent (not set up, not broken: it does not fail the run). */
type CheckStatus = 'pass' | 'fail' | 'skip' | 'unset';

export interface DiagnoseCheck {
  /** Stable id: `cli`, `login`, `tool-request`, `direct-models`, `respapi-credentials`, `respapi-request`. */
  id: string;
  /** The mode the check is for. */
  mode: ModeName;
  title: string;
  status: CheckStatus;
  /** What was seen, in plain words (never a token or key). */
  detail: string;
  /** What to do about a failure (or why a check was skipped), in plain words. */
  remedy?: string;
  durationMs: number;
}

export interface DiagnoseReport {
  version: string;
  /** ISO time the run started. */
  startedAt: string;
  platform: string;
  node: string;
  modes: ModeName[];
  /** Where the test requests went: the running proxy's URL, or "a temporary proxy on 127.0.0.1". */
  target: string;
  checks: DiagnoseCheck[];
  /** True when no check failed (a mode that is not set up is not a failure). */
  ok: boolean;
}
