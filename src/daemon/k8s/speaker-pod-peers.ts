/**
 * The other speakers, found as MetalLB's speaker finds them (internal/speakerlist/speakerlist.go): the pods of its
 * own namespace matching METALLB_ML_LABELS, joined at their pod IPs. Listed before the first join and then
 * periodically; the list it keeps is the speaker's join list, which its membership reads at every rejoin
 * (cluster-membership.ts), so a speaker pod that appears later is joined without a restart. Not pure: the API.
 */
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { clientNode } from '../../sources/k8s/api/client-node-module';
import type { HostPort } from '../../gossip/transport/address';
import type { Scheduler, Timer } from '../../runtime';
import type { Log } from '../../runtime/log';
import { joinTargets } from './memberlist-env';

/**
 * How often the pods are listed again. MetalLB lists every 5 minutes; mlb lists every minute so that a speaker on
 * a new node is joined from this side too within about the time MetalLB takes to rejoin (1 minute).
 */
const POD_LIST_INTERVAL_MS = 60_000;

export interface SpeakerPodPeersOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly labels: string;
  readonly port: number;
  /** Join targets kept beside the pods (--join). */
  readonly extra: readonly HostPort[];
  readonly runtime: Scheduler;
  readonly log: Log;
}

export class SpeakerPodPeers {
  /** The join list, updated in place (the speaker holds this very array). */
  readonly targets: HostPort[] = [];
  private readonly core: CoreV1Api;
  private timer: Timer | undefined;
  private lastError: string | undefined;

  constructor(private readonly options: SpeakerPodPeersOptions) {
    this.core = options.kubeConfig.makeApiClient(clientNode().CoreV1Api);
  }

  /** Lists once (a failure is logged: the speaker starts anyway and the next list retries), then periodically. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = this.options.runtime.every(POD_LIST_INTERVAL_MS, () => void this.refresh());
  }

  stop(): void {
    this.timer?.cancel();
  }

  async refresh(): Promise<void> {
    const { namespace, labels, port, log } = this.options;
    try {
      const list = await this.core.listNamespacedPod({ namespace, labelSelector: labels });
      const next = [...this.options.extra, ...joinTargets(list.items, port)];
      this.lastError = undefined;
      if (JSON.stringify(next) === JSON.stringify(this.targets)) return;
      this.targets.splice(0, this.targets.length, ...next);
      log.info({ event: 'speakerPodsListed', peers: next.map((t) => t.host) }, `speaker pods (${labels}): ${next.length}`);
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError)
        log.warn({ event: 'speakerPodsUnlisted', labels }, `cannot list the speaker pods (${labels}): ${message}`);
      this.lastError = message;
    }
  }
}
