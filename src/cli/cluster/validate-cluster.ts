/**
 * `mlb validate --kubeconfig`: the live cluster's metallb.io objects, LoadBalancer Services and Nodes through the
 * same readers and checks as a file (the speaker's own translation, translate-cluster.ts), handed back as a
 * LoadedConfig so `mlb validate` prints it exactly as a file's result. Diagnostics name the object
 * (IPAddressPool metallb-system/lan) instead of a line. Adapter: network (readCluster).
 */
import type { Diagnostic } from '../../model';
import { translateCluster } from '../../sources/k8s/translate-cluster';
import type { LoadedConfig } from '../config-input';
import type { ClusterChoice } from './read-cluster';

export async function readClusterConfig(choice: ClusterChoice): Promise<LoadedConfig> {
  const { readCluster } = await import('./read-cluster');
  const cluster = await readCluster(choice);
  const file = `the Kubernetes API ${cluster.server} (namespace ${cluster.namespace})`;
  const { result } = translateCluster(
    cluster.objects,
    file,
    cluster.secretsUnreadable ? { peerSecrets: 'unreadable' } : {},
    cluster.lbClass,
  );
  return { file, snapshot: result.ok ? result.snapshot : undefined, diagnostics: result.diagnostics.map(namingItsObject) };
}

/** An API object's diagnostic has no file:line to start with, so its text starts with the object (kubectl's Kind/ns/name). */
function namingItsObject(d: Diagnostic): Diagnostic {
  return d.position || !d.object ? d : { ...d, message: `${d.object}: ${d.message}` };
}
