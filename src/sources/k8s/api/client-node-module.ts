/**
 * @kubernetes/client-node, loaded only when a command talks to Kubernetes. It is 5 MB of bundled JavaScript (with
 * ws, node-fetch, js-yaml, tr46...), more than the rest of mlb together: inside dist/mlb.mjs every `mlb` command,
 * `mlb --help` included, spent some 400 ms reading and compiling it. scripts/build.mjs therefore makes it a file
 * beside the bundle (dist/mlb-k8s.mjs) and turns the import below into an import of that file; the one-file build
 * embeds the same file (EMBEDDED.kubernetesClient). Every Kubernetes path starts by loading a kubeconfig
 * (kube-config.ts), which loads this module first, so the constructors can be taken synchronously after that.
 */
import { importEmbeddedModule } from '../../../packaging/embedded-module';
import { EMBEDDED, runningAsSingleExecutable } from '../../../packaging/single-executable';

export type ClientNode = typeof import('./client-node-exports');

let loading: Promise<ClientNode> | undefined;
let loaded: ClientNode | undefined;

export async function loadClientNode(): Promise<ClientNode> {
  loading ??= runningAsSingleExecutable() ? importEmbeddedModule<ClientNode>(EMBEDDED.kubernetesClient) : import('./client-node-exports');
  loaded = await loading;
  return loaded;
}

/** The module once loadClientNode() has resolved; before that a programming error, said as one. */
export function clientNode(): ClientNode {
  if (loaded === undefined) throw new Error('@kubernetes/client-node used before loadClientNode() resolved');
  return loaded;
}
