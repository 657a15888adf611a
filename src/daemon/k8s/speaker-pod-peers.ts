/**
 * The other speakers, found as MetalLB's speaker finds them (internal/speakerlist/speakerlist.go): the pods of its
 * own namespace matching METALLB_ML_LABELS, joined at their pod IPs. MetalLB lists those pods every 5 minutes and
 * joins the non-members every minute and when its own Node changes (SetNode -> Rejoin). mlb watches the pods
 * instead (one watch, cheaper than a list every minute on a large cluster), so the join list it keeps (the
 * speaker's, read at every rejoin by cluster-membership.ts, which also retries non-members every few seconds) is
 * current at once, and it asks for a rejoin as soon as a speaker pod is Running with an IP not seen running before,
 * and when the labels or conditions of its own Node change. Not pure: the API and timers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { HostPort } from '../../gossip/transport/address';
import type { Clock, Randomness, Scheduler, Timer } from '../../runtime';
import type { Log } from '../../runtime/log';
import type { ApiObject } from '../../sources/k8s/api-object';
import { ResourceWatch } from '../../sources/k8s/resource-watch';
import { REQUEST_TIMEOUT_MS } from '../../sources/k8s/restart-policy';
import { joinTargets, runningPodIPs, type ListedPod } from './memberlist-env';
import { nodeFingerprint } from './node-fingerprint';

/** Quiet time after a pod or Node event before looking again: a rollout's burst of pod updates is one look. */
const PEER_DEBOUNCE_MS = 100;
/**
 * How long the first join waits for the first list of the pods: one request's bound. The speaker starts anyway
 * after it (it may be alone, or the API down); the watch keeps trying and a later list asks for a rejoin.
 */
const FIRST_LIST_WAIT_MS = REQUEST_TIMEOUT_MS;

export interface SpeakerPodPeersOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly labels: string;
  readonly port: number;
  /** This speaker's node: a change of its labels or conditions asks for a rejoin. */
  readonly node: string;
  /** Join targets kept beside the pods (--join). */
  readonly extra: readonly HostPort[];
  readonly runtime: Clock & Scheduler & Randomness;
  readonly log: Log;
}

export class SpeakerPodPeers {
  /** The join list, updated in place (the speaker holds this very array). */
  readonly targets: HostPort[] = [];
  private readonly pods: ResourceWatch;
  private readonly ownNode: ResourceWatch;
  private rejoin: (() => void) | undefined;
  private running: ReadonlySet<string> = new Set();
  private nodeSeen: string | undefined;
  private debounce: Timer | undefined;
  private firstList: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly options: SpeakerPodPeersOptions) {
    const { kubeConfig, namespace, labels, node, runtime, log } = options;
    const onChange = (): void => this.changed();
    this.pods = new ResourceWatch({
      kubeConfig,
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
      name: `speaker pods (${labels})`,
      labelSelector: labels,
      runtime,
      onChange,
      log,
    });
    this.ownNode = new ResourceWatch({
      kubeConfig,
      path: '/api/v1/nodes',
      name: `node ${node}`,
      fieldSelector: `metadata.name=${node}`,
      runtime,
      onChange,
      log,
    });
  }

  /** Who to call for a rejoin (the speaker's membership); before it is set, nobody is asked. */
  onRejoin(rejoin: () => void): void {
    this.rejoin = rejoin;
  }

  /** Starts watching; resolves once the pods are listed (the first join needs them) or FIRST_LIST_WAIT_MS passed. */
  async start(): Promise<void> {
    const listed = new Promise<void>((resolve) => (this.firstList = resolve));
    const bound = this.options.runtime.after(FIRST_LIST_WAIT_MS, () => this.firstListDone());
    this.pods.start();
    this.ownNode.start();
    await listed;
    bound.cancel();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.debounce?.cancel();
    this.firstListDone();
    await Promise.all([this.pods.stop(), this.ownNode.stop()]);
  }

  private firstListDone(): void {
    const done = this.firstList;
    this.firstList = undefined;
    done?.();
  }

  /** Runs inside the watch's stream parser: only schedules the look. */
  private changed(): void {
    if (this.stopped) return;
    if (this.firstList && this.pods.synced) {
      this.look();
      this.firstListDone();
      return;
    }
    this.debounce ??= this.options.runtime.after(PEER_DEBOUNCE_MS, () => {
      this.debounce = undefined;
      this.look();
    });
  }

  private look(): void {
    if (this.stopped) return;
    const podsChanged = this.pods.synced && this.readPods();
    const nodeChanged = this.ownNode.synced && this.readOwnNode();
    if (podsChanged || nodeChanged) this.rejoin?.();
  }

  /** Updates the join list; true when a pod is Running at an IP that was not running before. */
  private readPods(): boolean {
    const { labels, port, log, extra } = this.options;
    const pods = this.pods.objects() as readonly (ApiObject & ListedPod)[];
    const next = [...extra, ...joinTargets(pods, port)];
    if (JSON.stringify(next) !== JSON.stringify(this.targets)) {
      this.targets.splice(0, this.targets.length, ...next);
      log.info({ event: 'speakerPodsListed', peers: next.map((t) => t.host) }, `speaker pods (${labels}): ${next.length}`);
    }
    const running = runningPodIPs(pods);
    const started = [...running].filter((ip) => !this.running.has(ip));
    this.running = running;
    return started.length > 0;
  }

  /** True when this node's labels or conditions changed since the last look (not on the first). */
  private readOwnNode(): boolean {
    const node = this.ownNode.objects()[0];
    if (!node) return false;
    const seen = nodeFingerprint(node);
    const changed = this.nodeSeen !== undefined && seen !== this.nodeSeen;
    this.nodeSeen = seen;
    if (changed) this.options.log.info({ event: 'nodeChanged', node: this.options.node }, `node ${this.options.node} changed: rejoining`);
    return changed;
  }
}
