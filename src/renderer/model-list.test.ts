import { describe, expect, it } from 'vitest';
import { contextText, modelListItems } from './model-list.js';

describe('the Connect tab model list', () => {
  it('lists the current ids first in the catalog order, then the deprecated ones marked with their replacement', () => {
    const items = modelListItems({
      models: [
        'assistant-sonnet-4-6',
        'assistant-sonnet-4-20250514',
        'assistant-haiku-4-5-20251001',
        'assistant-opus-4-20250514',
        'rm-4',
      ],
      modelDetails: [
        { id: 'assistant-sonnet-4-6', contextLength: 1_000_000 },
        {
          id: 'assistant-sonnet-4-20250514',
          contextLength: 200_000,
          deprecated: { replacement: 'assistant-sonnet-4-6', endOfLife: '2026-06-15' },
        },
        { id: 'assistant-haiku-4-5-20251001' },
        { id: 'assistant-opus-4-20250514', deprecated: { replacement: 'assistant-opus-4-6' } },
      ],
    });
    expect(items).toEqual([
      { id: 'assistant-sonnet-4-6', note: '1M context' },
      { id: 'assistant-haiku-4-5-20251001' },
      { id: 'rm-4' },
      {
        id: 'assistant-sonnet-4-20250514',
        note: '200K context',
        deprecated: { said: 'deprecated (end of life 2026-06-15) → use ', use: 'assistant-sonnet-4-6' },
      },
      { id: 'assistant-opus-4-20250514', deprecated: { said: 'deprecated → use ', use: 'assistant-opus-4-6' } },
    ]);
  });

  it('says what each model takes: its output limit, thinking and effort range, structured output', () => {
    const items = modelListItems({
      models: ['assistant-opus-5-5', 'assistant-sonnet-4-6', 'assistant-3-5-haiku'],
      modelDetails: [
        {
          id: 'assistant-opus-5-5',
          contextLength: 1_000_000,
          maxTokens: 128_000,
          capabilities: {
            thinking: ['adaptive'],
            efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
            structuredOutputs: true,
          },
        },
        {
          id: 'assistant-sonnet-4-6',
          maxTokens: 64_000,
          capabilities: { thinking: ['adaptive', 'enabled'], efforts: ['low', 'max'], structuredOutputs: true },
        },
        { id: 'assistant-3-5-haiku', capabilities: { thinking: [], efforts: [], structuredOutputs: false } },
      ],
    });
    expect(items.map((i) => i.note)).toEqual([
      '1M context · 128K out · adaptive thinking (low–max) · JSON schema',
      '64K out · adaptive or budget thinking (low–max) · JSON schema',
      'no thinking',
    ]);
  });

  it('without details (an older main process) lists the ids as they are', () => {
    expect(modelListItems({ models: ['a', 'b'] })).toEqual([{ id: 'a' }, { id: 'b' }]);
  });

  it('says context lengths in K and M', () => {
    expect([contextText(200_000), contextText(1_000_000), contextText(1_500_000)]).toEqual(['200K', '1M', '1.5M']);
  });
});
