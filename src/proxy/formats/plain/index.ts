// THROWAWAY (docs/architecture.md "Adding a format"): a plain-text format, {model, prompt, stream} -> {text}.
import { z } from 'zod';
import type { WireFormat } from '../format.js';
import { validate } from '../validate.js';

const schema = z.object({ model: z.string().min(1), prompt: z.string(), stream: z.boolean().optional() });

export const plainFormat: WireFormat<undefined> = {
  name: 'plain',
  family: 'compat',
  parse(body, { api }) {
    const parsed = validate(schema, body);
    return {
      request: {
        model: parsed.model,
        max_tokens: api.defaultMaxTokens,
        messages: [{ role: 'user', content: parsed.prompt }],
      },
      stream: parsed.stream === true,
      ignored: [],
      warnings: [],
      clientNames: {},
      answer: undefined,
    };
  },
  answer: () => ({
    whole: (message) => ({ text: message.content.map((b) => (b.type === 'text' ? b.text : '')).join('') }),
    stream: () => {
      let failed = false;
      return {
        step: (event) =>
          event.type === 'content_block_delta' && event.delta.type === 'text_delta'
            ? [{ data: { text: event.delta.text } }]
            : [],
        failed: () => failed,
        finish: () => ({ events: [{ data: '[DONE]' }] }),
        fail: (err) => {
          failed = true;
          return [{ data: { error: err.message } }];
        },
        errorType: (err) => err.kind,
      };
    },
  }),
};
