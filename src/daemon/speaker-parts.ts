/**
 * What a Speaker is handed instead of building it: where the configuration comes from, the runtime (clock,
 * timers, sockets), and the factories of the parts that touch the host (ARP/NDP answering, VIP binding, the
 * self-check's probes, BGP sessions, the control socket). speaker-assembly.ts builds the real ones; a test hands
 * in fakes, and the Kubernetes mode hands in its own configuration source.
 */
import type { IP } from '../ip';
import type { BgpPeerPlan, BgpPeerStatus } from '../announce/bgp/bgp-announcer';
import type { LinkSource } from '../announce/l2/interfaces';
import type { L2AnnouncerStats, L2Metric } from '../announce/l2/l2-announcer';
import type { ArpAnswerTimes } from '../announce/l2/arp-answer-times';
import type { DesiredAnnouncement } from '../announce/l2/l2-announcer-state';
import type { ObservedConflict } from '../announce/l2/l2-interface';
import type { BGPAnnouncement } from '../election';
import type { AnnouncedIP } from './local-announcements';
import type { Gossip, GossipNodeOptions } from '../gossip/gossip-node';
import type { Runtime } from '../runtime';
import type { StateFiles } from '../runtime/state-files';
import type { ConfigSource } from '../sources/config-source';
import type { ControlProvider } from './control';
import type { SpeakerPlan } from './speaker-plan';
import type { Prober } from './health/health-monitor';
import type { AnswerFacts } from './self-check/expected-answer';
import type { SelfChecker } from './self-check/self-checker';

/** This host's links, watched (netlink); closed on stop. */
export interface HostLinks extends LinkSource {
  close(): void;
}

/** ARP/NDP answering for the owned IPs (L2Announcer). */
export interface LayerTwoAnnouncer {
  reconcile(desired: readonly DesiredAnnouncement[]): unknown;
  /** Answers a batch just bound ahead of the next reconcile (L2Announcer.answerAhead); optional for fakes. */
  answerAhead?(additions: readonly DesiredAnnouncement[]): void;
  stats(): L2AnnouncerStats;
  metrics(): L2Metric[];
  /** How long the addon's ARP answer thread took per request; undefined when it has not answered (or is absent). */
  answerTimes?(): ArpAnswerTimes | undefined;
  close(): void;
}

/** The owned VIPs bound to the dummy interface (mlb0), so the host accepts their traffic. */
export interface VipBinding {
  reconcile(ips: readonly IP[], onBound?: (bound: readonly IP[]) => void): Promise<unknown>;
  bound(): IP[];
  close(options: { keep: boolean }): Promise<void>;
}

/** Layer-2 announcing as opened: what stop() closes, in its order. */
export interface LayerTwo {
  readonly links: HostLinks;
  readonly announcer: LayerTwoAnnouncer;
  /** Undefined when VIP binding is off (--no-bind-vips). */
  readonly vips: VipBinding | undefined;
  /** The split-brain self-check: probes what this node owns (self-check/); absent where nothing can be probed. */
  readonly selfCheck?: SelfChecker;
}

/** What the speaker tells layer-2 announcing while it opens it. */
export interface LayerTwoHooks {
  /** Another MAC claims an IP this node announces (a successor during a handover, or a split brain). */
  onConflict(conflict: ObservedConflict): void;
  /** What makes another MAC's answer expected, for the self-check. */
  answerFacts(ip: IP, mac: string): AnswerFacts;
  /** True once stopping: link changes prepare nothing more (vip-binding.ts). */
  stopping(): boolean;
}

/** The BGP sessions with the peers that select this node, and the routes on them (BgpAnnouncer). */
export interface BgpSessions {
  update(plans: readonly BgpPeerPlan[], announcements: readonly BGPAnnouncement[]): void;
  status(): BgpPeerStatus[];
  close(): Promise<void>;
}

export interface ControlEndpoint {
  close(): Promise<void>;
}

export interface SpeakerParts {
  readonly configSource: ConfigSource;
  readonly runtime: Runtime;
  /** Restart history, drain record, known peers and allocations; default: the directory options.stateDir. */
  readonly stateFiles?: StateFiles;
  /**
   * Opens ARP/NDP answering, VIP binding and the self-check; called only when announcing is on. A failure closes
   * what it had opened before rejecting.
   */
  openLayerTwo(hooks: LayerTwoHooks): Promise<LayerTwo>;
  /** The BGP announcer; opened with layer 2, only when announcing is on. */
  openBgp(): BgpSessions;
  /** Runs one health check (mlb.io/health-check); default: the real TCP, HTTP and exec probes (health-probers.ts). */
  readonly healthProbe?: Prober;
  /**
   * Told every plan the speaker applies, with the layer 2 IPs it answers for after it and on which interfaces (the
   * Kubernetes mode writes status objects and events from them).
   */
  readonly onPlanned?: (plan: SpeakerPlan, answered: readonly AnnouncedIP[]) => void;
  /**
   * Given the speaker's rejoin (join the seeds that are not members now) once it has joined: the Kubernetes mode
   * calls it when a speaker pod starts or this node's Node object changes.
   */
  readonly rejoinRequests?: (rejoin: () => void) => void;
  /**
   * Starts the gossip node; default: a GossipNode on `runtime` (tests, virtual clusters). The daemon runs it on a
   * thread of its own (gossip-thread/), where no decision can delay an ack.
   */
  readonly openGossip?: (options: GossipNodeOptions) => Promise<Gossip>;
  /** Serves the control API (unix socket) from `provider`. */
  openControl(provider: ControlProvider): Promise<ControlEndpoint>;
}
