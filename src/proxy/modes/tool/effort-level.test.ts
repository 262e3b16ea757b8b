import { describe, expect, it } from 'vitest';
import type { NativeRequest } from '../../formats/native.js';
import { factsOf, nearestEffort } from '../../models/fit-to-model.js';
import { defaultProfile as profile } from '../../profile.js';
import { fitEffortLevel } from './effort-level.js';

const sonnet46 = factsOf(
  profile,
  'assistant-sonnet-4-6',
  profile.models.find((m) => m.id === 'assistant-sonnet-4-6'),
);
const compatNames = { thinking: 'reasoning_effort' };

describe('fitEffortLevel (tool mode: the CLI passes --effort on as it is)', () => {
  const withEffort = (effort: 'low' | 'xhigh' | 'max'): NativeRequest => ({
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 4096,
    thinking: { type: 'adaptive' },
    output_config: { effort },
  });

  it('lowers a level the model lacks to its nearest, named; leaves one it takes alone', () => {
    const lacking = withEffort('xhigh');
    const result = fitEffortLevel(lacking, sonnet46, compatNames);
    expect(lacking.output_config?.effort).toBe(nearestEffort('xhigh', sonnet46.capabilities.efforts));
    expect(lacking.output_config?.effort).not.toBe('xhigh');
    expect(result.ignored).toEqual(['reasoning_effort']);
    expect(result.warnings).toEqual([
      `reasoning_effort: xhigh became ${lacking.output_config?.effort}, the nearest level assistant-sonnet-4-6 takes (${sonnet46.capabilities.efforts.join(', ')})`,
    ]);
    const taken = withEffort('low');
    expect(fitEffortLevel(taken, sonnet46, compatNames).ignored).toEqual([]);
    expect(taken.output_config?.effort).toBe('low');
  });

  it('leaves a model the catalog does not know to the CLI', () => {
    const unknown = withEffort('max');
    expect(fitEffortLevel(unknown, factsOf(profile, 'assistant-new-9'), compatNames).ignored).toEqual([]);
    expect(unknown.output_config?.effort).toBe('max');
  });
});
