// ArpAnswerTimes: how long the ARP answer thread (arp-answer-thread.h) takes over each request it answers, in two
// stages, as cumulative histograms the daemon exposes (mlb_arp_fast_path_answer_seconds):
//
//   queued     from the kernel's receive timestamp of the request (SO_TIMESTAMPNS: taken when the frame entered the
//              stack, before the softirq that queues it on the socket) to the thread reading it: the softirq's
//              delay and the thread's wake-up, which the kernel's own ARP answer (in softirq, no task to wake)
//              shares only the first of;
//   answering  from that read to sendto(2) returning: the table lookup (with any wait for the mutex) and the send.
//
// What a client sees beyond these (its own stack, the wire, the reply's way back) is the same for the kernel's
// answers; so a slow answer that the stages do not show is the machine's, not the thread's.
#ifndef MLB_ARP_ANSWER_TIMES_H_
#define MLB_ARP_ANSWER_TIMES_H_

#include <cstddef>
#include <cstdint>

namespace mlb {

// Upper bounds of the buckets, in nanoseconds (a last, unbounded bucket follows): from the 5 us of a thread woken on
// an idle core to the 50 ms past which an ARP client has long retried.
constexpr int64_t kAnswerTimeBoundsNanos[] = {5'000,     10'000,    20'000,    50'000,     100'000,    200'000,
                                              500'000,   1'000'000, 2'000'000, 5'000'000, 10'000'000, 50'000'000};
constexpr size_t kAnswerTimeBuckets = sizeof kAnswerTimeBoundsNanos / sizeof kAnswerTimeBoundsNanos[0] + 1;

struct AnswerStageHistogram {
  uint64_t counts[kAnswerTimeBuckets] = {};  // per bucket, not cumulative
  uint64_t sumNanos = 0;

  void Observe(int64_t nanos) {
    if (nanos < 0) nanos = 0;  // a receive stamp ahead of our clock read: the clock was stepped
    size_t bucket = 0;
    while (bucket + 1 < kAnswerTimeBuckets && nanos > kAnswerTimeBoundsNanos[bucket]) bucket++;
    counts[bucket]++;
    sumNanos += static_cast<uint64_t>(nanos);
  }
};

struct ArpAnswerTimes {
  AnswerStageHistogram queued;
  AnswerStageHistogram answering;
};

}  // namespace mlb

#endif  // MLB_ARP_ANSWER_TIMES_H_
