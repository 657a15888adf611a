/**
 * metav1.LabelSelector as the metallb.io objects use it (nodeSelectors, serviceSelectors, pool selectors), with
 * the API server's rules (apimachinery ValidateLabelSelector) and MetalLB's duplicate checks
 * (internal/config/config.go validateLabelSelectorDuplicate).
 */
import type { LabelSelector, LabelSelectorRequirement, SelectorOperator } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import { didYouMean } from './did-you-mean';
import type { ListItem, MapReader } from './field-reader';
import { labelKeyProblem } from './k8s-names';
import { readLabels } from './metadata';

const OPERATORS: readonly SelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const OPERATORS_WITH_VALUES: readonly SelectorOperator[] = ['In', 'NotIn'];

function readSelector(reader: MapReader): LabelSelector {
  const matchLabels = readLabels(reader, 'matchLabels');
  const matchExpressions: LabelSelectorRequirement[] = [];
  const seen = new Set<string>();
  for (const item of reader.mapList('matchExpressions')) {
    const expression = readRequirement(item.value);
    if (!expression) continue;
    const text = requirementText(expression);
    if (seen.has(text)) {
      reader.scope.error(DiagnosticCode.duplicateEntry, `duplicate definition of match expressions "${text}"`, item.position);
    }
    seen.add(text);
    matchExpressions.push(expression);
  }
  return { matchLabels, matchExpressions };
}

function readRequirement(r: MapReader): LabelSelectorRequirement | undefined {
  const key = r.string('key', { required: true });
  const operatorText = r.string('operator', { required: true });
  const values = r.stringList('values');
  if (key !== undefined) {
    const problem = labelKeyProblem(key);
    if (problem) r.error(DiagnosticCode.invalidSelector, `invalid label key "${key}" in selector: ${problem}`, 'key');
  }
  if (operatorText === undefined || key === undefined) return undefined;
  if (!(OPERATORS as readonly string[]).includes(operatorText)) {
    r.error(
      DiagnosticCode.invalidSelector,
      `"${operatorText}" is not a valid label selector operator: must be one of ${OPERATORS.join(', ')}${didYouMean(operatorText, OPERATORS)}`,
      'operator',
    );
    return undefined;
  }
  const operator = operatorText as SelectorOperator;
  if (OPERATORS_WITH_VALUES.includes(operator) && values.length === 0) {
    r.error(DiagnosticCode.invalidSelector, `values must be given when the operator is ${operator}`, 'operator');
  }
  if (!OPERATORS_WITH_VALUES.includes(operator) && values.length > 0) {
    r.error(DiagnosticCode.invalidSelector, `values must be empty when the operator is ${operator}`, 'values');
  }
  reportDuplicateStrings(r, values, 'match expression value in label selector');
  return { key, operator, values: values.map((v) => v.value) };
}

/** A list of selectors (MetalLB rejects two identical ones: "duplicate definition of nodeSelectors"). */
export function readSelectorList(parent: MapReader, key: string): LabelSelector[] {
  const out: LabelSelector[] = [];
  const seen = new Set<string>();
  for (const item of parent.mapList(key)) {
    const selector = readSelector(item.value);
    const text = selectorText(selector);
    if (seen.has(text)) {
      parent.scope.error(DiagnosticCode.duplicateEntry, `duplicate definition of ${key} "${text}"`, item.position);
    }
    seen.add(text);
    out.push(selector);
  }
  return out;
}

/** Kubernetes' selector text ("a=b,c in (d,e)"), used for duplicate detection and in messages. */
export function selectorText(selector: LabelSelector): string {
  const parts = Object.keys(selector.matchLabels)
    .sort()
    .map((k) => `${k}=${selector.matchLabels[k]}`);
  for (const r of selector.matchExpressions) parts.push(requirementText(r));
  return parts.join(',');
}

function requirementText(r: LabelSelectorRequirement): string {
  switch (r.operator) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'In':
      return `${r.key} in (${[...r.values].sort().join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${[...r.values].sort().join(',')})`;
  }
}

/** MetalLB's validateDuplicate: the second occurrence is an error ("duplicate definition of peers "x""). */
export function reportDuplicateStrings(reader: MapReader, items: readonly ListItem<string>[], what: string): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.value)) {
      reader.scope.error(DiagnosticCode.duplicateEntry, `duplicate definition of ${what} "${item.value}"`, item.position);
    }
    seen.add(item.value);
  }
}
