// PriorityInheritanceMutex: a mutex whose holder inherits the priority of its highest waiter
// (pthread_mutexattr_setprotocol(3), PTHREAD_PRIO_INHERIT; Linux implements it with PI futexes).
//
// The ARP answer thread runs SCHED_FIFO (arp-answer-thread.cc) and shares the fast path's table with Node's main
// thread, an ordinary CFS task. With a plain mutex, a main thread preempted while holding it (a busy host: thousands
// of VIPs being bound, the kernel's own work on both cores) keeps the real-time thread waiting for whole timeslices:
// priority inversion, milliseconds added to an answer. With inheritance the holder runs at the waiter's priority
// until it unlocks, so a request waits at most for the lookup or edit in progress. BasicLockable, so
// std::lock_guard takes it. Where the protocol cannot be set it is a plain mutex, as before.
#ifndef MLB_PI_MUTEX_H_
#define MLB_PI_MUTEX_H_

#include <pthread.h>

namespace mlb {

class PriorityInheritanceMutex {
 public:
  PriorityInheritanceMutex() {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    bool inherits = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT) == 0;
    if (!inherits || pthread_mutex_init(&mutex_, &attr) != 0) pthread_mutex_init(&mutex_, nullptr);
    pthread_mutexattr_destroy(&attr);
  }
  ~PriorityInheritanceMutex() { pthread_mutex_destroy(&mutex_); }
  PriorityInheritanceMutex(const PriorityInheritanceMutex&) = delete;
  PriorityInheritanceMutex& operator=(const PriorityInheritanceMutex&) = delete;

  void lock() { pthread_mutex_lock(&mutex_); }
  void unlock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t mutex_;
};

}  // namespace mlb

#endif  // MLB_PI_MUTEX_H_
