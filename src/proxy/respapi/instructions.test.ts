// The instruction prompt of response-API mode: ours first, then the client's parts.

import { describe, expect, it } from 'vitest';
import { combineInstructions, defaultInstructionsPath } from './instructions.js';

describe('instructions', () => {
  it('puts ours first, then each client part, separated by a blank line, skipping empty parts', () => {
    expect(combineInstructions('Ours.', 'Client.', undefined, '  ', 'System.')).toBe('Ours.\n\nClient.\n\nSystem.');
    expect(combineInstructions('', 'Only client.')).toBe('Only client.');
  });

  it('finds the bundled prompt from the package root', () => {
    expect(defaultInstructionsPath()).toMatch(/assets[/\\]respapi-instructions\.md$/);
  });
});
