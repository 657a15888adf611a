/**
 * How long the addon's ARP answer thread takes per request, in two stages (src/native/arp-answer-times.h says what
 * each covers): histograms with fixed bucket bounds, cumulative, summed over the announcer's sockets. A socket
 * closed and opened again starts at zero in the addon; what it had is already folded in here (foldAnswerTimes), so
 * the sum only grows, as a Prometheus histogram must. Pure.
 */

import type { AnswerStageTimes, ArpAnswerTimes } from '../../native';

export type { AnswerStageTimes, ArpAnswerTimes } from '../../native';

export const ANSWER_STAGES = ['queued', 'answering'] as const;

/** `total` plus what `now` counted since `before` (one socket's readings; `before` undefined: nothing yet). */
export function foldAnswerTimes(total: ArpAnswerTimes | undefined, now: ArpAnswerTimes, before?: ArpAnswerTimes): ArpAnswerTimes {
  const base = total ?? emptyLike(now);
  const stage = (name: (typeof ANSWER_STAGES)[number]): AnswerStageTimes => ({
    counts: base[name].counts.map((c, i) => c + Math.max(0, (now[name].counts[i] ?? 0) - (before?.[name].counts[i] ?? 0))),
    sumSeconds: base[name].sumSeconds + Math.max(0, now[name].sumSeconds - (before?.[name].sumSeconds ?? 0)),
  });
  return { boundsSeconds: base.boundsSeconds, queued: stage('queued'), answering: stage('answering') };
}

function emptyLike(times: ArpAnswerTimes): ArpAnswerTimes {
  const empty = (): AnswerStageTimes => ({ counts: times.queued.counts.map(() => 0), sumSeconds: 0 });
  return { boundsSeconds: [...times.boundsSeconds], queued: empty(), answering: empty() };
}
