/**
 * What the client saw, as data: one sample per HTTP request `mlb lab probe` made, and the pure readings the demo
 * (and bench/failover) take from them: who answers now, and how long the client went without an answer when the
 * VIP moved. Failover is measured the way a user would feel it: from the last answer of the old owner to the
 * first answer of the new one, both as the client received them.
 */

export interface ProbeSample {
  /** When the answer (or the failure) arrived: epoch milliseconds on the client. */
  readonly t: number;
  /** When the request was started. */
  readonly sent: number;
  readonly ok: boolean;
  /** The answering node (the body of GET /); only when ok. */
  readonly node?: string;
  /** Why not ok: timeout, refused, unreachable, status 503, or the socket error code. */
  readonly error?: string;
}

/** A line of `mlb lab probe` output, or undefined when the line is not one (never throws: output can be torn). */
export function parseProbeLine(line: string): ProbeSample | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const v = value as Partial<ProbeSample> | null;
  if (typeof v !== 'object' || v === null || typeof v.t !== 'number' || typeof v.sent !== 'number' || typeof v.ok !== 'boolean')
    return undefined;
  return {
    t: v.t,
    sent: v.sent,
    ok: v.ok,
    ...(typeof v.node === 'string' ? { node: v.node } : {}),
    ...(typeof v.error === 'string' ? { error: v.error } : {}),
  };
}

export function formatProbeLine(sample: ProbeSample): string {
  return JSON.stringify(sample);
}

export interface Failover {
  readonly from: string;
  readonly to: string;
  /** The old owner's last answer before the new owner's first (undefined if it never answered). */
  readonly lastOldAnswer: number | undefined;
  readonly firstNewAnswer: number;
  /** firstNewAnswer - lastOldAnswer: the time the client went without the service. */
  readonly gapMs: number | undefined;
  /** Requests between the two answers that got no answer. */
  readonly failedRequests: number;
  /** Answers from the old owner after the new one answered: both were answering (the client flip-flopped). */
  readonly oldAnswersAfter: number;
}

/**
 * The first move of the service away from `from` that happened after `since` (the moment the demo hurt the
 * owner), or undefined while no other node has answered yet.
 */
export function measureFailover(samples: readonly ProbeSample[], from: string, since: number): Failover | undefined {
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  const firstNew = sorted.find((s) => s.ok && s.t >= since && s.node !== undefined && s.node !== from);
  if (!firstNew) return undefined;
  const lastOld = [...sorted].reverse().find((s) => s.ok && s.node === from && s.t <= firstNew.t);
  const failedRequests = sorted.filter((s) => !s.ok && s.t <= firstNew.t && (lastOld === undefined || s.t >= lastOld.t)).length;
  const oldAnswersAfter = sorted.filter((s) => s.ok && s.node === from && s.t > firstNew.t).length;
  return {
    from,
    to: firstNew.node as string,
    lastOldAnswer: lastOld?.t,
    firstNewAnswer: firstNew.t,
    gapMs: lastOld ? firstNew.t - lastOld.t : undefined,
    failedRequests,
    oldAnswersAfter,
  };
}

/**
 * The node that answered every request of the last `windowMs` (up to `now`), or undefined while the answers are
 * mixed, failing, too few to tell (fewer than `minSamples`), or the probe has not been watching that long.
 */
export function steadyOwner(samples: readonly ProbeSample[], now: number, windowMs: number, minSamples = 3): string | undefined {
  const start = now - windowMs;
  if (!samples.some((s) => s.t <= start)) return undefined;
  const recent = samples.filter((s) => s.t > start && s.t <= now);
  if (recent.length < minSamples) return undefined;
  const first = recent[0];
  if (!first?.ok || first.node === undefined) return undefined;
  return recent.every((s) => s.ok && s.node === first.node) ? first.node : undefined;
}

/** The node of the most recent answer after `since`, if any. */
export function latestAnswer(samples: readonly ProbeSample[], since = 0): ProbeSample | undefined {
  let latest: ProbeSample | undefined;
  for (const s of samples) if (s.ok && s.t >= since && (latest === undefined || s.t >= latest.t)) latest = s;
  return latest;
}
