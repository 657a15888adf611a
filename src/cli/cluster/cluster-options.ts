/**
 * The flags that point `mlb validate`, `mlb explain` and `mlb status` at a cluster instead of a file or the local
 * daemon: --kubeconfig PATH, or --kubernetes alone (KUBECONFIG, else the pod's service account: in-cluster), and
 * --namespace for the metallb.io objects (as `mlb controller` finds it). Pure.
 */
import { metallbNamespace } from '../../sources/k8s/kubernetes-mode';
import type { ClusterChoice } from './read-cluster';

export interface ClusterArgs {
  kubeconfig?: string;
  kubernetes?: boolean;
  namespace?: string;
  'lb-class'?: string;
}

export function clusterOptions(what: string) {
  return {
    kubeconfig: {
      type: 'string',
      describe: `${what} from the cluster this kubeconfig names (its current context), as kubectl does`,
    },
    kubernetes: {
      type: 'boolean',
      describe: `${what} from the cluster of KUBECONFIG, else of the pod's service account (run inside the cluster)`,
    },
    namespace: {
      type: 'string',
      describe: "With --kubeconfig/--kubernetes: MetalLB's namespace (default: METALLB_NAMESPACE, else metallb-system)",
    },
    'lb-class': {
      type: 'string',
      describe:
        'With --kubeconfig/--kubernetes: the Services of this spec.loadBalancerClass, as mlb controller --lb-class (default: those without one)',
    },
  } as const;
}

/** The cluster to read, or undefined when the command was not pointed at one. */
export function clusterChoice(args: ClusterArgs): ClusterChoice | undefined {
  if (args.kubeconfig === undefined && args.kubernetes !== true) return undefined;
  return {
    namespace: metallbNamespace(args.namespace),
    ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}),
    ...(args['lb-class'] ? { lbClass: args['lb-class'] } : {}),
  };
}
