// A JSON schema's answer from the CLI's lines (docs/tool-mode.md "Structured output"), for
// cli-events-to-native-events.ts: the CLI's StructuredOutput call opens the answer's one text block, and the result
// line's validated `structured_output` is its text; a result without it is the error the client gets. Pure.

import { ProxyError } from '../../../errors.js';
import type { CliBlock, CliResultLine } from './cli-events.js';
import type { NativeStreamEvent } from '../../../formats/native.js';

/** What the structured answer reads and keeps of the translator's state. */
interface StructuredState {
  nextIndex: number;
  stopReason: string | null;
  /** Our index of the structured answer's text block, once opened. */
  structuredIndex?: number;
}

/** A content block that starts the CLI's structured-output tool call (`tool` unset: no schema was given). */
export function isStructuredCall(block: CliBlock, tool: string | undefined): boolean {
  return tool !== undefined && block.type === 'tool_use' && block.name === tool;
}

/**
 * The structured answer's text block, opened once (its text comes with `result`). The translator keeps it out of
 * its open blocks, which a later provider call closes, and starts no other block but a client tool's after it
 * (blocks never interleave).
 */
export function openStructured(state: StructuredState): NativeStreamEvent[] {
  if (state.structuredIndex !== undefined) return [];
  const index = (state.structuredIndex = state.nextIndex++);
  return [{ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }];
}

/**
 * The structured answer at `result`, after the other open blocks were closed: its object as JSON text in the one text
 * block, stop reason end_turn; a result without the object is the error the client gets instead.
 */
export function structuredAnswer(line: CliResultLine, state: StructuredState): NativeStreamEvent[] | ProxyError {
  const value = line.structured_output;
  if (value === undefined || value === null) {
    const cut = (line.stop_reason ?? state.stopReason) === 'max_tokens';
    return new ProxyError(
      'upstream',
      cut
        ? 'The answer reached max_tokens before the model gave an object matching the JSON schema; raise max_tokens (docs/tool-mode.md "Structured output")'
        : 'The model did not give an object matching the JSON schema: the assistant CLI accepted none of its attempts (docs/tool-mode.md "Structured output")',
      { retryable: !cut },
    );
  }
  const events = openStructured(state);
  const index = state.structuredIndex!;
  events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: JSON.stringify(value) } });
  events.push({ type: 'content_block_stop', index });
  // The tool's call stopped the CLI's last provider call with tool_use; for the client the answer is complete.
  state.stopReason = 'end_turn';
  return events;
}
