/** metadata: name, namespace, labels and annotations, with the Kubernetes rules for each. */
import type { ObjectMeta } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { MapReader } from './field-reader';
import { type NameRule, labelKeyProblem, labelValueProblem, nameProblem } from './k8s-names';

/** Fields the API server writes; accepted so `kubectl get -o yaml` output can be pasted as it is. */
export const BOOKKEEPING_FIELDS: readonly string[] = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'ownerReferences',
  'finalizers',
  'generateName',
  'selfLink',
];

export interface MetadataRules {
  /** "metallb-system" for metallb.io objects, "default" for Services, "" for (cluster-scoped) Nodes. */
  readonly defaultNamespace: string;
  readonly nameRule: NameRule;
  readonly clusterScoped?: boolean;
}

/** Reads metadata; undefined when the object has no usable name (it cannot be referred to or reported). */
export function readMetadata(top: MapReader, kind: string, rules: MetadataRules): ObjectMeta | undefined {
  const meta = top.map('metadata', { required: true });
  if (!meta) return undefined;
  meta.ignore(...BOOKKEEPING_FIELDS);
  const name = meta.string('name', { required: true });
  // A namespace on a cluster-scoped object is ignored by the API server; it is accepted and ignored here too.
  const writtenNamespace = meta.string('namespace');
  const namespace = rules.clusterScoped ? '' : (writtenNamespace ?? rules.defaultNamespace);
  if (!rules.clusterScoped && writtenNamespace !== undefined) {
    const problem = nameProblem(writtenNamespace, 'label');
    if (problem) meta.error(DiagnosticCode.invalidName, `invalid namespace "${writtenNamespace}": ${problem}`, 'namespace');
  }
  const labels = readLabels(meta, 'labels');
  const annotations = meta.stringMap('annotations');
  if (name === undefined) return undefined;
  top.scope.object = rules.clusterScoped ? `${kind}/${name}` : `${kind}/${namespace}/${name}`;
  const problem = nameProblem(name, rules.nameRule);
  if (problem) meta.error(DiagnosticCode.invalidName, `invalid ${kind} name "${name}": ${problem}`, 'name');
  return { name, namespace, labels, annotations, position: top.position };
}

/** A label map with Kubernetes' key and value rules (metadata.labels, matchLabels). */
export function readLabels(reader: MapReader, key: string): Record<string, string> {
  const labels = reader.stringMap(key);
  const sub = reader.raw(key) === undefined ? undefined : reader.fieldPath(key);
  for (const [name, value] of Object.entries(labels)) {
    const keyProblem = labelKeyProblem(name);
    const valueProblem = labelValueProblem(value);
    const position = reader.scope.positions.get(`${sub}.${name}`) ?? reader.valuePosition(key);
    if (keyProblem) {
      reader.scope.error(DiagnosticCode.invalidLabel, `invalid label key "${name}": ${keyProblem}`, position);
    } else if (valueProblem) {
      reader.scope.error(DiagnosticCode.invalidLabel, `invalid label value "${value}" for "${name}": ${valueProblem}`, position);
    }
  }
  return labels;
}
