// What the window needs from the usage ledger (src/proxy/usage/, docs/usage.md), as one narrow interface the
// control service reads through. The ledger implements it (or a small adapter over it does, in index.ts), and
// tests can give a fake. Methods may answer at once or as promises.

import type {
  CapturedBodies,
  QuotaWindow,
  RequestPage,
  RequestQuery,
  SummaryBy,
  UsageRecord,
  UsageSummary,
} from '../proxy/control-api.js';

type Maybe<T> = T | Promise<T>;

export interface UsageReader {
  summary(from: number, to: number, by: SummaryBy): Maybe<UsageSummary>;
  requests(query: RequestQuery): Maybe<RequestPage>;
  request(requestId: string): Maybe<{ record: UsageRecord; bodies?: CapturedBodies } | undefined>;
  quotaWindows(): Maybe<QuotaWindow[]>;
}
