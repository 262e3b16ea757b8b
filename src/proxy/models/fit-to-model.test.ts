import { describe, expect, it } from 'vitest';
import type { NativeRequest } from '../formats/native.js';
import { defaultProfile } from '../profile.js';
import { factsOf, fitToModel, nearestEffort, type ModelFacts } from './fit-to-model.js';

const profile = defaultProfile;
const info = (id: string) => profile.models.find((m) => m.id === id);
const facts = (id: string): ModelFacts => factsOf(profile, id, info(id));
const opus55 = facts('assistant-opus-5-5');
const opus47 = facts('assistant-opus-4-7');
const sonnet46 = facts('assistant-sonnet-4-6');
const haiku45 = facts('assistant-haiku-4-5-20251001');
const sonnet35 = facts('assistant-3-5-sonnet-20241022');

const compatNames = {
  thinking: 'reasoning_effort',
  max_tokens: 'max_completion_tokens',
  format: 'response_format',
  tool_choice: 'tool_choice',
};

function fit(request: Partial<NativeRequest>, on: ModelFacts, defaulted = false) {
  const req: NativeRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4096, ...request };
  const { request: fitted, ...named } = fitToModel(req, on, compatNames, {
    maxTokensDefaulted: defaulted,
    api: profile.api,
  });
  return { req: fitted, ...named };
}

describe('factsOf', () => {
  it('reads listed capabilities and the rules of the id; an unknown model gets the conservative ones', () => {
    expect(opus55).toMatchObject({ known: true, maxTokens: 128_000, rules: { sampling: 'none', thinkingOff: false } });
    expect(sonnet46.rules).toEqual({ sampling: 'one', thinkingOff: true, forcedToolUse: true });
    expect(facts('assistant-sonnet-4-20250514').rules.sampling).toBe('all');
    expect(factsOf(profile, 'assistant-new-9')).toMatchObject({
      known: false,
      capabilities: { thinking: ['adaptive'], efforts: ['low', 'medium', 'high'] },
      rules: { sampling: 'none' },
    });
  });

  it('takes an adaptive-only listed model to refuse sampling whatever its id', () => {
    const listed = { id: 'assistant-fable-9', created: 1, capabilities: opus55.capabilities };
    expect(factsOf(profile, listed.id, listed).rules.sampling).toBe('none');
  });
});

describe('nearestEffort', () => {
  it('keeps a supported level, else the nearest, the lower on a tie', () => {
    expect(nearestEffort('high', ['low', 'medium', 'high'])).toBe('high');
    expect(nearestEffort('xhigh', ['low', 'medium', 'high', 'max'])).toBe('high');
    expect(nearestEffort('max', ['low', 'medium', 'high'])).toBe('high');
  });
});

describe('fitToModel', () => {
  it('leaves the request it is given as it was: the fitted one is a new object', () => {
    const format = { type: 'json_schema' as const, schema: { type: 'object' } };
    const tool = { name: 't', input_schema: { type: 'object' as const }, strict: true };
    const given: NativeRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be brief.' }],
      temperature: 0.2,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'xhigh', format },
      tools: [tool],
    };
    const before = structuredClone(given);
    const { request, ignored } = fitToModel(given, sonnet35, compatNames, {
      maxTokensDefaulted: true,
      api: profile.api,
    });
    expect(given).toEqual(before);
    expect(request).not.toBe(given);
    expect(request.tools?.[0]).not.toHaveProperty('strict');
    expect(ignored).toContain('strict');
  });

  it('drops every sampling setting on an adaptive-only model, by the client names', () => {
    const { req, ignored } = fit({ temperature: 0.2, top_p: 0.9, top_k: 5 }, opus55);
    expect(req).not.toHaveProperty('temperature');
    expect(req).not.toHaveProperty('top_p');
    expect(req).not.toHaveProperty('top_k');
    expect(ignored).toEqual(['temperature', 'top_p', 'top_k']);
  });

  it('keeps temperature and drops top_p where only one is taken; both pass on a 2025 model', () => {
    expect(fit({ temperature: 0.2, top_p: 0.9 }, sonnet46)).toMatchObject({
      req: { temperature: 0.2 },
      ignored: ['top_p'],
    });
    expect(fit({ top_p: 0.9 }, sonnet46)).toMatchObject({ req: { top_p: 0.9 }, ignored: [] });
    const old = fit({ temperature: 0.2, top_p: 0.9 }, facts('assistant-sonnet-4-20250514'));
    expect(old.req).toMatchObject({ temperature: 0.2, top_p: 0.9 });
  });

  it('gives adaptive thinking its effort at the nearest level, named when changed', () => {
    const same = fit({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }, opus55);
    expect(same.req).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
    expect(same.ignored).toEqual([]);
    const changed = fit({ thinking: { type: 'adaptive' }, output_config: { effort: 'xhigh' } }, sonnet46);
    expect(changed.req.output_config).toEqual({ effort: 'high' });
    expect(changed.ignored).toEqual(['reasoning_effort']);
    expect(changed.warnings[0]).toMatch(/xhigh became high/);
  });

  it('turns an effort into a budget below max_tokens on a budget-only model', () => {
    const { req, ignored } = fit({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, haiku45);
    expect(req.thinking).toEqual({ type: 'enabled', budget_tokens: 4095 });
    expect(req).not.toHaveProperty('output_config');
    expect(ignored).toEqual([]);
    const roomy = fit(
      { max_tokens: 20_000, thinking: { type: 'adaptive' }, output_config: { effort: 'low' } },
      haiku45,
    );
    expect(roomy.req.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  it('asks without thinking, named, on a model that does not think', () => {
    const { req, ignored } = fit({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, sonnet35);
    expect(req).not.toHaveProperty('thinking');
    expect(req).not.toHaveProperty('output_config');
    expect(ignored).toEqual(['reasoning_effort']);
  });

  it('turns "no thinking" into the lowest effort on a model that always thinks, and keeps it elsewhere', () => {
    const always = fit({ thinking: { type: 'disabled' } }, opus55);
    expect(always.req).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
    expect(always.ignored).toEqual(['reasoning_effort']);
    expect(fit({ thinking: { type: 'disabled' } }, opus47).req.thinking).toEqual({ type: 'disabled' });
    expect(fit({ thinking: { type: 'disabled' } }, sonnet35).req).not.toHaveProperty('thinking');
  });

  it('turns a budget into adaptive thinking on an adaptive-only model', () => {
    const { req, ignored } = fit({ max_tokens: 20_000, thinking: { type: 'enabled', budget_tokens: 16_384 } }, opus47);
    expect(req).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    expect(ignored).toEqual(['reasoning_effort']);
  });

  it('drops sampling settings beside thinking', () => {
    const { req, ignored } = fit(
      { temperature: 0.5, thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } },
      sonnet46,
    );
    expect(req).not.toHaveProperty('temperature');
    expect(ignored).toEqual(['temperature']);
  });

  it("lowers max_tokens to the model's maximum, named, and defaults it by whether the answer thinks", () => {
    const big = fit({ max_tokens: 200_000 }, sonnet46);
    expect(big.req.max_tokens).toBe(64_000);
    expect(big.ignored).toEqual(['max_completion_tokens']);
    expect(fit({}, sonnet46, true).req.max_tokens).toBe(4096);
    expect(fit({}, opus55, true).req.max_tokens).toBe(32_000);
    expect(fit({ thinking: { type: 'adaptive' } }, sonnet46, true).req.max_tokens).toBe(32_000);
    expect(fit({}, sonnet35, true).req.max_tokens).toBe(4096);
    expect(fit({ max_tokens: 500_000 }, factsOf(profile, 'x')).req.max_tokens).toBe(500_000);
  });

  it('keeps output_config.format and strict tools where the model has structured outputs', () => {
    const format = { type: 'json_schema' as const, schema: { type: 'object' } };
    const tool = { name: 't', input_schema: { type: 'object' }, strict: true };
    const { req, ignored } = fit({ output_config: { format }, tools: [tool] }, opus55);
    expect(req.output_config).toEqual({ format });
    expect(req.tools?.[0].strict).toBe(true);
    expect(ignored).toEqual([]);
  });

  it('asks for JSON in the system prompt, named, where the model has no structured outputs', () => {
    const format = { type: 'json_schema' as const, schema: { type: 'object', properties: { a: { type: 'string' } } } };
    const tool = { name: 't', input_schema: { type: 'object' }, strict: true };
    const { req, ignored } = fit({ system: 'Be brief.', output_config: { format }, tools: [tool] }, sonnet35);
    expect(req).not.toHaveProperty('output_config');
    expect(req.system).toBe(
      'Be brief.\n\nRespond only with a single valid JSON value that conforms to the JSON schema below.\n' +
        'Do not add any text before or after it.\n{"type":"object","properties":{"a":{"type":"string"}}}',
    );
    expect(req.tools?.[0]).not.toHaveProperty('strict');
    expect(ignored).toEqual(['response_format', 'strict']);
  });

  it('refuses with a 400 what no change can fix: forced tool use on the newest, beside thinking, images', () => {
    const tools = [{ name: 't', input_schema: { type: 'object' } }];
    expect(() => fit({ tools, tool_choice: { type: 'any' } }, opus55)).toThrow(
      /tool_choice forces tool use, which assistant-opus-5-5 refuses/,
    );
    expect(() =>
      fit(
        {
          tools,
          tool_choice: { type: 'tool', name: 't' },
          thinking: { type: 'adaptive' },
          output_config: { effort: 'low' },
        },
        sonnet46,
      ),
    ).toThrow(/beside thinking|while the model thinks/);
    expect(fit({ tools, tool_choice: { type: 'any' } }, sonnet46).req.tool_choice).toEqual({ type: 'any' });
    const image = { type: 'image' as const, source: { type: 'url' as const, url: 'https://x/y.png' } };
    const noImages = { ...sonnet35, capabilities: { ...sonnet35.capabilities, imageInput: false } };
    expect(() => fit({ messages: [{ role: 'user', content: [image] }] }, noImages)).toThrow(/takes no image input/);
  });
});
