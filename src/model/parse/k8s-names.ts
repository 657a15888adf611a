/**
 * The Kubernetes name and label rules (apimachinery pkg/util/validation), so a file that works with mlb also
 * applies to a cluster, and a typo like "my_pool" is caught before a webhook would catch it.
 */

/** RFC 1123 label: metadata.namespace, Service names use the stricter RFC 1035 label below. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MAX = 63;
/** RFC 1123 subdomain: names of custom resources and Nodes. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MAX = 253;
/** RFC 1035 label: Service names (they become DNS labels). */
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** The name part of a label key and a label value. */
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const QUALIFIED_NAME_MAX = 63;

export type NameRule = 'subdomain' | 'label' | 'serviceName';

/** Why a name breaks its rule, or undefined when it is fine. */
export function nameProblem(name: string, rule: NameRule): string | undefined {
  if (name === '') return 'must not be empty';
  switch (rule) {
    case 'subdomain':
      if (name.length > DNS1123_SUBDOMAIN_MAX) return `must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`;
      if (!DNS1123_SUBDOMAIN.test(name)) {
        return "must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character";
      }
      return undefined;
    case 'label':
      if (name.length > DNS1123_LABEL_MAX) return `must be no more than ${DNS1123_LABEL_MAX} characters`;
      if (!DNS1123_LABEL.test(name)) {
        return "must consist of lower case alphanumeric characters or '-', and start and end with an alphanumeric character";
      }
      return undefined;
    case 'serviceName':
      if (name.length > DNS1123_LABEL_MAX) return `must be no more than ${DNS1123_LABEL_MAX} characters`;
      if (!DNS1035_LABEL.test(name)) {
        return "must consist of lower case alphanumeric characters or '-', start with a letter and end with an alphanumeric character";
      }
      return undefined;
  }
}

/** A label key: an optional DNS subdomain prefix and "/", then a qualified name. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    const p = nameProblem(prefix, 'subdomain');
    if (p !== undefined) return `prefix "${prefix}" ${p}`;
  }
  if (name === '') return 'name part must not be empty';
  if (name.length > QUALIFIED_NAME_MAX) return `name part must be no more than ${QUALIFIED_NAME_MAX} characters`;
  if (!QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character";
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > QUALIFIED_NAME_MAX) return `must be no more than ${QUALIFIED_NAME_MAX} characters`;
  if (!QUALIFIED_NAME.test(value)) {
    return "must consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character";
  }
  return undefined;
}
