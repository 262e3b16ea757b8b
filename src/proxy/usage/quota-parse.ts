// Subscription quota windows from what the upstreams report on every answer (docs/usage.md "Quota windows").
// Pure functions: headers or a CLI event in, QuotaWindow rows out; nothing here stores or logs. Every header
// name comes from the profile's `quota` section (defaultQuotaNames), which a profile file may override (the rest of the code speaks neutral words).

import { firstValue } from '../header-value.js';
import { defaultProfile, type QuotaNames } from '../profile.js';
import type { OverageState, QuotaSource, QuotaWindow } from './types.js';

/** The names live in the provider profile (profile.ts `quota`), overridable like every provider constant. */
export const defaultQuotaNames: QuotaNames = defaultProfile.quota;

type Headers = Record<string, string | string[] | undefined>;

/** Node lower-cases incoming header names, but a fetch Headers copy or a test may not. */
function lowerKeys(headers: Headers): Headers {
  const out: Headers = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  const s = firstValue(v);
  return typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined;
}

function finite(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** A fraction in [0, 1.5] (a provider may report slightly over 1 when over the limit); anything else is noise. */
function fraction(n: number | null): number | null {
  return n !== null && n >= 0 && n <= 1.5 ? n : null;
}

/** Unix seconds; a value in ms (13 digits) is brought back to seconds. */
function unixSeconds(n: number | null): number | null {
  if (n === null || n <= 0) return null;
  return Math.round(n > 1e11 ? n / 1000 : n);
}

const statusRe = /^[a-z_]{1,40}$/;
function statusWord(s: unknown): string | null {
  return typeof s === 'string' && statusRe.test(s) ? s : null;
}

const windowNameRe = /^[a-z0-9_]{1,40}$/;

/**
 * Direct mode: the provider's unified-limit headers. One row per window that has at least one of utilization,
 * reset or status. The overall `<prefix>-status` and `-representative-claim` are not windows and are skipped.
 */
export function parseProviderQuotaHeaders(
  raw: Headers,
  observedAt: number,
  names: QuotaNames = defaultQuotaNames,
  source: QuotaSource = 'direct',
): QuotaWindow[] {
  const prefix = `${names.providerPrefix.toLowerCase()}-`;
  // Most answers carry no quota headers: look before copying (this runs once per upstream answer).
  if (!Object.keys(raw).some((k) => k.length > prefix.length && k.toLowerCase().startsWith(prefix))) return [];
  const headers = lowerKeys(raw);
  const abbrs = new Set<string>();
  for (const k of Object.keys(headers)) {
    if (!k.startsWith(prefix)) continue;
    const m = /^(.+)-(utilization|reset|status)$/.exec(k.slice(prefix.length));
    if (m) abbrs.add(m[1]);
  }
  const out: QuotaWindow[] = [];
  for (const abbr of [...abbrs].sort()) {
    const window = names.providerWindows[abbr] ?? abbr.replace(/-/g, '_');
    if (!windowNameRe.test(window)) continue;
    const utilization = fraction(finite(header(headers, `${prefix}${abbr}-utilization`)));
    const resetsAt = unixSeconds(finite(header(headers, `${prefix}${abbr}-reset`)));
    const status = statusWord(header(headers, `${prefix}${abbr}-status`));
    if (utilization === null && resetsAt === null && status === null) continue;
    out.push({ source, window, utilization, resetsAt, status, observedAt });
  }
  return out;
}

function windowName(minutes: number | null, fallback: string, names: QuotaNames): string {
  if (minutes === null || minutes <= 0 || !Number.isInteger(minutes)) return fallback;
  return names.windowMinutes[String(minutes)] ?? `${minutes}_minute`;
}

/**
 * Response-API mode: the headers its vendor's open-source CLI reads (docs/usage.md "Response API"):
 * `x-<family>-primary-used-percent` (percent, 0-100), `-primary-window-minutes`, `-primary-reset-at` (Unix s),
 * and the same for `secondary`. Windows are named by their length (300 min -> five_hour, 10080 -> seven_day).
 * Other limit families (`x-<other>-primary-used-percent`) get their family as a prefix: `<family>.<window>`.
 */
export function parseRespapiQuotaHeaders(
  raw: Headers,
  observedAt: number,
  names: QuotaNames = defaultQuotaNames,
): QuotaWindow[] {
  if (!Object.keys(raw).some((k) => k.toLowerCase().endsWith('-used-percent'))) return [];
  const headers = lowerKeys(raw);
  const families = new Set<string>();
  for (const key of Object.keys(headers)) {
    const m = /^x-([a-z0-9-]{1,60})-(primary|secondary)-used-percent$/.exec(key);
    if (m) families.add(m[1]);
  }
  const base = names.respapiFamily.toLowerCase();
  const out: QuotaWindow[] = [];
  for (const family of [...families].sort()) {
    for (const slot of ['primary', 'secondary'] as const) {
      const p = `x-${family}-${slot}`;
      const percent = finite(header(headers, `${p}-used-percent`));
      if (percent === null || percent < 0 || percent > 150) continue;
      const minutes = finite(header(headers, `${p}-window-minutes`));
      const resetsAt = unixSeconds(finite(header(headers, `${p}-reset-at`)));
      // As the vendor's CLI does: a zero with neither a length nor a reset is an absent window, not 0 %.
      if (percent === 0 && !minutes && resetsAt === null) continue;
      const name = windowName(minutes, slot, names);
      const window = family === base ? name : `${family.replace(/-/g, '_')}.${name}`;
      out.push({
        source: 'respapi',
        window,
        utilization: Math.round(percent * 100) / 10_000,
        resetsAt,
        status: null,
        observedAt,
      });
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Tool mode: the `rate_limit_info` of the CLI's `rate_limit_event` line. `unifiedWindows` holds one object per
 * window (utilization, resetsAt, status); an older shape with only the top-level status, resetsAt and
 * rateLimitType yields that one window without a utilization. Anything malformed yields no rows.
 */
export function parseCliRateLimit(info: unknown, observedAt: number): QuotaWindow[] {
  if (!isObject(info)) return [];
  const out: QuotaWindow[] = [];
  const windows = info.unifiedWindows;
  if (isObject(windows)) {
    for (const [name, w] of Object.entries(windows)) {
      if (!windowNameRe.test(name) || !isObject(w)) continue;
      const utilization = fraction(typeof w.utilization === 'number' ? w.utilization : null);
      const resetsAt = unixSeconds(typeof w.resetsAt === 'number' ? w.resetsAt : null);
      const status = statusWord(w.status);
      if (utilization === null && resetsAt === null && status === null) continue;
      out.push({ source: 'cli', window: name, utilization, resetsAt, status, observedAt });
    }
  }
  if (out.length === 0 && typeof info.rateLimitType === 'string' && windowNameRe.test(info.rateLimitType)) {
    const resetsAt = unixSeconds(typeof info.resetsAt === 'number' ? info.resetsAt : null);
    const status = statusWord(info.status);
    if (resetsAt !== null || status !== null) {
      const utilization = fraction(typeof info.utilization === 'number' ? info.utilization : null);
      out.push({ source: 'cli', window: info.rateLimitType, utilization, resetsAt, status, observedAt });
    }
  }
  return out;
}

function flag(text: string | undefined): boolean | null {
  if (text === undefined) return null;
  const t = text.toLowerCase();
  return t === 'true' ? true : t === 'false' ? false : null;
}

/**
 * Direct mode: the overage (extra usage) state of the provider's unified headers: `<prefix>-overage-status`,
 * `-overage-in-use`, `-overage-disabled-reason`. null when the answer carried none of them.
 */
export function parseProviderOverage(
  raw: Headers,
  observedAt: number,
  names: QuotaNames = defaultQuotaNames,
  source: QuotaSource = 'direct',
): OverageState | null {
  const p = `${names.providerPrefix.toLowerCase()}-overage-`;
  if (!Object.keys(raw).some((k) => k.toLowerCase().startsWith(p))) return null;
  const headers = lowerKeys(raw);
  const status = statusWord(header(headers, `${p}status`)?.toLowerCase());
  const inUse = flag(header(headers, `${p}in-use`));
  const disabledReason = statusWord(header(headers, `${p}disabled-reason`)?.toLowerCase());
  if (status === null && inUse === null && disabledReason === null) return null;
  return { source, status, inUse, disabledReason, observedAt };
}

/**
 * Tool mode: the overage state of the CLI's rate_limit_info: `overageStatus`, `overageInUse` or `isUsingOverage`
 * (the real CLI 2.1.330 prints both: __fixtures__/cli-rate-limit-overage.jsonl), `overageDisabledReason`.
 */
export function parseCliOverage(info: unknown, observedAt: number): OverageState | null {
  if (!isObject(info)) return null;
  const status = statusWord(info.overageStatus);
  const inUse =
    info.overageInUse === true || info.isUsingOverage === true
      ? true
      : info.overageInUse === false || info.isUsingOverage === false
        ? false
        : null;
  const disabledReason = statusWord(info.overageDisabledReason);
  if (status === null && inUse === null && disabledReason === null) return null;
  return { source: 'cli', status, inUse, disabledReason, observedAt };
}
