/**
 * What `mlb lab demo` and `mlb lab demo --bgp` share around their own steps: lines stamped with the time since the
 * demo started, building the lab with its progress indented, Ctrl-C removing the lab (even half-built), a failed step
 * ending the demo with the logs' last lines, and the lab removed at the end unless --keep. Each demo keeps its steps
 * and its sentences; this file only runs them.
 */
import { readFile } from 'node:fs/promises';
import { Lab, type LabUpOptions } from './lab';
import type { LabPlan } from './lab-plan';
import { labSummary, logExcerpt, seconds, timestamp } from './narration';

/** Lines of each log shown when a step fails. */
const FAILURE_LOG_LINES = 8;

export interface DemoRunnerOptions {
  readonly name?: string;
  readonly dir?: string;
  /** Leave the lab up at the end. */
  readonly keep: boolean;
  readonly write: (line: string) => void;
  readonly now?: () => number;
}

/** What differs between the demos at their end. */
export interface DemoEnding {
  /** The logs whose last lines a failed step shows. */
  readonly failureLogs: (plan: LabPlan) => readonly string[];
  /** The --keep line: how to look at the lab that stays up, and how to remove it. */
  readonly keptText: (plan: LabPlan) => string;
}

/** The lab options a demo chooses; name, dir and progress come from the runner. */
export type DemoLabOptions = Omit<LabUpOptions, 'name' | 'dir' | 'onProgress'>;

export class DemoRunner {
  readonly now: () => number;
  private readonly started: number;
  private lab: Lab | undefined;
  private interrupted = false;

  constructor(private readonly options: DemoRunnerOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  /**
   * Runs `steps`; true when they all did what they should. A failing step is said with the logs' last lines; after
   * Ctrl-C nothing more is said (interrupt() removes the lab). The lab is removed unless --keep.
   */
  async run(steps: () => Promise<void>, ending: DemoEnding): Promise<boolean> {
    let ok = false;
    try {
      await steps();
      ok = true;
    } catch (error) {
      if (this.interrupted) return false;
      this.say(`the demo stopped: ${error instanceof Error ? error.message : String(error)}`);
      if (this.lab) await this.showLogs(ending.failureLogs(this.lab.plan));
    }
    await this.finish(ending);
    return ok;
  }

  /** Ctrl-C: remove the lab (even half-built) and say so. */
  async interrupt(): Promise<void> {
    this.interrupted = true;
    this.say('interrupted: removing the lab');
    const report = this.lab ? await this.lab.down() : await Lab.downByName({ name: this.options.name, dir: this.options.dir });
    this.say(`removed ${report.namespaces.length} namespaces`);
  }

  /** Builds the lab: `what` first, Lab.up's progress indented, then `summary` with the time it took. */
  async up(what: string, options: DemoLabOptions, summary: (plan: LabPlan, elapsedMs: number) => string = labSummary): Promise<Lab> {
    const { name, dir } = this.options;
    this.say(what);
    const t = this.now();
    this.lab = await Lab.up({ ...options, name, dir, onProgress: (line) => this.say(`  ${line}`) });
    this.say(summary(this.lab.plan, this.now() - t));
    return this.lab;
  }

  /** One narrated line, stamped with the time since the demo started. */
  say(text: string): void {
    this.options.write(`${timestamp(this.now() - this.started)} ${text}`);
  }

  private async finish(ending: DemoEnding): Promise<void> {
    const lab = this.lab;
    if (!lab) return;
    if (this.options.keep) {
      await lab.stopProbes();
      this.say(ending.keptText(lab.plan));
      return;
    }
    const t = this.now();
    const report = await lab.down();
    this.say(`lab removed: ${report.namespaces.length} namespaces deleted in ${seconds(this.now() - t)} s`);
  }

  private async showLogs(files: readonly string[]): Promise<void> {
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of logExcerpt(`  ${file}`, text, FAILURE_LOG_LINES)) this.options.write(line);
    }
  }
}
