import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.cache/', 'dist/', 'out/', 'release/', 'node_modules/', 'test-artifacts/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read JSON answers of many shapes; typing each one would add noise, not safety.
    files: ['test/**/*.ts', '**/*.test.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // docs/architecture.md "Layers, and the one rule between them": the window is a web page that knows only
    // ControlApi: no Node modules, no electron. Its unit tests beside it run in Node and may check the page's code
    // against the proxy's (the settings schema).
    files: ['src/renderer/**/*.ts'],
    ignores: ['src/renderer/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['node:*', 'electron', 'electron/*', '**/main/**', '**/proxy/*', '!**/proxy/control-api*'] },
      ],
    },
  },
  {
    // src/shared holds pure facts both the window and the proxy import (the mode list, src/shared/modes.ts; the
    // address facts, src/shared/endpoints.ts): it imports nothing, so it runs in Node and in the page alike.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['node:*', 'electron', 'electron/*', '**/main/**', '**/proxy/**', '**/renderer/**'] },
      ],
    },
  },
  {
    // docs/architecture.md "Layers, and the one rule between them": src/proxy is plain Node; it never imports electron,
    // src/main or src/renderer.
    files: ['src/proxy/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['electron', 'electron/*', '**/main/**', '**/renderer/**'] }],
    },
  },
);
