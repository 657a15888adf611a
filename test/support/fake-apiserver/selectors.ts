/**
 * Label and field selectors as the apiserver parses them (k8s.io/apimachinery/pkg/labels and pkg/fields):
 * labels `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, comma = AND; fields `path=v`, `path==v`,
 * `path!=v` over the labels each resource type publishes (anything else is 400 `field label not supported`).
 */
import { badRequest } from './api-error';
import { valueAtPath, type KubeObject } from './kube-object';

export type LabelRequirement = { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | 'doesnotexist' };

export interface FieldRequirement {
  path: string;
  equal: boolean;
  value: string;
}

/** Splits on commas that are not inside `( )` (set-based values contain commas). */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const SET_EXPRESSION = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/;
const EQUALITY_EXPRESSION = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/;
const EXISTS_EXPRESSION = /^(!?)\s*([^\s!=()]+)$/;

export function parseLabelSelector(selector: string): LabelRequirement[] {
  return splitTopLevel(selector).map((part): LabelRequirement => {
    const set = SET_EXPRESSION.exec(part);
    if (set) {
      const values = (set[3] ?? '').split(',').map((value) => value.trim());
      return { key: set[1] ?? '', op: set[2] === 'in' ? 'in' : 'notin', values };
    }
    const equality = EQUALITY_EXPRESSION.exec(part);
    if (equality) return { key: equality[1] ?? '', op: equality[2] === '!=' ? 'notin' : 'in', values: [equality[3] ?? ''] };
    const exists = EXISTS_EXPRESSION.exec(part);
    if (exists) return { key: exists[2] ?? '', op: exists[1] === '!' ? 'doesnotexist' : 'exists' };
    throw badRequest(`unable to parse requirement: invalid label selector "${selector}"`);
  });
}

export function labelsMatch(requirements: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  return requirements.every((requirement) => {
    const value = labels?.[requirement.key];
    switch (requirement.op) {
      case 'exists':
        return value !== undefined;
      case 'doesnotexist':
        return value === undefined;
      case 'in':
        return value !== undefined && requirement.values.includes(value);
      case 'notin':
        return value === undefined || !requirement.values.includes(value);
    }
  });
}

const ALWAYS_SUPPORTED_FIELDS = ['metadata.name', 'metadata.namespace'];

/** Parses a field selector against the labels the resource type supports (a 400 otherwise, as the apiserver). */
export function parseFieldSelector(selector: string, supported: readonly string[]): FieldRequirement[] {
  return splitTopLevel(selector).map((part) => {
    const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!match) throw badRequest(`invalid field selector: '${part}'`);
    const path = match[1] ?? '';
    if (!ALWAYS_SUPPORTED_FIELDS.includes(path) && !supported.includes(path)) {
      throw badRequest(`field label not supported: ${path}`);
    }
    return { path, equal: match[2] !== '!=', value: match[3] ?? '' };
  });
}

/** The string a field selector compares: `source` of an event is its source.component, booleans print as Go does. */
function fieldValue(object: KubeObject, path: string): string {
  const value = path === 'source' ? valueAtPath(object, 'source.component') : valueAtPath(object, path);
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function fieldsMatch(requirements: FieldRequirement[], object: KubeObject): boolean {
  return requirements.every((requirement) => (fieldValue(object, requirement.path) === requirement.value) === requirement.equal);
}

/** The name a list/watch asks for with `metadata.name=X` (the apiserver authorizes that as a request for X). */
export function selectedName(requirements: FieldRequirement[]): string | undefined {
  const byName = requirements.filter((requirement) => requirement.path === 'metadata.name' && requirement.equal);
  return byName.length === 1 ? byName[0]?.value : undefined;
}

export interface ObjectFilter {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

export function objectMatches(filter: ObjectFilter, object: KubeObject): boolean {
  return labelsMatch(filter.labels, object.metadata.labels) && fieldsMatch(filter.fields, object);
}
