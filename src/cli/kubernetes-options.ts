/** The flags of `mlb daemon --kubernetes`: where the API is and which namespace holds the metallb.io objects. */
import type { KubernetesModeOptions } from '../daemon/config-source-choice';
import { metallbNamespace } from '../sources/k8s/kubernetes-mode';

export interface KubernetesArgs {
  kubernetes?: boolean;
  kubeconfig?: string;
  namespace?: string;
}

export const kubernetesOptions = {
  kubernetes: {
    type: 'boolean',
    describe:
      'Read the configuration from the Kubernetes API (MetalLB CRs, Services, EndpointSlices, Nodes) instead of --config; the node name comes from METALLB_NODE_NAME',
  },
  kubeconfig: { type: 'string', describe: 'With --kubernetes: the kubeconfig file (default: KUBECONFIG, else the pod service account)' },
  namespace: {
    type: 'string',
    describe:
      "With --kubernetes: the namespace of the metallb.io objects (default: METALLB_NAMESPACE, else the pod's, else metallb-system)",
  },
} as const;

export function kubernetesModeOptions(args: KubernetesArgs): KubernetesModeOptions {
  return { namespace: metallbNamespace(args.namespace), ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}) };
}
