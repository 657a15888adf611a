/**
 * bench/scale's ARP load: bench/arp's generator (bench/arp/generator.ts) in the client namespace, asked for the
 * daemon's VIPs (random among them, one per request) or for the node kernel's own address, every request recorded
 * (arp-samples.ts decodes and classifies them).
 */
import { fileURLToPath } from 'node:url';
import type { LabHost, NetnsLab } from '../../test/support/netns-lab';
import type { PerRequest } from '../arp/generator';
import { JsonChild } from '../arp/json-child';
import { decodeRequests, type RequestLog } from './arp-samples';

const GENERATOR = fileURLToPath(new URL('../arp/generator.ts', import.meta.url));
/** A request without a reply within this long is lost (bench/arp's rule). */
export const ARP_TIMEOUT_MS = 100;
/** Slack on top of a run's own length for the generator to answer (its start, the JSON of every request). */
const REPLY_SLACK_MS = 15_000;

export interface ArpRun {
  readonly sent: number;
  readonly achievedRate: number;
  readonly duplicates: number;
  readonly repliers: Record<string, number>;
  readonly log: RequestLog;
}

export class ArpLoad {
  private tag = 0;

  private constructor(private readonly generator: JsonChild) {}

  /** `cpu`: pinned there; the generator spins on its core while it sends (see generator.ts). */
  static async start(lab: NetnsLab, client: LabHost, cpu: number | undefined): Promise<ArpLoad> {
    return new ArpLoad(await JsonChild.start(lab, client, 'ARP generator', GENERATOR, cpu === undefined ? {} : { cpu }));
  }

  /**
   * `count` requests at `rate` per second, each for one of `targets` (random). `untilReply` stops at the first
   * answer; `spin: false` paces on a timer (generator.ts), leaving the generator's core to the daemon.
   */
  async run(
    targets: readonly string[],
    rate: number,
    count: number,
    options: { untilReply?: boolean; spin?: boolean } = {},
  ): Promise<ArpRun> {
    this.tag = (this.tag % 255) + 1;
    const expectedMs = (count / rate) * 1_000 + ARP_TIMEOUT_MS;
    const reply = await this.generator.call(
      { op: 'run', targets, rate, count, timeoutMs: ARP_TIMEOUT_MS, tag: this.tag, perRequest: true, ...options },
      expectedMs * 2 + REPLY_SLACK_MS,
    );
    const result = reply as unknown as Omit<ArpRun, 'log'> & { perRequest: PerRequest };
    return {
      sent: result.sent,
      achievedRate: result.achievedRate,
      duplicates: result.duplicates,
      repliers: result.repliers,
      log: decodeRequests(result.perRequest),
    };
  }

  stop(): void {
    this.generator.stop();
  }
}
