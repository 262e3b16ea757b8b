import { describe, expect, it } from 'vitest';
import { FakeCapabilities } from '../../../../../test/helpers/fake-capabilities.js';
import { ScriptedProcess } from '../../../../../test/helpers/scripted-process.js';
import type { NativeMessageParam, NativeRequest, NativeTool } from '../../../formats/native.js';
import { createLogger } from '../../../logger.js';
import { createProfile } from '../../../profile.js';
import { historyAfterTurn } from './conversation-history.js';
import { nativeRequestToCliInput } from '../translate/native-request-to-cli-input.js';
import { planClientTools, type McpCallResult } from '../translate/native-tools-to-mcp.js';
import type { ClientToolServer } from './client-tool-server.js';
import { next } from './process-state.js';
import { planRequest } from './request-plan.js';
import { ToolSession, type ToolSessionHost } from './tool-session.js';
import { toolTurns } from './tool-turns.js';

const profile = createProfile({});
const weather: NativeTool = { name: 'get_weather', description: 'weather', input_schema: { type: 'object' } };
const ask: NativeMessageParam[] = [{ role: 'user', content: 'weather?' }];
const call = { type: 'tool_use' as const, id: 't1', name: 'get_weather', input: { city: 'Paris' } };
const withResult = (content: unknown): NativeMessageParam[] => [
  ...ask,
  { role: 'assistant', content: [call] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content } as never] },
];
// Never reached: these tests start no MCP server.
const sessions = {} as ToolSessionHost;

function setup(messages: NativeMessageParam[], tools = [weather], resultsReturn = true) {
  const req: NativeRequest = { model: 'assistant-sonnet-4-20250514', max_tokens: 10, messages, tools };
  const plan = planClientTools(req, profile.cli.clientTools)!;
  const can = new FakeCapabilities();
  const make = (r: NativeRequest) => nativeRequestToCliInput(r, { profile, userSetup: false });
  const source = () =>
    toolTurns(
      can,
      sessions,
      { req, log: createLogger('silent') },
      (keyOf, continuable) => planRequest(req, make, keyOf, continuable),
      plan,
      resultsReturn,
      undefined,
    );
  return { req, plan, can, source };
}

/** A process parked at the call t1, its MCP server recording the answers it is given. */
function parked(plan: ReturnType<typeof setup>['plan']) {
  const answers: Array<[string, McpCallResult]> = [];
  const server = { answer: (id: string, r: McpCallResult) => void answers.push([id, r]) };
  const proc = new ScriptedProcess([]);
  proc.begin(0);
  proc.tools = new ToolSession(server as unknown as ClientToolServer, plan);
  proc.tools.waitingFor = ['t1'];
  proc.state = next(proc.state, 'pause');
  return { proc, answers };
}

describe('toolTurns', () => {
  it('hands the results to the process waiting for them only once the turn takes it', async () => {
    const { plan, can, source } = setup(withResult('sunny'));
    const { proc, answers } = parked(plan);
    can.waitingOne = proc;
    const s = source();
    expect(answers).toEqual([]);
    expect(await s.take()).toEqual({ proc, how: 'resumed' });
    expect(can.resumed).toEqual([proc]);
    expect(answers).toEqual([['t1', { content: [{ type: 'text', text: 'sunny' }] }]]);
  });

  it("refuses a result the CLI cannot take with the client's 400 before anything is handed over", () => {
    const { plan, can, source } = setup(
      withResult([{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }]),
    );
    const { proc, answers } = parked(plan);
    can.waitingOne = proc;
    expect(source).toThrow(/image in a tool result must be base64/);
    expect(can.resumed).toEqual([]);
    expect(answers).toEqual([]);
  });

  it('parks a process paused at tool calls with the ids it waits for, kept on its own tool session', () => {
    const { plan, can, source } = setup(ask);
    const { proc } = parked(plan);
    proc.tools!.waitingFor = [];
    const answer = { text: '', toolUses: [{ id: 't1', name: 'get_weather', input: {} }] };
    expect(source().paused(proc.asConversation(), ['t1'], answer, undefined)).toBe(true);
    expect(proc.tools!.waitingFor).toEqual(['t1']);
    expect(can.parked[0].history).toEqual(historyAfterTurn(ask, answer));
  });

  it('ends instead of parking when the client cannot send results back', () => {
    const { plan, can, source } = setup(ask, [weather], false);
    const { proc } = parked(plan);
    expect(source().paused(proc.asConversation(), ['t1'], { text: '', toolUses: [] }, undefined)).toBe(false);
    expect(can.parked).toEqual([]);
  });

  it('keys a conversation by the tools it offers: another tool list never reaches the same process', async () => {
    const a = setup(ask);
    await a.source().take();
    const b = setup(ask, [{ ...weather, description: 'the weather today' }]);
    await b.source().take();
    expect(a.can.keys).toHaveLength(1);
    expect(b.can.keys).toHaveLength(1);
    expect(a.can.keys[0]).not.toBe(b.can.keys[0]);
  });
});
