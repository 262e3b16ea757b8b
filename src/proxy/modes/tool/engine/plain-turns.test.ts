import { describe, expect, it } from 'vitest';
import { FakeCapabilities } from '../../../../../test/helpers/fake-capabilities.js';
import { ScriptedProcess } from '../../../../../test/helpers/scripted-process.js';
import type { NativeMessageParam, NativeRequest } from '../../../formats/native.js';
import { createProfile } from '../../../profile.js';
import { historyAfterTurn } from './conversation-history.js';
import { nativeRequestToCliInput } from '../translate/native-request-to-cli-input.js';
import { plainTurns } from './plain-turns.js';
import { planRequest } from './request-plan.js';
import { keyOf } from './spec.js';

const profile = createProfile({});
const one: NativeMessageParam[] = [{ role: 'user', content: 'one' }];
const two: NativeMessageParam[] = [...one, { role: 'assistant', content: 'ans' }, { role: 'user', content: 'two' }];
const signal = new AbortController().signal;

function setup(messages: NativeMessageParam[]) {
  const req: NativeRequest = { model: 'assistant-sonnet-4-20250514', max_tokens: 10, messages };
  const plan = planRequest(req, (r) => nativeRequestToCliInput(r, { profile, userSetup: false }), keyOf);
  const can = new FakeCapabilities();
  return { req, plan, can };
}

describe('plainTurns', () => {
  it('writes only the newest user turn to the live process that continues the conversation', async () => {
    const { plan, can } = setup(two);
    const live = new ScriptedProcess([]);
    can.live = live;
    const source = plainTurns(can, plan, undefined);
    expect(await source.take()).toEqual({ proc: live, how: 'continued' });
    expect(live.written).toEqual([plan.turn]);
    expect(JSON.parse(plan.turn!)).toMatchObject({ type: 'user', message: { role: 'user' } });
    expect(can.keys).toEqual([plan.key]);
  });

  it('gives a warm process the whole conversation, and a transcript-resuming one never a warm process', async () => {
    const first = setup(one);
    const warm = new ScriptedProcess([]);
    first.can.warmOne = warm;
    expect(await plainTurns(first.can, first.plan, undefined).take()).toEqual({ proc: warm, how: 'warm' });
    expect(warm.written).toEqual([first.plan.full().stdin]);

    // Two turns without a live process: the earlier ones go in a transcript, which a warm process has not read.
    const later = setup(two);
    later.can.warmOne = new ScriptedProcess([]);
    expect(later.plan.full().transcript).toBeDefined();
    expect(await plainTurns(later.can, later.plan, undefined).take()).toBeUndefined();
    expect(later.can.warmOne).toBeDefined();
  });

  it('starts a fresh process with the plan’s spec and key, written the whole conversation', async () => {
    const { plan, can } = setup(one);
    const proc = await plainTurns(can, plan, undefined).fresh(signal);
    expect(can.started).toHaveLength(1);
    expect(can.started[0]).toMatchObject({ key: plan.key, spec: { args: plan.spec.args } });
    expect((proc as unknown as ScriptedProcess).written).toEqual([plan.full().stdin]);
  });

  it('keeps a process that answered a user turn, with the history it has seen; never a prefill, nor at shutdown', async () => {
    const { plan, can } = setup(one);
    const proc = new ScriptedProcess([]).asConversation();
    const answer = { text: 'ans', toolUses: [] };
    expect(plainTurns(can, plan, undefined).finished(proc, answer)).toBe(true);
    expect(can.kept[0].history).toEqual(historyAfterTurn(one, answer));

    const prefill = setup([...one, { role: 'assistant', content: 'The answer is' }]);
    expect(plainTurns(prefill.can, prefill.plan, undefined).finished(proc, answer)).toBe(false);
    expect(prefill.can.kept).toEqual([]);

    const closing = setup(one);
    closing.can.closing = true;
    expect(plainTurns(closing.can, closing.plan, undefined).finished(proc, answer)).toBe(false);
  });
});
