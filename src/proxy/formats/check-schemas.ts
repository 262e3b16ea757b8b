// The JSON Schemas a request carries, checked as JSON Schema before anything starts (docs/http.md "Schemas checked
// first"): the structured-output schema (output_config.format, where every format's JSON-output field arrives) and
// each tool's input_schema. A schema with a typo (`{"type": "strnig"}`) is the client's error: a 400 naming its own
// field and the fault, in every mode, before a CLI process starts or the provider is called. Without this, tool mode's
// CLI exited at start ("--json-schema is not a valid JSON Schema") and the client got a 502 blaming the server.
//
// Only the schema's shape is checked, against the meta-schema of the draft it names (draft-07 when it names none;
// 2019-09 and 2020-12 when it names them), without compiling it: that costs a few microseconds a schema, where
// compiling would cost milliseconds on every agent turn that sends its 50 tools again. Unknown keywords and formats
// are let through (strict off), as the provider and the CLI let them through.

import { Ajv, type ErrorObject } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { invalidField } from '../errors.js';
import type { ClientNames } from './format.js';
import type { NativeRequest } from './native.js';

const options = { strict: false, validateFormats: false, allErrors: false } as const;
let drafts: { draft7: Ajv; draft2019: Ajv2019; draft2020: Ajv2020 } | undefined;

/** The validators, made on first use (most requests carry no schema at all). */
function validators(): NonNullable<typeof drafts> {
  drafts ??= { draft7: new Ajv(options), draft2019: new Ajv2019(options), draft2020: new Ajv2020(options) };
  return drafts;
}

function validatorFor(schema: Record<string, unknown>): Ajv | Ajv2019 | Ajv2020 {
  const named = typeof schema.$schema === 'string' ? schema.$schema : '';
  const v = validators();
  if (named.includes('2020-12')) return v.draft2020;
  if (named.includes('2019-09')) return v.draft2019;
  return v.draft7;
}

/** The first fault in words, at its place inside the schema: `properties.name.type must be equal to one of ...`. */
function faultOf(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'is not a valid JSON Schema';
  const at = e.instancePath.slice(1).replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const detail = allowed ? ` (${allowed.map((v) => JSON.stringify(v)).join(', ')})` : '';
  return `is not a valid JSON Schema: ${at ? `${at} ` : ''}${e.message ?? 'is not valid'}${detail}`;
}

/** Throws the 400 of a schema that is not valid JSON Schema, naming `field` and the place of its first fault. */
function checkOne(schema: unknown, field: string): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw invalidField(field, 'must be a JSON Schema object');
  const ajv = validatorFor(schema as Record<string, unknown>);
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch {
    // A `$schema` naming a meta-schema ajv does not hold: the draft it names cannot be checked here.
    return;
  }
  if (valid) return;
  throw invalidField(field, faultOf(ajv.errors));
}

/**
 * Checks the request's schemas in the client's own names: `names.format` for the structured-output schema (its
 * `schemaPath`, when the format keeps the schema under the field), `names.toolSchema` for a tool's, with the tool's
 * index after `tools.`.
 */
export function checkSchemas(req: NativeRequest, names: ClientNames): void {
  const format = req.output_config?.format;
  if (format) checkOne(format.schema, names.schema ?? 'output_config.format.schema');
  const toolField = names.toolSchema ?? 'tools.input_schema';
  req.tools?.forEach((tool, i) => {
    if ('input_schema' in tool) checkOne(tool.input_schema, toolField.replace(/^tools\./, `tools.${i}.`));
  });
}
