/**
 * `mlb daemon --kubernetes`: opens the speaker's Kubernetes part (src/daemon/k8s/kubernetes-speaker.ts), loaded
 * only in this mode since it loads client-node, which takes seconds to load and nothing else needs.
 */
import { formatHostPort, parseHostPort, type HostPort } from '../gossip/transport/address';
import { memberlistEnv } from '../daemon/k8s/memberlist-env';
import { UsageError } from './exit-codes';
import type { Log } from '../runtime/log';
import type { KubernetesSpeaker } from '../daemon/k8s/kubernetes-speaker';
import { type KubernetesArgs, kubernetesModeOptions } from './kubernetes-options';

/** Port of the speaker's probes: MetalLB v0.16's health probe port, which its manifests probe. */
const SPEAKER_HEALTH_PORT = 17472;

export interface SpeakerHealthArgs {
  'health-bind'?: string;
}

export const speakerHealthBindOption = {
  type: 'string',
  describe: 'With --kubernetes: where /healthz and /readyz listen (default 127.0.0.1:17472, for the kubelet on the same host)',
} as const;

export async function openKubernetesSpeakerPart(
  args: KubernetesArgs & SpeakerHealthArgs,
  node: string,
  join: readonly HostPort[],
  log: Log,
): Promise<KubernetesSpeaker> {
  const { openKubernetesSpeaker } = await import('../daemon/k8s/kubernetes-speaker');
  const flag = args['health-bind'];
  let healthBind: HostPort | undefined;
  try {
    healthBind = flag === undefined ? undefined : parseHostPort(flag, SPEAKER_HEALTH_PORT);
  } catch (error) {
    throw new UsageError(`--health-bind: ${(error as Error).message}`);
  }
  return openKubernetesSpeaker({ kubernetes: kubernetesModeOptions(args), node, log, extraJoin: join, ...(healthBind && { healthBind }) });
}

/**
 * --gossip-bind when not given: with --kubernetes, MetalLB's METALLB_ML_BIND_ADDR (the host-network pod's IP) and
 * METALLB_ML_BIND_PORT, as its DaemonSet sets them; otherwise the flag is required.
 */
export function kubernetesGossipBind(args: KubernetesArgs, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const bind = args.kubernetes ? memberlistEnv(env).bind : undefined;
  if (!bind) {
    throw new UsageError(
      args.kubernetes
        ? 'Missing required argument: gossip-bind (or METALLB_ML_BIND_ADDR with --kubernetes)'
        : 'Missing required argument: gossip-bind',
    );
  }
  return formatHostPort(bind);
}
