/**
 * This node's own election flags, published in its gossip meta: draining (`mlb drain`, kept across restarts so a
 * node drained for maintenance does not grab its IPs back when its daemon restarts), leaving (a graceful stop in
 * progress: drains without persisting), and warming up (flap damping after recent restarts, see damping/).
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { readJSONState, writeFileAtomic } from './state-dir';
import { WarmUp } from './damping/warm-up';

const DRAIN_FILE = 'drain.json';

interface DrainRecord {
  readonly drained: boolean;
  readonly since: string;
}

function isDrainRecord(v: unknown): v is DrainRecord {
  return typeof v === 'object' && v !== null && typeof (v as DrainRecord).drained === 'boolean';
}

export class SpeakerFlags {
  private leaving = false;

  private constructor(
    private readonly stateDir: string,
    private drained: boolean,
    private readonly warmUp: WarmUp,
    private readonly logger: Logger,
    private readonly onChange: () => void,
  ) {}

  static async load(stateDir: string, startedAt: number, logger: Logger, onChange: () => void): Promise<SpeakerFlags> {
    const record = await readJSONState(join(stateDir, DRAIN_FILE), isDrainRecord).catch((error: Error) => {
      logger.warn({ event: 'stateDrainUnreadable' }, `${error.message}: starting undrained`);
      return undefined;
    });
    if (record?.drained) logger.warn({ event: 'nodeDrained', since: record.since }, `this node was drained on ${record.since}: it takes no IPs until \`mlb undrain\``);
    const warmUp = await WarmUp.start({ stateDir, startedAt, logger, onEnd: () => onChange() });
    return new SpeakerFlags(stateDir, record?.drained ?? false, warmUp, logger, onChange);
  }

  /** Published as meta's draining flag: drained by an operator, or stopping. */
  get draining(): boolean {
    return this.drained || this.leaving;
  }

  get isDrained(): boolean {
    return this.drained;
  }

  get isLeaving(): boolean {
    return this.leaving;
  }

  get warmingUp(): boolean {
    return this.warmUp.active;
  }

  /** When the warm-up ends (epoch ms), undefined when not warming up. */
  get warmUpUntil(): number | undefined {
    return this.warmUp.until;
  }

  /** Returns whether anything changed. */
  async setDrained(drained: boolean): Promise<boolean> {
    if (this.drained === drained) return false;
    this.drained = drained;
    await writeFileAtomic(join(this.stateDir, DRAIN_FILE), JSON.stringify({ drained, since: new Date().toISOString() }));
    this.logger.info({ event: drained ? 'nodeDrained' : 'nodeUndrained' }, drained ? 'drained: handing every IP to other nodes' : 'undrained: taking part in elections again');
    this.onChange();
    return true;
  }

  async setLeaving(): Promise<void> {
    if (this.leaving) return;
    this.leaving = true;
    this.onChange();
  }

  async markCleanStop(): Promise<void> {
    await this.warmUp.markCleanStop();
    this.warmUp.close();
  }
}
