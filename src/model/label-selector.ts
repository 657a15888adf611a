import type { LabelSelector, Labels } from './types';

/**
 * Kubernetes label selector semantics (apimachinery labels.Selector): every matchLabels pair and every
 * expression must hold; an empty selector matches everything.
 */
export function selectorMatches(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels)) {
    if (labels[key] !== value) return false;
  }
  for (const req of selector.matchExpressions) {
    const has = Object.prototype.hasOwnProperty.call(labels, req.key);
    const value = labels[req.key];
    switch (req.operator) {
      case 'In':
        if (!has || !req.values.includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && req.values.includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/**
 * MetalLB's rule for a list of selectors (nodeSelectors, serviceSelectors, ...): an empty list selects
 * everything, otherwise any one selector matching is enough.
 */
export function anySelectorMatches(selectors: readonly LabelSelector[], labels: Labels): boolean {
  return selectors.length === 0 || selectors.some((s) => selectorMatches(s, labels));
}

export function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels).length === 0 && selector.matchExpressions.length === 0;
}
