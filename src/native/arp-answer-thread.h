// The ARP fast path's own thread: answers plain ARP requests for the owned table on a packet socket of its own,
// so that the answer never waits for Node's event loop. A loop busy with other work (binding thousands of VIPs, an
// election, parsing a big YAML file, a garbage collection) used to hold every reply for as long as it was busy:
// with 10,000 VIPs the daemon's replies took tens of milliseconds and some were lost. The thread blocks in poll(2)
// and does nothing else: receive, look the target up in a hash set, send the prebuilt reply.
//
// The table is shared with the main thread (setArpFastPath replaces it, changeArpFastPath edits it) under one
// mutex held for a lookup or an edit, never across a system call. The main socket (packet-socket.cc) still sees
// every frame: it leaves the ones this thread answers (ArpFastPathReply says yes with the same table) and hands the
// rest to JS, so only one reply goes out per request.
#ifndef MLB_ARP_ANSWER_THREAD_H_
#define MLB_ARP_ANSWER_THREAD_H_

#include "arp-answer-times.h"
#include "arp-fast-path.h"
#include "pi-mutex.h"

#include <atomic>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace mlb {

struct ArpFastPathCounts {
  uint64_t requests = 0;
  uint64_t replies = 0;
  uint64_t sendFailures = 0;
};

// What the main thread and the answer thread share. `on` false: nothing is answered by either.
struct ArpFastPathShared {
  PriorityInheritanceMutex mutex;  // the answer thread is real-time: see pi-mutex.h
  bool on = false;
  ArpFastPathTable table;
  std::unordered_map<uint32_t, ArpFastPathCounts> counts;  // per IP, cumulative since the socket opened
  ArpAnswerTimes times;  // the answer thread's answers only, cumulative since the socket opened
};

// When the answer thread read a request: the kernel's receive stamp (tv_sec < 0: none) and its own read, both
// CLOCK_REALTIME, for the answer times (arp-answer-times.h).
struct AnswerStamps {
  timespec received;
  timespec read;
};

// Sends a reply ArpFastPathReply built (its first six bytes are the requester's MAC) on `fd` out of `ifindex`,
// and counts it for `targetIp`: the one way out for both the answer thread and the main socket's fallback. With
// `stamps` (the answer thread's), also times it, under the same lock as the count.
void SendArpReplyAndCount(int fd, int ifindex, const uint8_t* reply, size_t length, uint32_t targetIp,
                          ArpFastPathShared& shared, const AnswerStamps* stamps = nullptr);

class ArpAnswerThread {
 public:
  // Opens a packet socket on `ifindex` for ARP and starts answering; returns nullptr (errno set) when the socket
  // or the thread cannot be made, in which case the main socket's loop keeps answering as before.
  static std::unique_ptr<ArpAnswerThread> Start(int ifindex, int receiveBufferBytes,
                                                std::shared_ptr<ArpFastPathShared> shared);
  // Wakes the thread, joins it, closes its descriptors.
  ~ArpAnswerThread();
  ArpAnswerThread(const ArpAnswerThread&) = delete;
  ArpAnswerThread& operator=(const ArpAnswerThread&) = delete;

  // False once the thread has stopped on its own (a poll(2) failure): the main socket answers again then.
  bool running() const { return running_.load(std::memory_order_acquire); }

 private:
  ArpAnswerThread(int fd, int wake, int ifindex, std::shared_ptr<ArpFastPathShared> shared);
  void Run();
  // Answers `frame` when the table says so, and times the answer from `stamps`.
  void Answer(const uint8_t* frame, size_t length, int pkttype, const AnswerStamps& stamps);

  int fd_;
  int wake_;  // eventfd: written once to stop the thread
  int ifindex_;
  std::shared_ptr<ArpFastPathShared> shared_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

}  // namespace mlb

#endif  // MLB_ARP_ANSWER_THREAD_H_
