// A pace projection for a quota window (docs/usage.md "Endpoints": GET /usage/limits): from the utilization the
// upstream reported and how much of the window had passed when it did, the utilization expected at the reset if use
// goes on at the same average rate, and when the limit (100 %) would be reached at that rate. Pure, and here in
// src/shared because the proxy (its /usage/limits and alerts), the tray and the window all project the same way.
// Imports nothing: the window shape is written out structurally (src/proxy/usage/types.ts QuotaWindow fits it).

/** The fields of a quota window a projection reads. */
export interface QuotaWindow {
  source: string;
  window: string;
  utilization: number | null;
  /** Unix seconds. */
  resetsAt: number | null;
  /** ms since the epoch. */
  observedAt: number;
}

/** The part of the provider profile's quota names a window length is read from (profile.ts `quota`). */
export interface QuotaNames {
  windowMinutes: Record<string, string>;
}

export interface Pace {
  /** Utilization expected at the reset at the average rate so far (a fraction; may exceed 1). */
  expectedAtReset: number;
  /** Unix seconds when the limit is reached at that rate; null when it is not reached before the reset. */
  limitAt: number | null;
  /** Fraction of utilization per hour so far. */
  perHour: number;
}

/** Too early in a window a rate says little: a projection needs this share of the window behind it. */
const minElapsedShare = 0.02;

/**
 * The window's length in seconds, from its name: the profile's window names by length (`five_hour` 300 min,
 * `seven_day` 10080 min...), a model-specific variant of one (`seven_day_opus`), a response-API family's
 * (`codex_other.one_day`), or `<n>_minute`. null for a window whose length is not known (`overage`, `primary`).
 */
export function windowSeconds(name: string, names: QuotaNames): number | null {
  const bare = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  const minuteMatch = /^(\d+)_minute$/.exec(bare);
  if (minuteMatch) return Number(minuteMatch[1]) * 60;
  let best: { minutes: number; length: number } | undefined;
  for (const [minutes, known] of Object.entries(names.windowMinutes)) {
    if (bare === known || bare.startsWith(`${known}_`)) {
      if (!best || known.length > best.length) best = { minutes: Number(minutes), length: known.length };
    }
  }
  return best ? best.minutes * 60 : null;
}

/** The projection of one window, or null when it cannot be made honestly (no figure, no reset, no length, too early). */
export function paceOf(w: QuotaWindow, lengthSeconds: number | null): Pace | null {
  if (w.utilization === null || w.resetsAt === null || lengthSeconds === null || lengthSeconds <= 0) return null;
  const observed = w.observedAt / 1000;
  const start = w.resetsAt - lengthSeconds;
  const elapsed = observed - start;
  if (elapsed < lengthSeconds * minElapsedShare || observed >= w.resetsAt) return null;
  const rate = w.utilization / elapsed; // per second
  const expectedAtReset = w.utilization + rate * (w.resetsAt - observed);
  let limitAt: number | null = null;
  if (w.utilization >= 1) limitAt = Math.floor(observed);
  else if (rate > 0) {
    const at = observed + (1 - w.utilization) / rate;
    if (at < w.resetsAt) limitAt = Math.floor(at);
  }
  return {
    expectedAtReset: Math.round(expectedAtReset * 10_000) / 10_000,
    limitAt,
    perHour: Math.round(rate * 3600 * 10_000) / 10_000,
  };
}

/**
 * The span of the current window named `name` (ms): from its start (reset minus its length) to now, by the latest
 * observation whose reset is still ahead; without one, the last `fallbackSeconds` up to now, marked as such.
 */
export function currentSpan<W extends QuotaWindow>(
  windows: W[],
  name: string,
  lengthSeconds: number,
  now: number,
): { from: number; to: number; source: W['source'] | null } {
  let best: W | undefined;
  for (const w of windows) {
    if (w.window !== name || w.resetsAt === null || w.resetsAt * 1000 <= now) continue;
    if (!best || w.observedAt > best.observedAt) best = w;
  }
  if (!best || best.resetsAt === null) return { from: now - lengthSeconds * 1000, to: now, source: null };
  return { from: Math.max(0, (best.resetsAt - lengthSeconds) * 1000), to: now, source: best.source };
}
