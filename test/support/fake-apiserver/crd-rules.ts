/**
 * Validation rules MetalLB's CRDs declare in their schemas that a client can trip over (MetalLB v0.16
 * config/crd/bases): ServiceL2Status and ServiceBGPStatus keep `status.node`, `status.serviceName` and
 * `status.serviceNamespace` immutable once set (CEL `self == oldSelf`, message "Value is immutable"). A transition
 * rule only runs when the field exists in both the old and the new object.
 */
import { invalid } from './api-error';
import { isPlainObject, type KubeObject } from './kube-object';
import type { ResourceType } from './resource-catalog';

const IMMUTABLE_STATUS_FIELDS: Record<string, string[]> = {
  servicel2statuses: ['node', 'serviceName', 'serviceNamespace'],
  servicebgpstatuses: ['node', 'serviceName', 'serviceNamespace'],
};

export function checkCustomResourceRules(type: ResourceType, old: KubeObject, updated: KubeObject): void {
  if (type.group !== 'metallb.io') return;
  const fields = IMMUTABLE_STATUS_FIELDS[type.plural] ?? [];
  const before = isPlainObject(old['status']) ? old['status'] : {};
  const after = isPlainObject(updated['status']) ? updated['status'] : {};
  const changed = fields.filter((field) => before[field] !== undefined && after[field] !== undefined && before[field] !== after[field]);
  if (changed.length > 0) {
    throw invalid(
      type.kind,
      type.group,
      old.metadata.name ?? '',
      changed.map((field) => `status.${field}: Invalid value: "string": Value is immutable`),
    );
  }
}
