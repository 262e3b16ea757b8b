// The simulator's agent tool loop (agent-tool-loop.ts) on literal requests shaped like the coding agents' own
// (their read tools' names and schemas as they send them), with literal expected plans.

import { describe, expect, it } from 'vitest';
import { bareToolName, findReadTool, planAgentToolLoop, readInput } from './agent-tool-loop.js';
import { defaultKnobs, type SimulatorKnobs } from './types.js';

const str = { type: 'string' };
const opencodeRead = {
  name: 'read',
  input_schema: {
    type: 'object',
    properties: { filePath: str, offset: { type: 'number' }, limit: { type: 'number' } },
    required: ['filePath'],
  },
};
const qwenRead = {
  name: 'read_file',
  input_schema: {
    type: 'object',
    properties: { absolute_path: str, offset: { type: 'number' } },
    required: ['absolute_path'],
  },
};
const clineRead = {
  name: 'read_files',
  input_schema: {
    type: 'object',
    properties: {
      files: {
        type: 'array',
        items: { type: 'object', properties: { path: str, start_line: {} }, required: ['path'] },
      },
    },
    required: ['files'],
  },
};
const cnRead = {
  name: 'Read',
  input_schema: { type: 'object', properties: { filepath: str }, required: ['filepath'] },
};
const listDir = {
  name: 'list_directory',
  input_schema: { type: 'object', properties: { path: str }, required: ['path'] },
};
const bash = { name: 'bash', input_schema: { type: 'object', properties: { command: str }, required: ['command'] } };

const knobs = (over: Partial<SimulatorKnobs> = {}): SimulatorKnobs => ({
  ...defaultKnobs(),
  agentToolLoop: { path: '/work/notes.txt' },
  ...over,
});
const ids = () => {
  let n = 0;
  return () => `toolu_${++n}`;
};

describe('finding the read tool and its arguments', () => {
  it('picks each agent’s read tool by name and fills its path parameter by schema', () => {
    expect(findReadTool([bash, listDir, opencodeRead])?.name).toBe('read');
    expect(readInput(opencodeRead, '/w/n.txt')).toEqual({ filePath: '/w/n.txt' });
    expect(readInput(qwenRead, '/w/n.txt')).toEqual({ absolute_path: '/w/n.txt' });
    expect(readInput(cnRead, '/w/n.txt')).toEqual({ filepath: '/w/n.txt' });
    expect(findReadTool([bash, clineRead])?.name).toBe('read_files');
    expect(readInput(clineRead, '/w/n.txt')).toEqual({ files: [{ path: '/w/n.txt' }] });
  });

  it('does not take a directory listing or a tool without a path for a read', () => {
    expect(findReadTool([bash, listDir])).toBeUndefined();
    expect(
      findReadTool([{ name: 'read', input_schema: { type: 'object', properties: { query: { type: 'number' } } } }]),
    ).toBeUndefined();
  });

  it('sees through the CLI’s MCP prefix, as tool mode offers the agent’s tools', () => {
    expect(bareToolName('mcp__client_tools__read_file')).toBe('read_file');
    expect(bareToolName('read')).toBe('read');
    expect(findReadTool([{ ...qwenRead, name: 'mcp__client__read_file' }])?.name).toBe('mcp__client__read_file');
  });
});

describe('planAgentToolLoop', () => {
  it('does nothing when the knob is off or the request has no tools (an agent’s title request)', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [opencodeRead] };
    expect(planAgentToolLoop(body, defaultKnobs(), ids())).toBeUndefined();
    expect(
      planAgentToolLoop({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, knobs(), ids()),
    ).toBeUndefined();
  });

  it('calls the read tool first, then answers with what it returned', () => {
    const first = planAgentToolLoop(
      { model: 'm', messages: [{ role: 'user', content: 'What does notes.txt say?' }], tools: [bash, opencodeRead] },
      knobs(),
      ids(),
    )!;
    expect(first.stopReason).toBe('tool_use');
    expect(first.blocks).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'read',
        input: { filePath: '/work/notes.txt' },
        pieces: expect.any(Array),
      },
    ]);
    expect((first.blocks[0] as { pieces: string[] }).pieces.join('')).toBe('{"filePath":"/work/notes.txt"}');

    const second = planAgentToolLoop(
      {
        model: 'm',
        tools: [bash, opencodeRead],
        messages: [
          { role: 'user', content: 'What does notes.txt say?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { filePath: '/work/notes.txt' } }],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'code MARKER-1' }] },
            ],
          },
        ],
      },
      knobs(),
      ids(),
    )!;
    expect(second.stopReason).toBe('end_turn');
    expect(second.blocks.map((b) => b.pieces.join(''))).toEqual(['The file says: code MARKER-1']);
    expect(second.outputTokens).toBe(second.blocks[0].pieces.length);
  });

  it('ends through the completion tool once when the agent has one, then with text', () => {
    const done = {
      name: 'attempt_completion',
      input_schema: { type: 'object', properties: { result: str }, required: ['result'] },
    };
    const history = [
      { role: 'user', content: 'What does notes.txt say?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'MARKER-2' }] },
    ];
    const completing = planAgentToolLoop(
      { model: 'm', tools: [qwenRead, done], messages: history },
      knobs({ agentToolLoop: { path: '/p', answerPrefix: 'Read:' } }),
      ids(),
    )!;
    expect(completing.blocks).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'attempt_completion',
        input: { result: 'Read: MARKER-2' },
        pieces: expect.any(Array),
      },
    ]);
    const after = [
      ...history,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'attempt_completion', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: '' }] },
    ];
    const final = planAgentToolLoop(
      { model: 'm', tools: [qwenRead, done], messages: after },
      knobs({ agentToolLoop: { path: '/p', answerPrefix: 'Read:' } }),
      ids(),
    )!;
    expect(final.blocks.map((b) => b.pieces.join(''))).toEqual(['Read: MARKER-2']);
  });

  it('says so in text when the request has tools but none reads a file or runs a command', () => {
    const search = {
      name: 'web_search',
      input_schema: { type: 'object', properties: { query: str }, required: ['query'] },
    };
    const plan = planAgentToolLoop(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [search] },
      knobs(),
      ids(),
    )!;
    expect(plan.stopReason).toBe('end_turn');
    expect(plan.blocks.map((b) => b.pieces.join(''))).toEqual(['No read-file tool among: web_search']);
  });
});
