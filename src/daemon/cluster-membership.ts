/**
 * Keeping this node in the cluster: the first join, rejoining known peers that are not live (a host whose link
 * came back, a healed partition), and remembering every peer seen alive under --state-dir, so a restart (or the
 * first host back after a cluster-wide outage) knows where the others are without --join.
 */
import type { Logger } from 'pino';
import type { GossipNode } from '../gossip/gossip-node';
import type { Member } from '../gossip/swim';
import { formatHostPort, hostFromBytes, type HostPort } from '../gossip/transport/address';
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Scheduler, Timer } from '../runtime/runtime';
import type { StateFiles } from '../runtime/state-files';
import { stateFilesOf, type StateFilesOption } from './directory-state-files';
import { loadKnownPeers, saveKnownPeers } from './known-peers';

/**
 * MetalLB rejoins its seeds every minute (speakerlist.go), healing partitions longer than memberlist's memory of
 * dead nodes. mlb retries only the known peers that are not live members, so it can afford to do it every 5 s:
 * a host whose link came back would otherwise answer for "its" IPs beside their new owners for up to a minute.
 */
export const REJOIN_INTERVAL_MS = 5_000;

/** `stateDir` (the --state-dir path) or `stateFiles` (the node's store): where known-peers.json lives. */
export type ClusterMembershipOptions = StateFilesOption & {
  /** What it joins through and asks for live members. */
  readonly gossip: Pick<GossipNode, 'join' | 'liveMembers' | 'localAddress'>;
  readonly self: string;
  /** --join. */
  readonly seeds: readonly HostPort[];
  readonly logger: Logger;
  /** The rejoin timer (every REJOIN_INTERVAL_MS); the real one by default. */
  readonly runtime?: Scheduler;
};

export class ClusterMembership {
  private timer: Timer | undefined;
  private lastOutcome: string | undefined;
  private stopped = false;
  /** The join running now: one at a time; a rejoin asked for meanwhile runs once after it. */
  private joining: Promise<void> | undefined;
  private joinAgain = false;
  /** State writes run one after another; flush() waits for the last: a restart must find what we saw. */
  private writes: Promise<void> = Promise.resolve();

  private readonly files: StateFiles;

  constructor(private readonly options: ClusterMembershipOptions) {
    this.files = stateFilesOf(options);
  }

  /** Joins once (resolves when that attempt is over), then keeps rejoining missing peers. */
  async start(): Promise<void> {
    await this.joinOnce();
    if (!this.stopped) this.timer = (this.options.runtime ?? REAL_RUNTIME).every(REJOIN_INTERVAL_MS, () => this.rejoin());
  }

  /**
   * Joins the seeds and known peers that are not live members now, without waiting for the timer: a new seed
   * appeared (a speaker pod started) or this node changed (MetalLB's Rejoin). Never two joins at once.
   */
  rejoin(): void {
    if (this.stopped) return;
    if (this.joining) {
      this.joinAgain = true;
      return;
    }
    this.joinOnce().catch((error: Error) => this.options.logger.warn({ event: 'gossipJoin' }, `rejoin failed: ${error.message}`));
  }

  private async joinOnce(): Promise<void> {
    this.joining = this.join();
    try {
      await this.joining;
    } finally {
      this.joining = undefined;
      if (this.joinAgain) {
        this.joinAgain = false;
        this.rejoin();
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** A member became alive: remember it (and keep those that went away: they may come back). */
  memberAlive(member: Member): void {
    if (member.name !== this.options.self) this.writes = this.writes.then(() => this.remember());
  }

  flush(): Promise<void> {
    return this.writes;
  }

  private async join(): Promise<void> {
    const { gossip, logger } = this.options;
    if (this.stopped) return;
    const known = await loadKnownPeers(this.files).catch((error: Error) => {
      logger.warn({ event: 'statePeersUnreadable' }, error.message);
      return [];
    });
    const self = formatHostPort(gossip.localAddress);
    const live = new Set(gossip.liveMembers().map((m) => formatHostPort({ host: hostFromBytes(m.addr) ?? '', port: m.port })));
    const candidates = uniqueAddresses([...this.options.seeds, ...known]).filter((a) => formatHostPort(a) !== self);
    const targets = candidates.filter((a) => !live.has(formatHostPort(a)));
    if (targets.length === 0) {
      // The peers reached this node first (a Kubernetes speaker's peers join its pod as soon as it runs): the join
      // is over all the same, and the line that says so is what operators and tools wait for.
      const n = candidates.length;
      const message = n === 1 ? 'the peer joined this node first' : `all ${n} peers joined this node first`;
      if (n > 0) this.logJoin('alreadyMembers', 0, 0, [], message);
      return;
    }
    const result = await gossip.join(targets);
    this.logJoin(
      `${result.joined}/${targets.length}`,
      result.joined,
      targets.length,
      result.errors,
      result.joined === 0
        ? `could not reach any of ${targets.length} peers; waiting for them to reach us`
        : `joined through ${result.joined} of ${targets.length} peers`,
    );
  }

  /** Retried every few seconds while peers are away: said at info when the outcome changes, else at debug. */
  private logJoin(outcome: string, joined: number, tried: number, errors: unknown, message: string): void {
    const level = outcome === this.lastOutcome ? 'debug' : joined === 0 && tried > 0 ? 'warn' : 'info';
    this.lastOutcome = outcome;
    this.options.logger[level]({ event: 'gossipJoin', joined, tried, errors }, message);
  }

  private async remember(): Promise<void> {
    const live = this.options.gossip
      .liveMembers()
      .filter((m) => m.name !== this.options.self)
      .map((m) => ({ name: m.name, host: hostFromBytes(m.addr) ?? '', port: m.port }))
      .filter((p) => p.host !== '');
    const liveNames = new Set(live.map((p) => p.name));
    const previous = await loadKnownPeers(this.files).catch(() => []);
    const peers = [...live, ...previous.filter((p) => !liveNames.has(p.name))];
    await saveKnownPeers(this.files, peers).catch((error: Error) =>
      this.options.logger.warn({ event: 'stateWriteFailed' }, `cannot remember peers: ${error.message}`),
    );
  }
}

function uniqueAddresses(list: readonly HostPort[]): HostPort[] {
  const seen = new Map<string, HostPort>();
  for (const a of list) seen.set(formatHostPort(a), a);
  return [...seen.values()];
}
