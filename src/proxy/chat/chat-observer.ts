// The one observer of a chat (docs/architecture.md "The observer of a chat"): the only writer of what an answer
// leaves on ctx.state for the log, the metrics and the usage ledger: the first-token time (the first content
// delta, in every mode and route: never the role chunk of message_start, never the first byte), the usage with its
// cache tokens, the model that served it (in the neutral naming, docs/clients.md "Model ids"), that an upstream
// answered, and whether the answer finished (message_stop, or the response API's final response). It only reads:
// the events it sees are never changed. (An error's type is the error writer's, http/stream-error.ts.)
// Three feeds, one set of rules:
//   native(event)     a native stream event (chat/answer-chat.ts, for the CLI and the direct backend)
//   bytes(chunk)/end  the byte-level forwarder's answer (modes/direct/forward.ts), read from a copy: an event stream
//                     through the one SSE reader, a JSON message kept up to a bound and read at the end
//   respapi(event)    a response-API event (respapi/routes.ts)

import type { NativeUsage } from '../formats/native.js';
import type { ProxyState } from '../http/state.js';
import { reportedTokensOf } from '../formats/map-usage.js';
import type { QuotaNames } from '../profile.js';
import {
  billingRefusalOf,
  laneOfCliRateLimit,
  laneOfProviderAnswer,
  type CredentialKind,
} from '../usage/billing-lane.js';
import type { BillingFacts, BillingLane } from '../usage/types.js';
import { SseReader, type SseMessage } from '../upstream/sse-reader.js';

/** Largest JSON answer kept to read its usage (a larger one is passed on unread). */
const jsonLimitBytes = 4 * 1024 * 1024;

type Json = Record<string, unknown>;

function objectOf(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function parse(text: string): Json | undefined {
  try {
    return objectOf(JSON.parse(text));
  } catch {
    return undefined; // not ours to judge: the client gets the bytes as they are
  }
}

/** A response-API usage object as the ledger's token counts (its cached prompt tokens are the cache reads). */
function respapiTokensOf(usage: unknown): Partial<NativeUsage> | undefined {
  const u = objectOf(usage);
  if (!u) return undefined;
  const cached = objectOf(u.input_tokens_details)?.cached_tokens;
  return {
    input_tokens: typeof u.input_tokens === 'number' ? u.input_tokens : undefined,
    output_tokens: typeof u.output_tokens === 'number' ? u.output_tokens : undefined,
    cache_read_input_tokens: typeof cached === 'number' ? cached : undefined,
  };
}

interface ChatObserverOptions {
  now: () => number;
  /** The neutral name of the model an answer reports (absent: recorded as reported). */
  servedName?: (served: string) => string;
  /** The provider's quota header names and refusal words (profile.quota); absent: the default profile's. */
  quota?: QuotaNames;
}

export class ChatObserver implements BillingFacts {
  private sse?: SseReader;
  private json?: Buffer[];
  private jsonBytes = 0;
  private sawStop = false;

  constructor(
    private readonly state: ProxyState,
    private readonly opts: ChatObserverOptions,
  ) {}

  /** The answer ended as a finished answer should: message_stop, or the response API's final response. */
  get stopped(): boolean {
    return this.sawStop;
  }

  /** An upstream (the provider, the CLI, the response API) answered: a 4xx after this is the upstream's. */
  answered(): void {
    this.state.upstreamAnswered = true;
  }

  /** A native stream event, as it passes; never changed. */
  native(event: { type: string; message?: unknown; usage?: unknown }): void {
    switch (event.type) {
      case 'message_start': {
        const message = objectOf(event.message);
        this.served(message?.model);
        this.startUsage(objectOf(message?.usage));
        break;
      }
      case 'content_block_delta':
        this.firstToken();
        break;
      case 'message_delta':
        this.usage(objectOf(event.usage));
        this.state.usagePartial = false;
        break;
      case 'message_stop':
        this.sawStop = true;
        break;
      case 'error':
        // A refusal after the headers (an error event in the stream) is the row's refusal as one before them is.
        this.errorBody(objectOf((event as { error?: unknown }).error));
        break;
    }
  }

  /** A whole native message (a JSON answer that was not streamed): its text arrived with it. */
  message(message: Json): void {
    if (message.type !== 'message') return;
    this.served(message.model);
    this.usage(objectOf(message.usage));
    this.state.usagePartial = false;
    if (Array.isArray(message.content) && message.content.length > 0) this.firstToken();
    this.sawStop = true;
  }

  /** A provider's answer headers (direct mode): which lane it was billed to (usage/billing-lane.ts). */
  providerAnswer(headers: Record<string, string | string[] | undefined>, credential: CredentialKind): void {
    this.answered();
    const lane = laneOfProviderAnswer(headers, credential, this.opts.quota);
    if (lane) this.state.billingLane = lane;
  }

  /** A CLI rate_limit_event's info (tool mode): which lane the CLI's call was billed to. */
  cliRateLimit(info: unknown): void {
    const lane = laneOfCliRateLimit(info);
    // Extra usage, once seen in an answer of several calls, is what the answer cost.
    if (lane && this.state.billingLane !== 'extra_usage') {
      this.state.billingLane = lane;
      this.state.billingLaneCarried = false;
    }
  }

  /** The CLI printed no rate_limit_event for this request: its process's last reported lane, marked as carried. */
  cliLaneCarried(lane: BillingLane): void {
    if (this.state.billingLane) return;
    this.state.billingLane = lane;
    this.state.billingLaneCarried = true;
  }

  /** Starts reading a forwarded answer of this content type (an event stream or JSON; anything else unread). */
  readBytesOf(contentType: string): this {
    if (contentType.includes('text/event-stream')) this.sse = new SseReader();
    else if (contentType.includes('json')) this.json = [];
    return this;
  }

  /** A copy of forwarded bytes; the caller passes the same bytes on untouched. */
  bytes(chunk: Buffer): void {
    if (this.sse) {
      for (const msg of this.sse.feed(chunk)) this.sseMessage(msg);
    } else if (this.json) {
      this.jsonBytes += chunk.length;
      if (this.jsonBytes > jsonLimitBytes) this.json = undefined;
      else this.json.push(chunk);
    }
  }

  /** The forwarded answer ended (or broke off): what the reader still held is read. */
  end(): void {
    if (this.sse) {
      for (const msg of this.sse.end()) this.sseMessage(msg);
      this.sse = undefined;
    }
    if (this.json) {
      // A whole answer comes as one Buffer (modes/direct/forward.ts): read it where it is, without a copy.
      const json = this.json;
      const whole = parse((json.length === 1 ? json[0] : Buffer.concat(json)).toString('utf8'));
      this.json = undefined;
      if (whole) this.message(whole);
      if (whole?.type === 'error') this.errorBody(objectOf(whole.error));
    }
  }

  /** A response-API event (its JSON parsed once by the relay); never changed. */
  respapi(type: string, json: Json | undefined): void {
    // Every response-API content delta (output text, reasoning summary, function arguments) ends in `.delta`.
    if (type.startsWith('response.') && type.endsWith('.delta')) this.firstToken();
    else if (type === 'response.completed' || type === 'response.incomplete') {
      const response = objectOf(json?.response);
      this.served(response?.model);
      const tokens = respapiTokensOf(response?.usage);
      if (tokens) this.state.usage = reportedTokensOf(tokens, this.state.usage);
      this.state.usagePartial = false;
      this.sawStop = true;
    }
  }

  /** An error the provider sent, forwarded as it wrote it or in a stream: a billing refusal is counted as one. */
  private errorBody(error: Json | undefined): void {
    const refusal =
      typeof error?.message === 'string' ? billingRefusalOf(error.message, this.opts.quota?.refusals) : null;
    if (refusal) this.state.billingRefusal = refusal;
  }

  private sseMessage(msg: SseMessage): void {
    const name = msg.event;
    // Only the events that carry facts are parsed: a content delta is known by its name, its text is not read.
    if (name === 'content_block_delta') this.firstToken();
    else if (name === 'message_stop') this.sawStop = true;
    else if (name === 'message_start' || name === 'message_delta' || name === 'error') {
      const data = parse(msg.data);
      if (data) this.native(data as { type: string });
    }
  }

  private firstToken(): void {
    if (this.state.firstTokenAt === undefined) this.state.firstTokenAt = this.opts.now();
  }

  private served(model: unknown): void {
    if (typeof model === 'string' && model !== '')
      this.state.modelServed = this.opts.servedName ? this.opts.servedName(model) : model;
  }

  private usage(usage: Json | undefined): void {
    if (usage) this.state.usage = reportedTokensOf(usage as Partial<NativeUsage>, this.state.usage);
  }

  /**
   * message_start's usage: its input and cache counts are final, but its output count is a placeholder (the
   * provider sends 1; the real CLI prints it again on its `assistant` line) that message_delta replaces. It is not
   * kept: an answer that ends before message_delta has no output count and is flagged partial (docs/usage.md).
   */
  private startUsage(usage: Json | undefined): void {
    if (!usage) return;
    const { output_tokens: _placeholder, ...counts } = usage;
    this.state.usage = reportedTokensOf(counts as Partial<NativeUsage>, this.state.usage);
    if (this.state.usage.outputTokens === undefined) this.state.usagePartial = true;
  }
}
