// A JSON schema's answer in tool mode (docs/tool-mode.md "Structured output"), replayed from the real CLI's recordings
// of --json-schema (test/fixtures/cli-recordings/structured*.stdout): the validated object is the answer's one text
// block, the CLI's own StructuredOutput call and the model's other text never reach the client.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliLine } from './cli-events.js';
import type { NativeStreamEvent } from '../../../formats/native.js';
import { createCliTranslateState, finishCliLines, stepCliLine } from './cli-events-to-native-events.js';
import {
  createNativeMessageState,
  finishNativeMessage,
  stepNativeMessage,
} from '../../../formats/native-events-to-message.js';

const recording = (name: string): string[] =>
  readFileSync(new URL(`../../../../../test/fixtures/cli-recordings/${name}.stdout`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l !== '');

function replay(lines: string[], schema = true) {
  const structuredOutputTool = schema ? 'StructuredOutput' : undefined;
  const state = createCliTranslateState({ notLoggedInPattern: 'Not logged in', loginHint: '', structuredOutputTool });
  const events: NativeStreamEvent[] = [];
  let error: unknown;
  for (const line of lines) {
    const step = stepCliLine(parseCliLine(line), state);
    events.push(...step.events);
    error ??= step.error;
  }
  const end = finishCliLines(state);
  events.push(...end.events);
  error ??= end.error;
  const message = createNativeMessageState();
  for (const e of events) stepNativeMessage(e, message);
  return { events, error, message: error ? undefined : finishNativeMessage(message).message };
}

describe('structured output from the CLI', () => {
  it("answers with the result line's structured_output as JSON text, stop reason end_turn", () => {
    const { message, error, events } = replay(recording('structured'));
    expect(error).toBeUndefined();
    expect(message!.content).toEqual([{ type: 'text', text: '{"city":"Paris","temp":21}' }]);
    expect(message!.stop_reason).toBe('end_turn');
    expect(message!.usage.output_tokens).toBeGreaterThan(0);
    // The CLI's own tool call is no tool call of the client's, and no input_json delta leaks.
    expect(JSON.stringify(events)).not.toMatch(/StructuredOutput|tool_use"|input_json_delta/);
  });

  it('opens the text block when the model starts the tool call, before the result: the answer has begun', () => {
    const lines = recording('structured');
    const toolStart = lines.findIndex((l) => l.includes('"content_block_start"') && l.includes('StructuredOutput'));
    const { events } = replay(lines.slice(0, toolStart + 1));
    expect(events.map((e) => e.type)).toEqual(['message_start', 'content_block_start']);
  });

  it('never shows the text the model wrote around its attempts, and fails when the CLI accepted none', () => {
    const { events, error } = replay(recording('structured-miss'));
    expect(error).toMatchObject({ kind: 'upstream', status: 502, retryable: true });
    expect((error as Error).message).toMatch(/JSON schema/);
    expect(JSON.stringify(events)).not.toContain('The tool said');
  });

  it('without a schema, the same CLI lines answer as before (the recording of a plain run is unchanged)', () => {
    const { message } = replay(recording('partial'), false);
    expect(message!.content[0]).toMatchObject({ type: 'text' });
  });

  it('an answer cut at max_tokens before the object is a final error that says to raise max_tokens', () => {
    const lines = recording('structured').map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      if (o.type !== 'result') return l;
      return JSON.stringify({ ...o, structured_output: undefined, stop_reason: 'max_tokens' });
    });
    const { error } = replay(lines);
    expect(error).toMatchObject({ status: 502, retryable: false });
    expect((error as Error).message).toMatch(/max_tokens/);
  });

  it("closes the structured block when the model calls a client's tool after starting the object: every block ends", () => {
    const state = createCliTranslateState({
      notLoggedInPattern: 'Not logged in',
      loginHint: '',
      structuredOutputTool: 'StructuredOutput',
      clientToolNames: new Map([['mcp__c__get_weather', 'get_weather']]),
    });
    const event = (e: object) => JSON.stringify({ type: 'stream_event', event: e });
    const lines = [
      event({ type: 'message_start', message: { id: 'm1', model: 'm', role: 'assistant', content: [] } }),
      event({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 's', name: 'StructuredOutput' },
      }),
      event({ type: 'content_block_stop', index: 0 }),
      event({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 't', name: 'mcp__c__get_weather' },
      }),
      event({ type: 'content_block_stop', index: 1 }),
      event({ type: 'message_delta', delta: { stop_reason: 'tool_use' } }),
      event({ type: 'message_stop' }),
    ];
    const events = lines.flatMap((l) => stepCliLine(parseCliLine(l), state).events);
    const starts = events.filter((e) => e.type === 'content_block_start').map((e) => e.index);
    const stops = events.filter((e) => e.type === 'content_block_stop').map((e) => e.index);
    expect(starts).toEqual([0, 1]);
    expect(stops.sort()).toEqual([0, 1]);
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'tool_use' } });
  });
});
