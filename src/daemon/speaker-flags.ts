/**
 * This node's own election flags, published in its gossip meta: draining (`mlb drain`, kept across restarts so a
 * node drained for maintenance does not grab its IPs back when its daemon restarts), leaving (a graceful stop in
 * progress: drains without persisting), and warming up (flap damping after recent crashes, see damping/).
 *
 * The drain record (drain-record.ts) fails closed: a damaged or unreadable drain.json keeps the node drained.
 * A drain or undrain is written to disk before the node changes, so one that cannot be recorded changes nothing.
 */
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Clock, Scheduler } from '../runtime/runtime';
import type { StateFiles } from '../runtime/state-files';
import { asStateFiles } from './directory-state-files';
import { decideDrainAtStart, DRAIN_FILE, DrainRecordError, drainRecordText, type DrainFileRead } from './drain-record';
import { WarmUp } from './damping/warm-up';
import { type Log } from '../runtime/log';

/** Who asked for a drain or undrain, and its request's seq (remote-drain/drain-request-table.ts). */
export interface DrainAsker {
  readonly requestedBy: string;
  readonly seq: number;
}

/** The subset of a pino logger used here. */
/** What SpeakerFlags.load takes besides where its files are. */
export interface SpeakerFlagsOptions {
  /** Stamps drain.json and the restart history, and ends the warm-up; the real one by default. */
  readonly runtime?: Clock & Scheduler;
}

async function readDrainFile(files: StateFiles): Promise<DrainFileRead> {
  try {
    const text = await files.read(DRAIN_FILE);
    return text === undefined ? { kind: 'missing' } : { kind: 'text', text };
  } catch (error) {
    return { kind: 'unreadable', error: (error as Error).message };
  }
}

export class SpeakerFlags {
  private leaving = false;
  /** The previous drain or undrain, so calls run one after another (see setDrained). */
  private drainQueue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly files: StateFiles,
    private readonly clock: Clock,
    private drained: boolean,
    /** The request the recorded drain or undrain came from (undefined: none recorded). */
    private applied: DrainAsker | undefined,
    /** drain.json was damaged or unreadable at start: the next drain or undrain rewrites it. */
    private recordFaulty: boolean,
    private readonly warmUp: WarmUp,
    private readonly logger: Log,
    private readonly onChange: () => void,
  ) {}

  /**
   * Reads drain.json and starts the warm-up. `state`: the --state-dir path (what the daemon passes today) or the
   * node's StateFiles.
   */
  static async load(
    state: string | StateFiles,
    startedAt: number,
    logger: Log,
    onChange: () => void,
    options: SpeakerFlagsOptions = {},
  ): Promise<SpeakerFlags> {
    const files = asStateFiles(state);
    const runtime = options.runtime ?? REAL_RUNTIME;
    const path = files.pathOf(DRAIN_FILE);
    const atStart = decideDrainAtStart(path, await readDrainFile(files));
    if (atStart.recordFaulty) logger.error({ event: 'drainRecordDamaged', file: path, reason: atStart.code }, atStart.reason);
    else if (atStart.drained) logger.warn({ event: 'nodeDrained', since: atStart.since, file: path }, atStart.reason);
    const warmUp = await WarmUp.start({ stateFiles: files, startedAt, logger, onEnd: () => onChange(), runtime });
    return new SpeakerFlags(files, runtime, atStart.drained, atStart.request, atStart.recordFaulty, warmUp, logger, onChange);
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
    const path = this.files.pathOf(DRAIN_FILE);
    try {
      await this.files.writeAtomic(DRAIN_FILE, drainRecordText(drained, new Date(this.clock.now()), asker));
    } catch (error) {
      const state = this.drained ? 'still drained' : 'still taking part in elections';
      const failure = new DrainRecordError(
        'drainNotRecorded',
        `cannot record the ${drained ? 'drain' : 'undrain'} in ${path} (${(error as Error).message}): nothing changed, this node is ${state}`,
      );
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
