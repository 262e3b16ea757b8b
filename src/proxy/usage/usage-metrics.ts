// Prometheus series of the usage ledger (docs/usage.md "Metrics"), on the registry of one proxy instance
// (metrics.ts builds it; no global registry):
//   assistant_proxy_tokens_total{mode,model,kind}         tokens as reported, counted as each request ends
//   assistant_proxy_quota_utilization{source,window}      the latest observed fraction of each quota window
//   assistant_proxy_billing_refusals_total{reason,mode}   the provider's billing refusals (docs/usage.md "Lanes")
//   assistant_proxy_requests_by_lane_total{lane,mode}     requests by the lane that paid (`unknown` without a signal)
// Token counts that were not reported add nothing (never estimated). Returns a function that detaches the
// counter from the ledger (a long-lived ledger outlives a proxy that is restarted).

import { Counter, Gauge, type Registry } from 'prom-client';
import type { UsageLedger } from './ledger.js';
import type { UsageRecord } from './types.js';

const kinds = [
  ['input', 'input'],
  ['output', 'output'],
  ['cacheRead', 'cache_read'],
  ['cacheWrite', 'cache_write'],
] as const;

export function registerUsageMetrics(
  registry: Registry,
  ledger: Pick<UsageLedger, 'onRecord' | 'quotaWindows'>,
): () => void {
  const registers = [registry];
  const tokens = new Counter({
    name: 'assistant_proxy_tokens_total',
    help: 'Tokens as the provider or the CLI reported them, by kind',
    labelNames: ['mode', 'model', 'kind'],
    registers,
  });
  new Gauge({
    name: 'assistant_proxy_quota_utilization',
    help: 'Latest observed utilization of each subscription quota window (a fraction: 0.18 = 18 %)',
    labelNames: ['source', 'window'],
    registers,
    collect() {
      this.reset();
      for (const w of ledger.quotaWindows())
        if (w.utilization !== null) this.set({ source: w.source, window: w.window }, w.utilization);
    },
  });
  // The labelled children of each (mode, model), made once: prom-client hashes a label object on every inc(), which
  // cost more than the rest of the record. Not bounded here: it grows with each model name the traffic reports, as
  // the metric's own series do (a handful in practice).
  const children = new Map<string, Array<{ inc(value: number): void }>>();
  const refusals = new Counter({
    name: 'assistant_proxy_billing_refusals_total',
    help: "The provider's billing refusals, by reason: extra_usage_off, cli_only_credential",
    labelNames: ['reason', 'mode'],
    registers,
  });
  const lanes = new Counter({
    name: 'assistant_proxy_requests_by_lane_total',
    help: 'Requests by the lane that paid: plan, extra_usage, api_key, response_api, or unknown',
    labelNames: ['lane', 'mode'],
    registers,
  });
  return ledger.onRecord((r: UsageRecord) => {
    if (r.refusal) refusals.inc({ reason: r.refusal, mode: r.mode ?? 'none' });
    if (r.mode !== null) lanes.inc({ lane: r.billingLane ?? 'unknown', mode: r.mode });
    const mode = r.mode ?? 'none';
    const model = r.modelServed ?? r.modelRequested ?? 'unknown';
    const id = `${mode}\n${model}`;
    let byKind = children.get(id);
    if (!byKind) {
      if (children.size >= 1000) children.clear();
      byKind = kinds.map(([, kind]) => tokens.labels(mode, model, kind));
      children.set(id, byKind);
    }
    for (let i = 0; i < kinds.length; i++) {
      const n = r.tokens[kinds[i][0]];
      if (typeof n === 'number' && Number.isFinite(n) && n > 0) byKind[i].inc(n);
    }
  });
}
