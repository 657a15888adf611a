/**
 * The flags that point `mlb validate`, `mlb explain` and `mlb status` at a cluster instead of a file or the local
 * daemon: --kubeconfig PATH, or --kubernetes alone (KUBECONFIG, else the pod's service account: in-cluster), and
 * --namespace for the metallb.io objects (as `mlb controller` finds it). Pure.
 */
import { metallbNamespace } from '../../sources/k8s/kubernetes-mode';
import type { ClusterChoice } from './read-cluster';
import { UsageError } from '../exit-codes';

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

/**
 * The cluster to read, or undefined when the command was not pointed at one. `others`: the command's flags that
 * name another source (--config, --socket, ...), by name: given with a cluster, they are a usage error rather
 * than silently ignored.
 */
export function clusterChoice(args: ClusterArgs, others: Readonly<Record<string, unknown>> = {}): ClusterChoice | undefined {
  if (args.kubeconfig === undefined && args.kubernetes !== true) {
    if (args['lb-class'] !== undefined) throw new UsageError('--lb-class goes with --kubeconfig or --kubernetes');
    return undefined;
  }
  const given = Object.entries(others).filter(
    ([, value]) => value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0),
  );
  if (given.length > 0) {
    const flags = given.map(([name]) => (name === 'file' ? 'a file' : `--${name}`)).join(' and ');
    throw new UsageError(`${flags} and --kubeconfig/--kubernetes name different sources: give one`);
  }
  return {
    namespace: metallbNamespace(args.namespace),
    ...(args.kubeconfig ? { kubeconfig: args.kubeconfig } : {}),
    ...(args['lb-class'] ? { lbClass: args['lb-class'] } : {}),
  };
}
