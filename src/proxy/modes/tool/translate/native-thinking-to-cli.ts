// A native request's thinking and output settings -> what the assistant CLI takes (docs/tool-mode.md "Thinking",
// "Structured output"): the thinking budget in its environment, the effort and the JSON schema as flags. Pure; tested
// beside it. What the real CLI (2.1.330) does with each was recorded against the provider simulator
// (test/fixtures/cli-recordings/README.md "Effort and JSON schemas"):
// - on today's adaptive-only models it always sends adaptive thinking: a budget in its environment (0 included) is
//   not passed on and only `--effort` sets output_config.effort (without it, the CLI's own default level);
// - on budget-only models it sends the budget of its environment and no effort, so `--effort` there changes
//   nothing while a budget is set (without one it would think with a budget of max_tokens - 1);
// - so a budget goes as both: the budget, and the effort level whose profile budget it reaches
//   (profile.api.thinkingBudgets, the table reasoning_effort becomes a budget by), and a client's `low` arrives as
//   `low` on either kind of model.
// - a JSON schema offers the model a tool of that schema; the CLI validates its call and prints the object in the
//   result line (cli-events-to-native-events.ts makes it the answer's text). It goes on stdin, in the control request
//   the CLI's SDK sends first (profile.cli.schemaRequest), not as `--json-schema`: a command line is readable by every
//   local user, and a schema holds the client's own words. The real CLI 2.1.330 does the same with it either way
//   (offers the tool, validates, asks again on a miss), recorded against the simulator (docs/tool-mode.md
//   "Structured output").

import type { NativeRequest } from '../../../formats/native.js';
import type { Profile } from '../../../profile.js';
import type { NativeEffort } from '../../../profile-models.js';

type ThinkingFields = Pick<NativeRequest, 'thinking' | 'max_tokens' | 'output_config'>;

/**
 * The thinking budget the CLI is given: 0 (off) unless the client asked; a requested budget cut to max_tokens - 1,
 * because the provider refuses a budget not below max_tokens; adaptive thinking as max_tokens - 1 (what the CLI
 * itself gives a budget-only model, and any budget keeps an adaptive model adaptive); 0 when that leaves less than
 * the provider's smallest budget, which the CLI would otherwise raise to that smallest budget and so past max_tokens.
 */
export function thinkingBudget(req: ThinkingFields, minBudget: number): number {
  const asked =
    req.thinking?.type === 'enabled'
      ? req.thinking.budget_tokens
      : req.thinking?.type === 'adaptive'
        ? req.max_tokens
        : 0;
  const budget = Math.min(asked, req.max_tokens - 1);
  return budget < minBudget ? 0 : budget;
}

const budgetLevels = ['low', 'medium', 'high', 'xhigh'] as const;

/**
 * The effort the CLI is given: output_config.effort as asked; for a budget, the highest level whose profile budget
 * it reaches (low below them all); none for adaptive thinking without an effort, or no thinking.
 */
export function cliEffort(req: ThinkingFields, budgets: Profile['api']['thinkingBudgets']): NativeEffort | undefined {
  if (req.output_config?.effort) return req.output_config.effort;
  if (req.thinking?.type !== 'enabled') return undefined;
  const budget = req.thinking.budget_tokens;
  return budgetLevels.reduce<NativeEffort>((level, l) => (budget >= budgets[l] ? l : level), 'low');
}

/** The flag of the effort (none when the request asks for none). */
export function thinkingFlags(req: ThinkingFields, profile: Profile): string[] {
  const effort = cliEffort(req, profile.api.thinkingBudgets);
  return effort ? [profile.cli.effortFlag, effort] : [];
}

/** The stdin line that gives the CLI the request's JSON schema before its first turn; undefined without one. */
export function schemaLine(req: ThinkingFields, profile: Profile): string | undefined {
  const format = req.output_config?.format;
  if (!format) return undefined;
  const { type, subtype, schemaField } = profile.cli.schemaRequest;
  const request = { subtype, [schemaField]: format.schema };
  return `${JSON.stringify({ type, request_id: 'schema', request })}\n`;
}
