// ArpAnswerThread (arp-answer-thread.h): the fast path's receive-and-answer loop, off Node's event loop.
#include "arp-answer-thread.h"

#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mlb {

namespace {

// Largest frame read: an ARP request is 42 octets (60 padded); anything longer than an Ethernet frame is not one
// this path answers, and is read truncated and skipped.
constexpr size_t kFrameBytes = 1536;
// The thread's scheduling. The kernel answers ARP in softirq, with no task to wake; a user-space answer waits for
// its thread to be scheduled, which on a busy host (every core loaded) took a CFS timeslice, ~10 ms, per request.
// SCHED_FIFO at the lowest real-time priority runs it as soon as a request arrives, ahead of ordinary tasks and
// behind every real-time one, as keepalived runs its VRRP process (vrrp_rt_priority). Its work per request is a
// hash lookup and one sendto(2); the kernel's real-time throttling (sched_rt_runtime_us) still bounds a flood.
// Without CAP_SYS_NICE: a high nice priority instead, then the default.
constexpr int kRealTimePriority = 1;
constexpr int kFallbackNice = -10;

void RaiseSchedulingPriority() {
  sched_param param{};
  param.sched_priority = kRealTimePriority;
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0) return;
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kFallbackNice);
}

int OpenArpSocket(int ifindex, int receiveBufferBytes) {
  // Protocol 0 until bind(2): nothing from another interface is queued in between (as packet-socket.cc does).
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);  // our own replies are not requests
  // Each request's kernel receive stamp, for the answer times (arp-answer-times.h); without it they are not kept.
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  if (receiveBufferBytes > 0 &&
      setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &receiveBufferBytes, sizeof receiveBufferBytes) < 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receiveBufferBytes, sizeof receiveBufferBytes);
  }
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ARP);
  addr.sll_ifindex = ifindex;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// The kernel's receive stamp of a frame read with recvmsg(2) (SCM_TIMESTAMPNS), or tv_sec -1 when there is none.
timespec ReceiveStamp(msghdr& message) {
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec stamp;
    std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
    return stamp;
  }
  return timespec{-1, 0};
}

int64_t NanosBetween(const timespec& from, const timespec& to) {
  return (static_cast<int64_t>(to.tv_sec) - from.tv_sec) * 1'000'000'000 + (to.tv_nsec - from.tv_nsec);
}

}  // namespace

std::unique_ptr<ArpAnswerThread> ArpAnswerThread::Start(int ifindex, int receiveBufferBytes,
                                                        std::shared_ptr<ArpFastPathShared> shared) {
  int fd = OpenArpSocket(ifindex, receiveBufferBytes);
  if (fd < 0) return nullptr;
  int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    close(fd);
    return nullptr;
  }
  try {
    return std::unique_ptr<ArpAnswerThread>(new ArpAnswerThread(fd, wake, ifindex, std::move(shared)));
  } catch (...) {  // std::system_error: no thread could be created
    close(fd);
    close(wake);
    return nullptr;
  }
}

ArpAnswerThread::ArpAnswerThread(int fd, int wake, int ifindex, std::shared_ptr<ArpFastPathShared> shared)
    : fd_(fd), wake_(wake), ifindex_(ifindex), shared_(std::move(shared)), thread_([this] { Run(); }) {}

ArpAnswerThread::~ArpAnswerThread() {
  uint64_t one = 1;
  ssize_t ignored = write(wake_, &one, sizeof one);
  (void)ignored;
  if (thread_.joinable()) thread_.join();
  close(fd_);
  close(wake_);
}

// The thread's name in ps, top -H and the kernel's scheduler traces (at most 15 characters).
constexpr char kThreadName[] = "mlb-arp-answer";

void ArpAnswerThread::Run() {
  pthread_setname_np(pthread_self(), kThreadName);
  RaiseSchedulingPriority();
  uint8_t frame[kFrameBytes];
  pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_, POLLIN, 0}};
  for (;;) {
    int ready = poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents != 0) break;
    if (fds[0].revents & POLLERR) {
      // A pending socket error (ENETDOWN while the link is down): reading SO_ERROR clears it. The main socket
      // reports it to JS; this thread just keeps answering once the link is back.
      int pending = 0;
      socklen_t length = sizeof pending;
      getsockopt(fd_, SOL_SOCKET, SO_ERROR, &pending, &length);
    }
    for (;;) {
      sockaddr_ll from{};
      iovec data{frame, sizeof frame};
      alignas(cmsghdr) uint8_t control[CMSG_SPACE(sizeof(timespec))];
      msghdr message{};
      message.msg_name = &from;
      message.msg_namelen = sizeof from;
      message.msg_iov = &data;
      message.msg_iovlen = 1;
      message.msg_control = control;
      message.msg_controllen = sizeof control;
      ssize_t n = recvmsg(fd_, &message, MSG_TRUNC);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;  // EAGAIN: drained; ENETDOWN and the like: back to poll
      }
      timespec read{};
      clock_gettime(CLOCK_REALTIME, &read);
      if (static_cast<size_t>(n) > sizeof frame || from.sll_pkttype == PACKET_OUTGOING) continue;
      Answer(frame, static_cast<size_t>(n), from.sll_pkttype, AnswerStamps{ReceiveStamp(message), read});
    }
  }
  running_.store(false, std::memory_order_release);
}

void SendArpReplyAndCount(int fd, int ifindex, const uint8_t* reply, size_t length, uint32_t targetIp,
                          ArpFastPathShared& shared, const AnswerStamps* stamps) {
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = ifindex;
  std::memcpy(&to.sll_protocol, reply + 12, 2);  // the reply's ethertype, already in network order
  to.sll_halen = kArpMacBytes;
  std::memcpy(to.sll_addr, reply, kArpMacBytes);  // its destination: the requester
  ssize_t sent;
  do {
    sent = sendto(fd, reply, length, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  } while (sent < 0 && errno == EINTR);
  timespec done{};
  if (stamps != nullptr) clock_gettime(CLOCK_REALTIME, &done);
  std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared.mutex);
  ArpFastPathCounts& counts = shared.counts[targetIp];
  counts.requests++;
  if (sent < 0) counts.sendFailures++;
  else counts.replies++;
  if (stamps == nullptr) return;
  if (stamps->received.tv_sec >= 0) shared.times.queued.Observe(NanosBetween(stamps->received, stamps->read));
  shared.times.answering.Observe(NanosBetween(stamps->read, done));
}

void ArpAnswerThread::Answer(const uint8_t* frame, size_t length, int pkttype, const AnswerStamps& stamps) {
  uint8_t reply[kArpReplyFrameBytes];
  uint32_t targetIp = 0;
  {
    std::lock_guard<mlb::PriorityInheritanceMutex> lock(shared_->mutex);
    if (!shared_->on || !ArpFastPathReply(frame, length, pkttype, shared_->table, reply, targetIp)) return;
  }
  SendArpReplyAndCount(fd_, ifindex_, reply, sizeof reply, targetIp, *shared_, &stamps);
}

}  // namespace mlb
