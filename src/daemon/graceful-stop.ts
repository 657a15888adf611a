/**
 * The graceful stop's step runner: every step runs even when an earlier one failed (a failed VIP removal must
 * not keep the node in the cluster, nor lose its state), each failure is logged as it happens, and the caller
 * learns which steps failed so the process can exit non-zero saying so.
 */
import type { Logger } from 'pino';
import { CodedError } from '../errors/coded-error';

/** Some steps of a graceful stop failed (each was logged as stopStepFailed); the others still ran. */
export class StopError extends CodedError<'stopIncomplete'> {
  constructor(readonly failedSteps: readonly string[]) {
    super('stopIncomplete', `the graceful stop was incomplete: ${failedSteps.join('; ')}`);
  }
}

export type StopStep = readonly [name: string, run: () => unknown];

/** Runs the steps in order; throws StopError naming the failed ones once all have run. */
export async function runStopSteps(steps: readonly StopStep[], logger: Logger): Promise<void> {
  const failed: string[] = [];
  for (const [name, run] of steps) {
    try {
      await run();
    } catch (error) {
      failed.push(`${name}: ${(error as Error).message}`);
      logger.error(
        { event: 'stopStepFailed', step: name, error: (error as Error).stack },
        `stopping: ${name} failed; carrying on with the rest`,
      );
    }
  }
  if (failed.length > 0) throw new StopError(failed);
}
