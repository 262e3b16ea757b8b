// A value that matches a JSON schema: what the simulated model answers when a request carries
// output_config.format (the provider's structured outputs, constrained decoding), so a client's parser (zod in
// openai's .parse(), the AI SDK's Output.object, LangChain's withStructuredOutput) meets a valid answer.
// Covers the schema words those clients generate: type, properties, required, items, enum, const, anyOf, $ref
// into $defs/definitions, nullable unions.

type Schema = Record<string, unknown>;

function resolveRef(ref: string, root: Schema): Schema {
  const path = ref.replace(/^#\//, '').split('/');
  let at: unknown = root;
  for (const part of path) at = (at as Record<string, unknown> | undefined)?.[part];
  return (at as Schema) ?? {};
}

function sample(schema: Schema, root: Schema, depth: number): unknown {
  if (depth > 8) return null;
  if (typeof schema.$ref === 'string') return sample(resolveRef(schema.$ref, root), root, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(union) && union.length > 0) {
    const first = union.find((s) => s.type !== 'null') ?? union[0];
    return sample(first, root, depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : 'sample';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
      return Array.from({ length: Math.max(1, min) }, () => sample(items, root, depth + 1));
    }
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, sample(s, root, depth + 1)]));
    }
  }
}

/** A value matching `schema` (every property filled, the first choice of each enum or union). */
export function sampleOfSchema(schema: Schema): unknown {
  return sample(schema, schema, 0);
}
