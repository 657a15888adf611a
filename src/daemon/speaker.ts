/**
 * The speaker on a plain host, as far as it goes today: the configuration file (hot reload, last good kept),
 * gossip membership with this node's facts in meta, membership logged and remembered, a graceful leave on
 * shutdown. Election and announcing hang off the same loop in the next issues.
 */
import type { Logger } from 'pino';
import { GossipNode } from '../gossip/gossip-node';
import type { Keyring } from '../gossip/codec';
import { encodeNodeMeta } from '../gossip/node-meta';
import type { Member, SwimConfig } from '../gossip/swim';
import { formatHostPort, hostFromBytes, type HostPort } from '../gossip/transport/address';
import { FileSource, type FileSourceState } from '../sources/file';
import { formatDiagnostic } from '../model';
import { loadKnownPeers, saveKnownPeers } from './known-peers';
import { nodeFacts } from './node-facts';

/** MetalLB rejoins its seeds every minute (speakerlist.go), healing partitions longer than the dead-node memory. */
export const REJOIN_INTERVAL_MS = 60_000;
/** MetalLB's speaker leaves with a 1 s timeout on shutdown. */
export const LEAVE_TIMEOUT_MS = 1_000;

export interface SpeakerOptions {
  readonly nodeName: string;
  readonly configFile: string;
  readonly bind: HostPort;
  readonly advertiseHost?: string;
  readonly join: readonly HostPort[];
  readonly keyring?: Keyring;
  readonly stateDir: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly gossipConfig: SwimConfig;
  readonly profileName: string;
  readonly logger: Logger;
}

export class Speaker {
  private gossip: GossipNode | undefined;
  private source: FileSource | undefined;
  private rejoinTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** State writes run one after another, and stop() waits for the last: a restart must find what we saw. */
  private stateWrites: Promise<void> = Promise.resolve();

  constructor(private readonly options: SpeakerOptions) {}

  async start(): Promise<void> {
    const { logger } = this.options;
    this.source = new FileSource(this.options.configFile);
    const initial = await this.source.start();
    logger.info({ event: 'configLoaded', file: this.options.configFile, services: initial.snapshot?.services.length }, 'configuration loaded');
    this.source.onChange((state) => this.onConfig(state));

    const meta = encodeNodeMeta(nodeFacts({
      nodeName: this.options.nodeName, snapshot: initial.snapshot, labels: this.options.nodeLabels, draining: false, warmingUp: false,
    }));
    this.gossip = await GossipNode.create({
      name: this.options.nodeName,
      bind: this.options.bind,
      ...(this.options.advertiseHost ? { advertiseHost: this.options.advertiseHost } : {}),
      config: this.options.gossipConfig,
      ...(this.options.keyring ? { keyring: this.options.keyring } : {}),
      meta,
      onLog: (line) => {
        const fields = { event: 'gossip', reason: line.reason, ...('fields' in line ? line.fields : {}) };
        if (line.level === 'debug') logger.debug(fields, line.message);
        else if (line.level === 'info') logger.debug(fields, line.message);
        else logger[line.level](fields, line.message);
      },
    });
    this.gossip.on('join', (m) => this.onMember('memberJoined', 'member joined', m));
    this.gossip.on('leave', (m) => this.onMember(m.state === 'left' ? 'memberLeft' : 'memberFailed', m.state === 'left' ? 'member left' : 'member declared dead', m));
    this.gossip.on('update', (m) => this.onMember('memberUpdated', 'member meta changed', m));
    logger.info(
      { event: 'gossipStarted', bind: formatHostPort(this.gossip.localAddress), profile: this.options.profileName, encrypted: this.options.keyring !== undefined },
      `gossip listening on ${formatHostPort(this.gossip.localAddress)}`,
    );
    await this.joinCluster();
    this.rejoinTimer = setInterval(() => void this.joinCluster(), REJOIN_INTERVAL_MS);
  }

  /** Leaves gracefully (the cluster hears "left", not "dead"), then stops everything. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.rejoinTimer) clearInterval(this.rejoinTimer);
    this.source?.stop();
    if (this.gossip) {
      const outcome = await this.gossip.leave(LEAVE_TIMEOUT_MS);
      this.options.logger.info({ event: 'gossipLeft', outcome }, `left the cluster (${outcome})`);
      await this.gossip.close();
    }
    await this.stateWrites;
  }

  private async joinCluster(): Promise<void> {
    if (!this.gossip || this.stopping) return;
    const known = await loadKnownPeers(this.options.stateDir).catch((error: Error) => {
      this.options.logger.warn({ event: 'statePeersUnreadable' }, error.message);
      return [];
    });
    const self = formatHostPort(this.gossip.localAddress);
    const targets = uniqueAddresses([...this.options.join, ...known]).filter((a) => formatHostPort(a) !== self);
    if (targets.length === 0) return;
    const result = await this.gossip.join(targets);
    const level = result.joined === 0 ? 'warn' : 'info';
    this.options.logger[level](
      { event: 'gossipJoin', joined: result.joined, tried: targets.length, errors: result.errors },
      result.joined === 0 ? `could not reach any of ${targets.length} peers; waiting for them to reach us` : `joined through ${result.joined} of ${targets.length} peers`,
    );
  }

  private onMember(event: string, message: string, member: Member): void {
    if (member.name === this.options.nodeName) return;
    this.options.logger.info(
      { event, member: member.name, addr: `${hostFromBytes(member.addr)}:${member.port}`, incarnation: member.incarnation },
      `${message}: ${member.name}`,
    );
    if (member.state === 'alive') this.stateWrites = this.stateWrites.then(() => this.rememberPeers());
  }

  /**
   * Adds the live members to the remembered ones. Peers that went away stay remembered: after a cluster-wide
   * outage the first host back must still know where the others will be.
   */
  private async rememberPeers(): Promise<void> {
    if (!this.gossip) return;
    const live = this.gossip.liveMembers()
      .filter((m) => m.name !== this.options.nodeName)
      .map((m) => ({ name: m.name, host: hostFromBytes(m.addr) ?? '', port: m.port }))
      .filter((p) => p.host !== '');
    const liveNames = new Set(live.map((p) => p.name));
    const previous = await loadKnownPeers(this.options.stateDir).catch(() => []);
    const peers = [...live, ...previous.filter((p) => !liveNames.has(p.name))];
    await saveKnownPeers(this.options.stateDir, peers).catch((error: Error) =>
      this.options.logger.warn({ event: 'stateWriteFailed' }, `cannot remember peers: ${error.message}`));
  }

  private onConfig(state: FileSourceState): void {
    const { logger } = this.options;
    if (state.stale) {
      logger.error(
        { event: 'configStale', file: this.options.configFile, errors: state.diagnostics.map(formatDiagnostic) },
        'configuration rejected: keeping the last good one',
      );
      return;
    }
    logger.info({ event: 'configLoaded', file: this.options.configFile, services: state.snapshot?.services.length }, 'configuration reloaded');
    this.gossip?.setMeta(encodeNodeMeta(nodeFacts({
      nodeName: this.options.nodeName, snapshot: state.snapshot, labels: this.options.nodeLabels, draining: false, warmingUp: false,
    })));
  }
}

function uniqueAddresses(list: readonly HostPort[]): HostPort[] {
  const seen = new Map<string, HostPort>();
  for (const a of list) seen.set(formatHostPort(a), a);
  return [...seen.values()];
}
