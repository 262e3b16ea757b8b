// The provider's own 400 for a model rule (docs/models.md "The native route is the client's own request"), explained as
// its billing refusals are (usage/billing-lane.ts): what the model refused, why, and what to do, before the provider's
// words. It reaches a client whose request the proxy passes on as it is (direct mode's /api/v1/messages), or a
// model whose rules the catalog does not know yet. Pure.

/** The rules the provider names in its 400s, by words of its message (matched case-insensitively). */
const rules: ReadonlyArray<{ words: RegExp; explanation: string }> = [
  {
    words: /thinking\.type\.enabled is not supported|budget_tokens.*not supported/i,
    explanation:
      'The model takes only adaptive thinking: send thinking {"type": "adaptive"} with output_config.effort instead of a thinking budget, or a reasoning effort through /api/v1/chat/completions, which the proxy fits to the model.',
  },
  {
    words: /thinking\.type\.disabled is not supported|thinking cannot be disabled/i,
    explanation: 'The model always thinks: leave thinking out and lower output_config.effort instead.',
  },
  {
    words:
      /`?(temperature|top_p|top_k)`? is deprecated for this model|(temperature|top_p|top_k).*not supported for this model/i,
    explanation: 'The model takes no sampling settings: leave out temperature, top_p and top_k.',
  },
  {
    words: /temperature`? and `?top_p`? cannot both be specified/i,
    explanation: 'The model takes temperature or top_p, not both: send only one.',
  },
  {
    words: /output_config\.effort|effort parameter/i,
    explanation:
      'The model does not take this effort level: the levels it takes are in its model entry (GET /api/v1/models).',
  },
  {
    words: /maximum allowed number of output tokens/i,
    explanation: "max_tokens is above the model's maximum, which its model entry names (GET /api/v1/models).",
  },
  {
    words: /forced tool use|tool_choice.*not supported/i,
    explanation:
      'The model refuses forced tool use: send tool_choice "auto", and ask for JSON through output_config.format.',
  },
  {
    words: /structured outputs? (are|is) not supported|strict tool use is not supported/i,
    explanation: 'The model has no structured outputs: leave out output_config.format and strict.',
  },
];

/** The explanation of a provider message that names a model rule, or undefined for any other message. */
export function modelRuleExplanation(message: string): string | undefined {
  return rules.find((r) => r.words.test(message))?.explanation;
}

/** The message a client reads: what the model refused and what to do, then the provider's words. */
export function explainModelRule(providerText: string): string | undefined {
  const explanation = modelRuleExplanation(providerText);
  return explanation
    ? `The model refused a setting it does not take (docs/models.md). ${explanation} The provider said: ${providerText}`
    : undefined;
}
