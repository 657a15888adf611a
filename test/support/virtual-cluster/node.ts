/**
 * One machine of a virtual cluster: a real Speaker on a VirtualRuntime (gossip, timers and randomness of one
 * simulated host), its configuration in memory, its state files in memory (they outlive the process, as
 * --state-dir does), its layer 2 on the shared VirtualSegment, and every log line it wrote, parsed, across all
 * its lives. Its split-brain self-check is the real SelfChecker on the node's clock, probing the segment; its
 * health checks are the real HealthMonitor with the probe a test sets (`setHealth`). No control socket, no BGP, no
 * VIP binding: nothing here touches the host.
 */
import type { Logger } from 'pino';
import { formatMAC } from '../../../src/announce/l2/mac-address';
import { createLogger } from '../../../src/daemon/logger';
import { Speaker, type SpeakerOptions } from '../../../src/daemon/speaker';
import type { BgpSessions, LayerTwo, LayerTwoHooks, SpeakerParts } from '../../../src/daemon/speaker-parts';
import { SelfChecker } from '../../../src/daemon/self-check/self-checker';
import type { HealthCheckSpec } from '../../../src/daemon/health/health-check-spec';
import type { ProbeResult } from '../../../src/daemon/health/health-state';
import { SWIM_PROFILES, type SwimProfileName } from '../../../src/gossip/swim';
import type { HostPort } from '../../../src/gossip/transport/address';
import { parseIP } from '../../../src/ip';
import type { Snapshot } from '../../../src/model';
import { MemoryStateFiles, type VirtualNetwork, type VirtualRuntime } from '../../../src/runtime';
import { InMemoryConfigSource } from '../in-memory-config-source';
import { SEGMENT_INTERFACE, type SegmentPort, type VirtualSegment } from './segment';

/** memberlist's default port, on every virtual host (each has its own address). */
export const GOSSIP_PORT = 7946;
/** The segment's prefix: the nodes and the pool of test/daemon/config-facts/config-yaml.ts share 192.0.2.0/24. */
const SEGMENT_PREFIX = 24;

/** A log line as the daemon wrote it (JSON), with the life of the process that wrote it (1 = first start). */
export type LogLine = Record<string, unknown> & { readonly life: number; readonly event?: string };

/** A health check's verdict as the test sets it: passes, or fails with this detail. */
export type HealthAnswer = { readonly ok: true } | { readonly ok: false; readonly detail: string };

export interface VirtualNodeOptions {
  readonly name: string;
  readonly ip: string;
  /** Distinct per node: the last byte of its MAC. */
  readonly index: number;
  readonly join: readonly HostPort[];
  readonly config: Snapshot;
  readonly network: VirtualNetwork;
  readonly segment: VirtualSegment;
  /** The gossip profile (--gossip-profile); fast, the plain-host default, unless a scenario needs another. */
  readonly profile?: SwimProfileName;
}

export class VirtualNode {
  readonly name: string;
  readonly ip: string;
  readonly mac: Uint8Array;
  /** The MAC as logs, status and probes write it (lowercase, colon-separated). */
  readonly macText: string;
  /** What survives restarts: drain record, restart history, known peers, allocation table. */
  readonly stateFiles: MemoryStateFiles;
  readonly logs: LogLine[] = [];
  /** The running process's speaker (undefined while down). */
  speaker: Speaker | undefined;
  runtime: VirtualRuntime | undefined;
  /** How many processes were started (the current one's number). */
  life = 0;
  private config: Snapshot;
  /** Health check answers by check target (mlb.io/health-check); a target not set here passes. */
  private readonly health = new Map<string, HealthAnswer>();
  private source: InMemoryConfigSource | undefined;

  constructor(private readonly options: VirtualNodeOptions) {
    this.name = options.name;
    this.ip = options.ip;
    this.mac = Uint8Array.of(0x02, 0, 0, 0, 0, options.index);
    this.macText = formatMAC(this.mac);
    this.stateFiles = new MemoryStateFiles(`/var/lib/mlb/${options.name}`);
    this.config = options.config;
  }

  get up(): boolean {
    return this.speaker !== undefined && this.runtime?.host.alive === true;
  }

  /**
   * Starts a new process on the node's address with its state files. Resolves when the speaker has started; the
   * caller must run the clock meanwhile (the join dials the others over the virtual network).
   */
  start(): Promise<void> {
    if (this.up) throw new Error(`${this.name} is already running`);
    this.life += 1;
    const runtime = this.options.network.host(this.ip);
    this.runtime = runtime;
    this.source = new InMemoryConfigSource(this.config, () => runtime.now());
    const logger = this.logger(runtime, this.life);
    const port: SegmentPort = {
      node: this.name,
      mac: this.mac,
      alive: () => runtime.host.alive,
      hooks: undefined as unknown as LayerTwoHooks,
      scheduler: runtime,
    };
    const parts: SpeakerParts = {
      configSource: this.source,
      runtime,
      stateFiles: this.stateFiles.forProcess(runtime.host),
      openLayerTwo: async (hooks) => {
        const attached = { ...port, hooks };
        this.options.segment.attach(attached);
        return this.layerTwo(attached, logger, runtime);
      },
      openBgp: () => NO_BGP,
      healthProbe: (spec) => Promise.resolve(this.healthProbe(spec)),
      openControl: async () => ({ close: async () => undefined }),
    };
    this.speaker = new Speaker(this.speakerOptions(logger), parts);
    return this.speaker.start();
  }

  /** kill -9: the process dies mid-whatever; its ARP answers stop with it. */
  crash(): void {
    this.options.network.crash(this.ip);
    this.options.segment.detach(this.name);
    this.speaker = undefined;
  }

  /** SIGTERM: the graceful stop (handover, withdraw, leave), then the process exits. Run the clock meanwhile. */
  async stop(): Promise<void> {
    const speaker = this.speaker;
    if (!speaker) return;
    await speaker.stop();
    this.crash();
  }

  /** The operator edits this node's file: the running speaker reloads it; a restart reads it. */
  setConfig(snapshot: Snapshot): void {
    this.config = snapshot;
    this.source?.emit(snapshot);
  }

  /** This node's checks of `target` pass from now on, or fail with `detail` (the service on this host died). */
  setHealth(target: string, answer: HealthAnswer): void {
    this.health.set(target, answer);
  }

  private healthProbe(spec: HealthCheckSpec): ProbeResult {
    const answer = this.health.get(spec.target) ?? { ok: true };
    return answer.ok ? { ok: true, detail: `${spec.target} answered` } : { ok: false, detail: answer.detail };
  }

  /** Log lines with this event name, oldest first. */
  events(event: string): LogLine[] {
    return this.logs.filter((l) => l.event === event);
  }

  private speakerOptions(logger: Logger): SpeakerOptions {
    return {
      nodeName: this.name,
      bind: { host: this.ip, port: GOSSIP_PORT },
      join: this.options.join,
      stateDir: this.stateFiles.where,
      nodeLabels: {},
      gossipConfig: SWIM_PROFILES[this.options.profile ?? 'fast'],
      profileName: this.options.profile ?? 'fast',
      announce: true,
      logger,
      controlSocket: `/run/mlb/${this.name}.sock`,
      version: 'virtual',
    };
  }

  /** JSON lines into `logs`, stamped with the node's virtual clock. */
  private logger(runtime: VirtualRuntime, life: number): Logger {
    const destination = {
      write: (text: string) => {
        for (const line of text.split('\n')) if (line) this.logs.push({ ...(JSON.parse(line) as Record<string, unknown>), life });
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    return createLogger({ level: 'info', destination, base: { node: this.name }, clock: runtime });
  }

  /**
   * One link on the segment with the node's address; the announcer is the segment itself, and the self-check
   * (built as speaker-assembly.ts builds it) probes the segment on the node's clock.
   */
  private layerTwo(port: SegmentPort, logger: Logger, runtime: VirtualRuntime): LayerTwo {
    const segment = this.options.segment;
    const address = parseIP(this.ip)!;
    const link = {
      index: 2,
      name: SEGMENT_INTERFACE,
      mac: this.mac,
      up: true,
      master: undefined,
      noarp: false,
      addresses: [{ ip: address, prefix: SEGMENT_PREFIX }],
    };
    const selfCheck = new SelfChecker({
      logger,
      runtime,
      random: runtime.random,
      probe: (request) => segment.probe(port, request),
      interfaces: () => [{ name: link.name, mac: link.mac, up: link.up, addresses: link.addresses }],
      answerFacts: (ip, mac) => port.hooks.answerFacts(ip, mac),
    });
    return {
      selfCheck,
      links: {
        links: () => [link],
        link: (name: string) => (name === link.name ? link : undefined),
        onChange: () => () => undefined,
        close: () => undefined,
      },
      announcer: {
        reconcile: (desired) => segment.reconcile(port, desired),
        stats: () => ({
          requestsReceived: {},
          responsesSent: {},
          gratuitousSent: {},
          drops: {},
          sendFailures: 0,
          handlerErrors: 0,
          conflicts: 0,
          socketErrors: {},
          interfaces: {},
        }),
        metrics: () => [],
        close: () => undefined,
      },
      vips: undefined,
    };
  }
}

const NO_BGP: BgpSessions = { update: () => undefined, status: () => [], close: async () => undefined };
