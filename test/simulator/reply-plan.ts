// Decides what the simulated provider answers to a native request, as a pure function of the request and the knobs:
// which content blocks, how each is split into stream pieces, the stop reason and the token counts.
//
// Token counts are deterministic and derived from content, never estimated:
// - input_tokens  = number of whitespace-separated words in `system` plus every text in `messages` (string content,
//                   text blocks, tool_result content text, tool_use input as JSON);
// - output_tokens = number of stream pieces actually emitted (text deltas plus input_json_delta pieces).
// The same counts are reported whether or not the request streams.

import { planAgentToolLoop } from './agent-tool-loop.js';
import { sampleOfSchema } from './schema-sample.js';
import type { SimulatorKnobs } from './types.js';

export type PlannedBlock =
  | { type: 'text'; pieces: string[]; citations?: unknown[] }
  | { type: 'tool_use'; id: string; name: string; input: unknown; pieces: string[] };

/**
 * The citations of an answer to a request whose documents ask for them (`citations: {enabled: true}`), as the
 * provider gives them: one per such document, of the document's first words (a text document's characters, a PDF's
 * first page). None when no document asks.
 */
function citationsOf(messages: unknown[]): unknown[] {
  const documents = messages.flatMap((m) => {
    const content = (m as { content?: unknown }).content;
    return Array.isArray(content)
      ? (content as Array<Record<string, unknown>>).filter((b) => b.type === 'document')
      : [];
  });
  return documents.flatMap((d, documentIndex): unknown[] => {
    if ((d.citations as { enabled?: unknown } | undefined)?.enabled !== true) return [];
    const source = (d.source ?? {}) as { type?: unknown; data?: unknown };
    const title = typeof d.title === 'string' ? d.title : null;
    if (source.type === 'text' && typeof source.data === 'string') {
      const cited = source.data.slice(0, 40);
      const at = {
        document_index: documentIndex,
        document_title: title,
        start_char_index: 0,
        end_char_index: cited.length,
      };
      return [{ type: 'char_location', cited_text: cited, ...at }];
    }
    const page = { document_index: documentIndex, document_title: title, start_page_number: 1, end_page_number: 2 };
    return [{ type: 'page_location', cited_text: 'the first page', ...page }];
  });
}

export interface ReplyPlan {
  blocks: PlannedBlock[];
  stopReason: 'end_turn' | 'tool_use' | 'stop_sequence' | 'max_tokens';
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
}

export function countWords(text: string): number {
  const words = text.trim().split(/\s+/);
  return words[0] === '' ? 0 : words.length;
}

/** All text a request carries in system and messages, for the input token count. */
export function requestTexts(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      const block = value as Record<string, unknown>;
      if (typeof block.text === 'string') out.push(block.text);
      if (block.content !== undefined) visit(block.content);
      if (block.type === 'tool_use' && block.input !== undefined) out.push(JSON.stringify(block.input));
    }
  };
  visit(body.system);
  visit(body.messages);
  return out;
}

/** Splits text into pieces: one per word (keeping the trailing whitespace) or `count` near-equal pieces. */
export function splitText(text: string, count?: number): string[] {
  if (text === '') return [];
  if (count === undefined) return text.match(/\S+\s*|\s+/g) ?? [text];
  const n = Math.max(1, Math.min(count, text.length));
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** JSON text in at least two pieces (three when long enough), as the provider streams tool input. */
export function splitJson(json: string): string[] {
  const n = Math.max(2, Math.min(3, json.length));
  return splitText(json, n);
}

interface ToolResultLike {
  type: 'tool_result';
  tool_use_id?: unknown;
  content?: unknown;
}

/** The tool results of the last user message (empty when it has none). */
function lastUserToolResults(messages: unknown[]): ToolResultLike[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (!m || m.role !== 'user') continue;
    if (!Array.isArray(m.content)) return [];
    return m.content.filter((b): b is ToolResultLike => (b as { type?: unknown })?.type === 'tool_result');
  }
  return [];
}

function toolResultText(result: ToolResultLike): string {
  const c = result.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((b) => (typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
      .join('');
  }
  return '';
}

/** The text blocks of a message (its string content as one). */
function textsOf(message: unknown): string[] {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b) => {
    const block = b as { type?: unknown; text?: unknown; content?: unknown };
    return block.type === 'text' && typeof block.text === 'string' ? [block.text] : [];
  });
}

/**
 * A model asked to summarise the conversation (the last user turn says so: a compaction's request) writes the
 * summary and calls no tool: it quotes what the user said and what the tools returned, so a test can see that a
 * later request still knows them. Undefined when the request asks for something else.
 */
function summaryOf(messages: unknown[]): string | undefined {
  const last = messages.at(-1) as { role?: unknown } | undefined;
  if (last?.role !== 'user') return undefined;
  const ask = textsOf(last).at(-1) ?? '';
  if (!/\bwrite\b[^.\n]*\bsummar/i.test(ask) || !/conversation/i.test(ask)) return undefined;
  const users = messages.filter((m) => (m as { role?: unknown }).role === 'user');
  // A summary is short whatever it stands for: the last few of each kind, each cut short.
  const brief = (t: string) => t.trim().replace(/\s+/g, ' ').slice(0, 300);
  const recent = 6;
  const said = users.flatMap(textsOf).filter((t) => t !== ask && t.trim() !== '');
  const returned = users
    .flatMap((m) => {
      const content = (m as { content?: unknown }).content;
      return Array.isArray(content) ? (content as ToolResultLike[]).filter((b) => b?.type === 'tool_result') : [];
    })
    .map(toolResultText)
    // A history given as text (tool mode's transcript of earlier turns) shows its results as `[tool result for …]`.
    .concat(
      users.flatMap(textsOf).flatMap((t) => [...t.matchAll(/\[tool result for [^:\]]+: ([^\]]*)\]/g)].map((m) => m[1])),
    )
    .filter((t) => t.trim() !== '');
  const results =
    returned.length > 0 ? ` ${summaryResultsLabel} ${returned.slice(-recent).map(brief).join(' | ')}` : '';
  const answered = messages
    .filter((m) => (m as { role?: unknown }).role === 'assistant')
    .flatMap(textsOf)
    .filter((t) => t.trim() !== '');
  const replies = answered.length > 0 ? ` The assistant said: ${answered.slice(-recent).map(brief).join(' | ')}.` : '';
  const user = said.slice(-recent).map(brief).join(' | ');
  return `Summary of the conversation so far. The user said: ${user}.${replies}${results}`;
}

/** How the simulator's own summary lists what the tools returned (agent-tool-loop.ts reads it back). */
export const summaryResultsLabel = 'The tools returned:';

export function planReply(body: Record<string, unknown>, knobs: SimulatorKnobs, nextToolId: () => string): ReplyPlan {
  const summary = summaryOf(Array.isArray(body.messages) ? body.messages : []);
  if (summary !== undefined) {
    const pieces = splitText(summary, knobs.chunkCount);
    const inputTokens = requestTexts(body).reduce((n, t) => n + countWords(t), 0);
    return {
      blocks: [{ type: 'text', pieces }],
      stopReason: 'end_turn',
      stopSequence: null,
      inputTokens,
      outputTokens: pieces.length,
    };
  }
  // A coding agent's own tool loop (agent-tool-loop.ts), when the agentToolLoop knob asks for one.
  const agentLoop = planAgentToolLoop(body, knobs, nextToolId);
  if (agentLoop) return agentLoop;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const inputTokens = requestTexts(body).reduce((n, t) => n + countWords(t), 0);
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ name?: unknown }>) : [];
  const toolResults = lastUserToolResults(messages);

  if (tools.length > 0 && toolResults.length === 0 && knobs.answerTools) {
    const blocks: PlannedBlock[] = [];
    if (knobs.toolPreamble) blocks.push({ type: 'text', pieces: splitText(knobs.toolPreamble, knobs.chunkCount) });
    // Several calls in one turn (knobs.toolCalls), each naming the next tool of the request in turn.
    for (let i = 0; i < Math.max(1, knobs.toolCalls ?? 1); i++) {
      const tool =
        (knobs.toolName !== undefined
          ? tools.find((t) => t.name === knobs.toolName || String(t.name).endsWith(`__${knobs.toolName}`))
          : undefined) ?? tools[i % tools.length];
      const name = typeof tool.name === 'string' ? tool.name : 'tool';
      const pieces = splitJson(JSON.stringify(knobs.toolInput));
      blocks.push({ type: 'tool_use', id: nextToolId(), name, input: knobs.toolInput, pieces });
    }
    const outputTokens = blocks.reduce((n, b) => n + b.pieces.length, 0);
    return { blocks, stopReason: 'tool_use', stopSequence: null, inputTokens, outputTokens };
  }

  const final = knobs.finalTool && tools.find((t) => t.name === knobs.finalTool?.name);
  if (final && toolResults.length > 0 && knobs.finalTool) {
    // The other calls' results are back (not the final tool's own): the model calls the final tool.
    const finalIds = new Set(
      messages.flatMap((m) => {
        const content = (m as { content?: unknown }).content;
        return Array.isArray(content)
          ? (content as Array<{ type?: unknown; name?: unknown; id?: unknown }>)
              .filter((b) => b.type === 'tool_use' && b.name === knobs.finalTool?.name)
              .map((b) => b.id)
          : [];
      }),
    );
    if (!toolResults.some((r) => finalIds.has(r.tool_use_id))) {
      const input = knobs.finalTool.input;
      const block: PlannedBlock = {
        type: 'tool_use',
        id: nextToolId(),
        name: knobs.finalTool.name,
        input,
        pieces: splitJson(JSON.stringify(input)),
      };
      return {
        blocks: [block],
        stopReason: 'tool_use',
        stopSequence: null,
        inputTokens,
        outputTokens: block.pieces.length,
      };
    }
  }
  let text = toolResults.length > 0 ? `The tool said: ${toolResults.map(toolResultText).join(' | ')}` : knobs.replyText;
  // Structured output (output_config.format): the answer is JSON that matches the schema, as constrained decoding
  // guarantees.
  const format = (body.output_config as { format?: { schema?: unknown } } | undefined)?.format;
  if (format?.schema && typeof format.schema === 'object')
    text = JSON.stringify(sampleOfSchema(format.schema as Record<string, unknown>));
  let stopReason: ReplyPlan['stopReason'] = 'end_turn';
  let stopSequence: string | null = null;
  const stops = Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s) => typeof s === 'string') : [];
  let cut = -1;
  for (const s of stops as string[]) {
    const at = s === '' ? -1 : text.indexOf(s);
    if (at >= 0 && (cut < 0 || at < cut)) {
      cut = at;
      stopSequence = s;
    }
  }
  if (cut >= 0) {
    text = text.slice(0, cut);
    stopReason = 'stop_sequence';
  }
  let pieces = splitText(text, knobs.chunkCount);
  const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
  if (maxTokens < pieces.length) {
    pieces = pieces.slice(0, Math.max(0, maxTokens));
    stopReason = 'max_tokens';
    stopSequence = null;
  }
  const citations = citationsOf(messages);
  const block: PlannedBlock = { type: 'text', pieces, ...(citations.length > 0 ? { citations } : {}) };
  return { blocks: [block], stopReason, stopSequence, inputTokens, outputTokens: pieces.length };
}

/** The whole content array of a planned reply, as a non-streaming answer carries it. */
export function planContent(plan: ReplyPlan): unknown[] {
  return plan.blocks.map((b) =>
    b.type === 'text'
      ? { type: 'text', text: b.pieces.join(''), ...(b.citations ? { citations: b.citations } : {}) }
      : { type: 'tool_use', id: b.id, name: b.name, input: b.input },
  );
}
