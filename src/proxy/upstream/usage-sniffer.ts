// Token usage for metrics (ctx.state.usage), read from a copy of the bytes the byte-level proxy passes through.
// The forwarded bytes are never changed or held back: the SSE copy goes through the one upstream SSE reader
// (sse-reader.ts) and only message_start / message_delta are looked at; a JSON answer is kept up to a bound and read at the end.

import { SseReader, type SseMessage } from './sse-reader.js';

export interface SniffedUsage {
  inputTokens?: number;
  outputTokens?: number;
}

const jsonLimitBytes = 4 * 1024 * 1024;

interface UsageLike {
  input_tokens?: unknown;
  output_tokens?: unknown;
}

function apply(out: SniffedUsage, usage: UsageLike | undefined): void {
  if (!usage) return;
  if (typeof usage.input_tokens === 'number') out.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') out.outputTokens = usage.output_tokens;
}

export class UsageSniffer {
  readonly usage: SniffedUsage = {};
  private readonly sse?: SseReader;
  private json: Buffer[] | undefined;
  private jsonBytes = 0;

  constructor(contentType: string) {
    if (contentType.includes('text/event-stream')) {
      this.sse = new SseReader();
    } else if (contentType.includes('json')) {
      this.json = [];
    }
  }

  private read(events: SseMessage[]): void {
    for (const ev of events) {
      if (ev.event !== 'message_start' && ev.event !== 'message_delta') continue;
      try {
        const data = JSON.parse(ev.data) as { message?: { usage?: UsageLike }; usage?: UsageLike };
        apply(this.usage, ev.event === 'message_start' ? data.message?.usage : data.usage);
      } catch {
        /* not ours to judge: the client gets the bytes as they are */
      }
    }
  }

  feed(chunk: Buffer): void {
    if (this.sse) this.read(this.sse.feed(chunk));
    else if (this.json) {
      this.jsonBytes += chunk.length;
      if (this.jsonBytes > jsonLimitBytes) this.json = undefined;
      else this.json.push(chunk);
    }
  }

  end(): SniffedUsage {
    if (this.sse) this.read(this.sse.end());
    if (this.json) {
      try {
        apply(this.usage, (JSON.parse(Buffer.concat(this.json).toString('utf8')) as { usage?: UsageLike }).usage);
      } catch {
        /* an error body or a cut answer: no usage */
      }
      this.json = undefined;
    }
    return this.usage;
  }
}
