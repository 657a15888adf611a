/**
 * What `mlb daemon --kubernetes` adds around the speaker: the join list from the speaker pods (and rejoins when
 * one starts or this node changes), the gossip bind and
 * key from MetalLB's environment, the status writer fed by every plan, and the health probes. The daemon command
 * opens it before the speaker and closes it after; the speaker sees only its join list and one plan hook.
 * Loaded only in Kubernetes mode (it loads client-node). Not pure.
 */
import { existsSync } from 'node:fs';
import { formatHostPort, type HostPort } from '../../gossip/transport/address';
import { startError } from '../start-failure';
import { REAL_BACKGROUND_RUNTIME, REAL_RUNTIME } from '../../runtime';
import type { Log } from '../../runtime/log';
import { loadKubeConfig } from '../../sources/k8s/kube-config';
import type { KubernetesModeOptions } from '../config-source-choice';
import type { ConfigSource } from '../../sources/config-source';
import type { AnnouncedIP } from '../local-announcements';
import type { SpeakerPlan } from '../speaker-plan';
import { configurationErrorOf } from './speaker-configuration-state';
import { memberlistEnv } from './memberlist-env';
import { SPEAKER_HEALTH_BIND, startSpeakerHealthServer, type SpeakerHealthServer } from './speaker-health-server';
import { SpeakerPodPeers } from './speaker-pod-peers';
import { SpeakerStatusWriter } from './speaker-status-writer';

export interface KubernetesSpeakerOptions {
  readonly kubernetes: KubernetesModeOptions;
  readonly node: string;
  readonly log: Log;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** --join: peers joined besides the speaker pods. */
  readonly extraJoin?: readonly HostPort[];
  /** Where /healthz and /readyz listen; default 127.0.0.1:17472. */
  readonly healthBind?: HostPort;
}

export interface KubernetesSpeaker {
  /** The speaker's join list: the speaker pods' IPs, kept current. */
  readonly join: HostPort[];
  /** The memberlist secret file to read, when there is one to read. */
  readonly keyFile: string | undefined;
  readonly health: SpeakerHealthServer;
  onPlanned(plan: SpeakerPlan, answered: readonly AnnouncedIP[]): void;
  /** The speaker's rejoin: called when a speaker pod starts or this node's Node object changes. */
  onRejoin(rejoin: () => void): void;
  /** The speaker's configuration source: its verdict is the ConfigurationState's. */
  attachSource(source: ConfigSource): void;
  close(): Promise<void>;
}

export async function openKubernetesSpeaker(options: KubernetesSpeakerOptions): Promise<KubernetesSpeaker> {
  const env = options.env ?? process.env;
  const settings = memberlistEnv(env);
  const { kubeConfig } = await loadKubeConfig(options.kubernetes.kubeconfig ? { path: options.kubernetes.kubeconfig, env } : { env });
  const namespace = options.kubernetes.namespace;
  const runtime = REAL_BACKGROUND_RUNTIME;
  const peers = new SpeakerPodPeers({
    kubeConfig,
    namespace,
    labels: settings.labels,
    port: settings.port,
    node: options.node,
    // The watches' restart jitter; their timers are the background ones (they never hold the process up).
    runtime: { ...runtime, randomInt: (max) => REAL_RUNTIME.randomInt(max), random: () => REAL_RUNTIME.random() },
    log: options.log,
    extra: options.extraJoin ?? [],
  });
  const writer = new SpeakerStatusWriter({
    kubeConfig,
    namespace,
    node: options.node,
    podName: settings.podName,
    configError: () => configurationErrorOf(source?.state),
    runtime,
    log: options.log,
  });
  let joined = false;
  let source: ConfigSource | undefined;
  const healthBind = options.healthBind ?? SPEAKER_HEALTH_BIND;
  const health = await startSpeakerHealthServer(healthBind, () => joined).catch((error: unknown) => {
    throw startError(`serving /healthz and /readyz on ${formatHostPort(healthBind)} (--health-bind)`, error);
  });
  await peers.start();
  const keyFile = settings.keyFile.required || existsSync(settings.keyFile.path) ? settings.keyFile.path : undefined;
  return {
    join: peers.targets,
    keyFile,
    health,
    onPlanned: (plan, answered) => {
      // A plan has a BGP part once the first join is over (speaker-plan.ts): the speaker then serves.
      if (plan.bgp !== undefined) joined = true;
      writer.planned(plan, answered);
    },
    onRejoin: (rejoin) => peers.onRejoin(rejoin),
    attachSource: (s) => {
      source = s;
      s.onChange(() => writer.configChanged());
    },
    close: async () => {
      writer.stop();
      await peers.stop();
      await writer.settled();
      await health.close();
    },
  };
}
