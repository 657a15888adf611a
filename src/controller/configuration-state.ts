/**
 * The ConfigurationState named `controller` (metallb.io/v1beta1, MetalLB >= v0.15.3
 * api/v1beta1/configurationstate_types.go): the pool reconciler's condition and the result derived from it
 * (internal/k8s/controllers/pool_controller.go reportCondition, configuration_state_controller.go). mlb has one
 * writer, so it computes the whole status and writes it at once; the shape is MetalLB's exactly.
 */
import type { ApiObject, ApiOwnerReference } from './api-objects';

const CONFIGURATION_STATE_NAME = 'controller';
const COMPONENT_TYPE_LABEL = 'metallb.io/component-type';
const COMPONENT_TYPE = 'controller';
const POOL_RECONCILER_CONDITION = 'poolReconcilerValid';

export const ConditionReason = {
  reconciled: 'Reconciled',
  configurationError: 'ConfigurationError',
  unknownError: 'UnknownError',
} as const;
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];

/** metav1.Condition: type, status, reason and message are always present (message "" when fine). */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: ConditionReason;
  readonly message: string;
  readonly lastTransitionTime: string;
}

export interface ConfigurationStateStatus {
  readonly conditions: readonly Condition[];
  /** Valid | Invalid | Unknown; errorSummary is omitted (omitempty) when empty. */
  readonly result: 'Valid' | 'Invalid' | 'Unknown';
  readonly errorSummary?: string;
}

/** MetalLB's ErrConfiguration prefix: the condition says "configuration error: <why>". */
const CONFIGURATION_ERROR_PREFIX = 'configuration error: ';

/** The pool reconciler's condition: fine, or the configuration error it hit (`now` as RFC 3339, seconds). */
export function poolCondition(configurationError: string | undefined, now: string): Condition {
  if (configurationError === undefined) {
    return { type: POOL_RECONCILER_CONDITION, status: 'True', reason: ConditionReason.reconciled, message: '', lastTransitionTime: now };
  }
  return {
    type: POOL_RECONCILER_CONDITION,
    status: 'False',
    reason: ConditionReason.configurationError,
    message: `${CONFIGURATION_ERROR_PREFIX}${configurationError}`,
    lastTransitionTime: now,
  };
}

/** ConfigurationStateReconciler: Unknown without conditions, Invalid when one is False for ConfigurationError. */
export function configurationStateStatus(conditions: readonly Condition[]): ConfigurationStateStatus {
  const failing = conditions.filter((c) => c.status === 'False' && c.reason === ConditionReason.configurationError);
  const result = conditions.length === 0 ? 'Unknown' : failing.length > 0 ? 'Invalid' : 'Valid';
  const summary = failing.map((c) => c.message).join('\n');
  return { conditions, result, ...(summary !== '' && { errorSummary: summary }) };
}

/** The object to create when none exists: labels as MetalLB's, owned by the controller's pod when known. */
export function newConfigurationState(namespace: string, owner: ApiOwnerReference | undefined): ApiObject {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'ConfigurationState',
    metadata: {
      name: CONFIGURATION_STATE_NAME,
      namespace,
      labels: { [COMPONENT_TYPE_LABEL]: COMPONENT_TYPE },
      ...(owner && { ownerReferences: [owner] }),
    },
  };
}

/**
 * Whether the stored status says the same, ignoring lastTransitionTime (MetalLB stamps it on every reconcile;
 * mlb rewrites only when something else changed, so an idle controller writes nothing).
 */
export function sameConfigurationState(stored: unknown, wanted: ConfigurationStateStatus): boolean {
  const strip = (s: unknown): string => {
    const status = (s ?? {}) as { conditions?: readonly Partial<Condition>[]; result?: string; errorSummary?: string };
    const conditions = (status.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message ?? '']);
    return JSON.stringify([conditions, status.result ?? '', status.errorSummary ?? '']);
  };
  return strip(stored) === strip(wanted);
}
