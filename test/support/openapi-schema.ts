/**
 * The part of OpenAPI v3 that CustomResourceDefinition schemas use, checked two ways:
 * - structuralProblems: the API server's rules for a structural schema (Kubernetes docs, "Specifying a structural
 *   schema"): a type on every node, properties and additionalProperties never together, `metadata` restricted to
 *   nothing, x-kubernetes-preserve-unknown-fields only where the caller says it is intended, plus the
 *   consistency a reader expects (items under arrays only, required names that exist, defaults that validate).
 *   A keyword outside KNOWN_KEYWORDS is a problem too, so that validate() below never silently ignores a rule.
 * - validate: an object against a schema, as the API server would before storing it: type, properties (unknown
 *   fields are errors, as `kubectl apply` with its default --validate=strict makes them), required, items,
 *   additionalProperties, enum, pattern, minimum/maximum, minItems, minLength/maxLength, format (int32, int64,
 *   date-time). CEL rules (x-kubernetes-validations) are not evaluated: they need a CEL interpreter, and the
 *   rules in mlb's CRDs only compare an object with its previous version or bound durations.
 */

export interface Schema {
  readonly type?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: string;
  readonly default?: unknown;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** Every keyword the checks understand; anything else in a CRD is reported rather than ignored. */
const KNOWN_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'additionalProperties',
  'items',
  'required',
  'enum',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'minLength',
  'maxLength',
  'format',
  'default',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
/**
 * The int formats Kubernetes knows, with their ranges. A parsed YAML number is a double: int64's maximum
 * 9223372036854775807 (what MetalLB writes for a huge IPv6 pool) arrives as 2^63, so int64 is bounded by 2^63 in
 * floating point; anything beyond still fails.
 */
const INT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63],
};
/** RFC 3339 date-time, as meta/v1 Time serialises. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Structural-schema problems of a CRD version's openAPIV3Schema, each as "path: what". `preserveUnknownAllowed`
 * lists the paths where x-kubernetes-preserve-unknown-fields is intended (none in mlb's CRDs).
 */
export function structuralProblems(root: Schema, preserveUnknownAllowed: readonly string[] = []): string[] {
  const problems: string[] = [];
  walkStructure(root, '', problems, preserveUnknownAllowed);
  const metadata = root.properties?.metadata;
  if (metadata && Object.keys(metadata).some((k) => k !== 'type' && k !== 'description')) {
    problems.push('.metadata: only type: object is allowed (the API server owns the metadata schema)');
  }
  return problems;
}

function walkStructure(s: Schema, path: string, problems: string[], preserveAllowed: readonly string[]): void {
  const at = path === '' ? '(root)' : path;
  for (const key of Object.keys(s)) if (!KNOWN_KEYWORDS.has(key)) problems.push(`${at}: keyword ${key} is not checked by the validator`);
  if (s.type === undefined) problems.push(`${at}: no type`);
  else if (!TYPES.has(s.type)) problems.push(`${at}: unknown type ${s.type}`);
  if (s.properties && s.additionalProperties !== undefined) problems.push(`${at}: properties and additionalProperties together`);
  if (s['x-kubernetes-preserve-unknown-fields'] !== undefined && !preserveAllowed.includes(path)) {
    problems.push(`${at}: x-kubernetes-preserve-unknown-fields where it is not intended`);
  }
  if ((s.properties || s.additionalProperties !== undefined || s.required) && s.type !== 'object') {
    problems.push(`${at}: properties/additionalProperties/required on a non-object`);
  }
  if (s.type === 'array' && !s.items) problems.push(`${at}: array without items`);
  if (s.items && s.type !== 'array') problems.push(`${at}: items on a non-array`);
  for (const name of s.required ?? []) if (!s.properties?.[name]) problems.push(`${at}: required ${name} is not a property`);
  if (s.default !== undefined) {
    for (const error of validate(s.default, { ...s, default: undefined }, `${path}(default)`)) problems.push(error);
  }
  for (const [name, child] of Object.entries(s.properties ?? {})) walkStructure(child, `${path}.${name}`, problems, preserveAllowed);
  if (s.items) walkStructure(s.items, `${path}[]`, problems, preserveAllowed);
  if (typeof s.additionalProperties === 'object') walkStructure(s.additionalProperties, `${path}{}`, problems, preserveAllowed);
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** Errors of `value` against `schema`, each as "path: what"; empty when valid. */
export function validate(value: unknown, schema: Schema, path = ''): string[] {
  const at = path === '' ? '(root)' : path;
  if (schema.type !== undefined && !hasType(value, schema.type)) return [`${at}: ${typeOf(value)} where ${schema.type} is expected`];
  const errors: string[] = [];
  if (schema.enum && !schema.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'string') errors.push(...stringErrors(value, schema, at));
  if (typeof value === 'number') errors.push(...numberErrors(value, schema, at));
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.items) value.forEach((item, i) => errors.push(...validate(item, schema.items as Schema, `${path}[${i}]`)));
  }
  if (typeOf(value) === 'object' && schema.type === 'object') errors.push(...objectErrors(value as Record<string, unknown>, schema, path));
  return errors;
}

function stringErrors(value: string, schema: Schema, at: string): string[] {
  const errors: string[] = [];
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
    errors.push(`${at}: "${value}" does not match ${schema.pattern}`);
  if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
  if (schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
  if (schema.format === 'date-time' && !DATE_TIME.test(value)) errors.push(`${at}: "${value}" is not an RFC 3339 date-time`);
  return errors;
}

function numberErrors(value: number, schema: Schema, at: string): string[] {
  const errors: string[] = [];
  if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: ${value} is below ${schema.minimum}`);
  if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: ${value} is above ${schema.maximum}`);
  const range = schema.format === undefined ? undefined : INT_RANGES[schema.format];
  if (range && (value < range[0] || value > range[1])) errors.push(`${at}: ${value} is out of ${schema.format} range`);
  return errors;
}

function objectErrors(value: Record<string, unknown>, schema: Schema, path: string): string[] {
  const at = path === '' ? '(root)' : path;
  const errors: string[] = [];
  for (const name of schema.required ?? []) if (!(name in value)) errors.push(`${at}: ${name} is required`);
  // metadata's schema belongs to the API server (ObjectMeta), not to the CRD: it is checked elsewhere.
  if (path === '' && schema.properties?.metadata) {
    const { metadata: _metadata, ...rest } = value;
    value = rest;
  }
  for (const [name, child] of Object.entries(value)) {
    const sub = schema.properties?.[name];
    if (sub) errors.push(...validate(child, sub, `${path}.${name}`));
    else if (typeof schema.additionalProperties === 'object')
      errors.push(...validate(child, schema.additionalProperties, `${path}.${name}`));
    else if (schema.additionalProperties !== true && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
      errors.push(`${at}: unknown field ${name}`);
    }
  }
  return errors;
}
