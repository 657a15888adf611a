/**
 * This node's own election flags, published in its gossip meta: draining (`mlb drain`, kept across restarts so a
 * node drained for maintenance does not grab its IPs back when its daemon restarts), leaving (a graceful stop in
 * progress: drains without persisting), and warming up (flap damping after recent crashes, see damping/).
 *
 * The drain record (drain-record.ts) fails closed: a damaged or unreadable drain.json keeps the node drained.
 * A drain or undrain is written to disk before the node changes, so one that cannot be recorded changes nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './state-dir';
import { decideDrainAtStart, DRAIN_FILE, DrainRecordError, drainRecordText, type DrainFileRead } from './drain-record';
import { WarmUp, type WarmUpLogger } from './damping/warm-up';

/** Who asked for a drain or undrain, and its request's seq (remote-drain/drain-request-table.ts). */
export interface DrainAsker {
  readonly requestedBy: string;
  readonly seq: number;
}

/** The subset of a pino logger used here. */
export interface FlagsLogger extends WarmUpLogger {
  error(fields: object, msg?: string): void;
}

async function readDrainFile(path: string): Promise<DrainFileRead> {
  try {
    return { kind: 'text', text: await readFile(path, 'utf8') };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return e.code === 'ENOENT' ? { kind: 'missing' } : { kind: 'unreadable', error: e.message };
  }
}

export class SpeakerFlags {
  private leaving = false;
  /** The previous drain or undrain, so calls run one after another (see setDrained). */
  private drainQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly stateDir: string,
    private drained: boolean,
    /** The request the recorded drain or undrain came from (undefined: none recorded). */
    private applied: DrainAsker | undefined,
    /** drain.json was damaged or unreadable at start: the next drain or undrain rewrites it. */
    private recordFaulty: boolean,
    private readonly warmUp: WarmUp,
    private readonly logger: FlagsLogger,
    private readonly onChange: () => void,
  ) {}

  static async load(stateDir: string, startedAt: number, logger: FlagsLogger, onChange: () => void): Promise<SpeakerFlags> {
    const path = join(stateDir, DRAIN_FILE);
    const atStart = decideDrainAtStart(path, await readDrainFile(path));
    if (atStart.recordFaulty) logger.error({ event: 'drainRecordDamaged', file: path, reason: atStart.code }, atStart.reason);
    else if (atStart.drained) logger.warn({ event: 'nodeDrained', since: atStart.since, file: path }, atStart.reason);
    const warmUp = await WarmUp.start({ stateDir, startedAt, logger, onEnd: () => onChange() });
    return new SpeakerFlags(stateDir, atStart.drained, atStart.request, atStart.recordFaulty, warmUp, logger, onChange);
  }

  /** Published as meta's draining flag: drained by an operator, or stopping. */
  get draining(): boolean {
    return this.drained || this.leaving;
  }

  get isDrained(): boolean {
    return this.drained;
  }

  /** The request the current drain state came from, as drain.json records it (undefined: none recorded). */
  get appliedRequest(): DrainAsker | undefined {
    return this.applied;
  }

  get isLeaving(): boolean {
    return this.leaving;
  }

  get warmingUp(): boolean {
    return this.warmUp.active;
  }

  /** `mlb warmup end`: ends this node's warm-up now; false when it was not warming up. */
  endWarmUp(): boolean {
    return this.warmUp.endNow();
  }

  /** When the warm-up ends (epoch ms), undefined when not warming up. */
  get warmUpUntil(): number | undefined {
    return this.warmUp.until;
  }

  /**
   * `mlb drain` (true) and `mlb undrain` (false). drain.json is written first and the node changes only once the
   * record is on disk: one that cannot be written rejects with DrainRecordError and changes nothing, so memory and
   * disk never disagree. Calls run one after another: the last one asked is the one on disk, and two never share
   * the temporary file. Resolves with whether the node's state changed. `asker`: the request it comes from, recorded
   * with it (a request that does not change the state is still recorded, so its replay is known as one).
   */
  setDrained(drained: boolean, asker?: DrainAsker): Promise<boolean> {
    const run = this.drainQueue.catch(() => undefined).then(() => this.applyDrained(drained, asker));
    this.drainQueue = run;
    return run;
  }

  async setLeaving(): Promise<void> {
    if (this.leaving) return;
    this.leaving = true;
    this.onChange();
  }

  /** The daemon has started serving: from now on an end without markCleanStop counts as a crash (damping/). */
  async markRunning(): Promise<void> {
    await this.warmUp.markRunning();
  }

  async markCleanStop(): Promise<void> {
    await this.warmUp.markCleanStop();
    this.warmUp.close();
  }

  private async applyDrained(drained: boolean, asker: DrainAsker | undefined): Promise<boolean> {
    const newAsker = asker !== undefined && (asker.requestedBy !== this.applied?.requestedBy || asker.seq !== this.applied.seq);
    if (this.drained === drained && !this.recordFaulty && !newAsker) return false;
    const path = join(this.stateDir, DRAIN_FILE);
    try {
      await writeFileAtomic(path, drainRecordText(drained, new Date(), asker));
    } catch (error) {
      const state = this.drained ? 'still drained' : 'still taking part in elections';
      const failure = new DrainRecordError('drainNotRecorded', `cannot record the ${drained ? 'drain' : 'undrain'} in ${path} (${(error as Error).message}): nothing changed, this node is ${state}`);
      this.logger.error({ event: 'drainNotRecorded', file: path, drained: this.drained }, failure.message);
      throw failure;
    }
    if (this.recordFaulty) this.logger.info({ event: 'drainRecordRewritten', file: path, drained }, `${path} rewritten`);
    this.recordFaulty = false;
    this.applied = asker;
    if (this.drained === drained) return false;
    this.drained = drained;
    const by = asker === undefined ? '' : ` (asked by ${asker.requestedBy})`;
    this.logger.info(
      { event: drained ? 'nodeDrained' : 'nodeUndrained', ...(asker ? { requestedBy: asker.requestedBy, seq: asker.seq } : {}) },
      drained ? `drained${by}: handing every IP to other nodes` : `undrained${by}: taking part in elections again`,
    );
    this.onChange();
    return true;
  }
}
