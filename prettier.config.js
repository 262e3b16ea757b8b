// Prettier, at the house style: 120 columns, single quotes, semicolons, trailing commas, parentheses around every
// arrow parameter. `npm run format` writes, `npm run format:check` only reports.
export default {
  printWidth: 120,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: true,
  quoteProps: 'as-needed',
  trailingComma: 'all',
  bracketSpacing: true,
  arrowParens: 'always',
  endOfLine: 'lf',
};
