/**
 * The speaker's ConfigurationState `speaker-<node>` (metallb.io/v1beta1, MetalLB >= v0.15.3
 * api/v1beta1/configurationstate_types.go, internal/k8s/controllers/config_controller.go): the config
 * reconciler's condition `configReconcilerValid` and the result derived from it, with the controller's shaping
 * (src/controller/configuration-state.ts) so both components' objects read alike. Pure.
 */
import {
  ConditionReason,
  configurationStateStatus,
  type Condition,
  type ConfigurationStateStatus,
} from '../../controller/configuration-state';
import type { ApiObject } from '../../controller/api-objects';
import { DiagnosticCode, diagnosticReport } from '../../model';
import type { ConfigState } from '../../sources/config-source';
import type { OwnerPod } from './service-status-plan';

const COMPONENT_TYPE_LABEL = 'metallb.io/component-type';
const NODE_NAME_LABEL = 'metallb.io/node-name';
const CONFIG_RECONCILER_CONDITION = 'configReconcilerValid';
/** MetalLB's ErrConfiguration prefix. */
const CONFIGURATION_ERROR_PREFIX = 'configuration error: ';

export function speakerConfigurationStateName(node: string): string {
  return `speaker-${node}`;
}

/** The config reconciler's condition: fine, or the first error of the configuration refused. */
function configReconcilerCondition(configurationError: string | undefined, now: string): Condition {
  if (configurationError === undefined) {
    return { type: CONFIG_RECONCILER_CONDITION, status: 'True', reason: ConditionReason.reconciled, message: '', lastTransitionTime: now };
  }
  return {
    type: CONFIG_RECONCILER_CONDITION,
    status: 'False',
    reason: ConditionReason.configurationError,
    message: `${CONFIGURATION_ERROR_PREFIX}${configurationError}`,
    lastTransitionTime: now,
  };
}

export function speakerConfigurationStatus(configurationError: string | undefined, now: string): ConfigurationStateStatus {
  return configurationStateStatus([configReconcilerCondition(configurationError, now)]);
}

export function newSpeakerConfigurationState(namespace: string, node: string, owner: OwnerPod | undefined): ApiObject {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'ConfigurationState',
    metadata: {
      name: speakerConfigurationStateName(node),
      namespace,
      labels: { [COMPONENT_TYPE_LABEL]: 'speaker', [NODE_NAME_LABEL]: node },
      ...(owner && { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: owner.name, uid: owner.uid }] }),
    },
  };
}

/**
 * The configuration error the ConfigurationState reports: the first error of what the API holds when it was
 * refused. An API outage also makes the state stale, but it says nothing about the configuration (and nothing
 * could be written during it anyway), so it is not an error here.
 */
export function configurationErrorOf(state: ConfigState | undefined): string | undefined {
  if (!state?.stale) return undefined;
  const errors = diagnosticReport(state.diagnostics.filter((d) => d.code !== DiagnosticCode.apiUnreachable)).errors;
  return errors[0];
}
