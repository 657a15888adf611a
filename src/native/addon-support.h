// What the native modules' C++ files share (packet-socket.cc, tcp-md5.cc, udp-ttl.cc): errors that carry errno,
// argument checks, numeric address parsing, and the plumbing of a nonblocking descriptor watched by a uv_poll
// handle on Node's own loop with JS callbacks. Inline, so each module (mlb_native, mlb_udp_ttl) compiles its own
// copy and several files of one module can include it.
#ifndef MLB_ADDON_SUPPORT_H_
#define MLB_ADDON_SUPPORT_H_

#include <napi.h>
#include <uv.h>

#include <arpa/inet.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace mlb {

// "<what>: <syscall> <ENAME> (<strerror>)", the message of a failed system call.
inline std::string SystemErrorMessage(int err, const char* syscall, const std::string& what) {
  return what + ": " + syscall + " " + uv_err_name(-err) + " (" + std::strerror(err) + ")";
}

// An Error with `errno` (number), `code` (its name, "EADDRINUSE") and `syscall`, as Node's own system errors.
inline Napi::Error SystemErrorWithMessage(Napi::Env env, int err, const char* syscall, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("errno", Napi::Number::New(env, err));
  error.Set("code", Napi::String::New(env, uv_err_name(-err)));
  error.Set("syscall", Napi::String::New(env, syscall));
  return error;
}

inline Napi::Error SystemError(Napi::Env env, int err, const char* syscall, const std::string& what) {
  return SystemErrorWithMessage(env, err, syscall, SystemErrorMessage(err, syscall, what));
}

// How a module makes its system errors (packet-socket.cc adds a CAP_NET_RAW hint to EPERM).
using SystemErrorFactory = Napi::Error (*)(Napi::Env, int, const char*, const std::string&);

[[noreturn]] inline void ThrowTypeError(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

// An integer argument from 0 to max; a TypeError naming `what` otherwise.
inline uint32_t UintArg(const Napi::CallbackInfo& info, size_t i, const char* what, uint32_t max) {
  if (!info[i].IsNumber()) ThrowTypeError(info.Env(), std::string(what) + " must be a number");
  double value = info[i].As<Napi::Number>().DoubleValue();
  if (!(value >= 0 && value <= max) || value != static_cast<double>(static_cast<uint32_t>(value))) {
    ThrowTypeError(info.Env(), std::string(what) + " must be an integer from 0 to " + std::to_string(max));
  }
  return static_cast<uint32_t>(value);
}

inline std::string StringArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (!info[i].IsString()) ThrowTypeError(info.Env(), std::string(what) + " must be a string");
  return info[i].As<Napi::String>().Utf8Value();
}

// AF_INET or AF_INET6 for a numeric address (no names: the caller resolves them), AF_UNSPEC for anything else.
inline int NumericAddressFamily(const std::string& text) {
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return AF_INET;
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) return AF_INET6;
  return AF_UNSPEC;
}

// Parses a numeric IPv4 or IPv6 address into a sockaddr for a socket of `socketFamily`. An IPv4 address for an
// IPv6 socket becomes its v4-mapped form (::ffff:a.b.c.d), as the kernel sees it there; false when the address
// cannot be one of the socket's.
inline bool ParseAddress(const std::string& text, int socketFamily, uint16_t port, sockaddr_storage* out,
                         socklen_t* length) {
  std::memset(out, 0, sizeof *out);
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    if (socketFamily == AF_INET) {
      auto* sin = reinterpret_cast<sockaddr_in*>(out);
      sin->sin_family = AF_INET;
      sin->sin_port = htons(port);
      sin->sin_addr = v4;
      *length = sizeof *sin;
      return true;
    }
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(out);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    sin6->sin6_addr.s6_addr[10] = 0xff;
    sin6->sin6_addr.s6_addr[11] = 0xff;
    std::memcpy(&sin6->sin6_addr.s6_addr[12], &v4, 4);
    *length = sizeof *sin6;
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1 && socketFamily == AF_INET6) {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(out);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    sin6->sin6_addr = v6;
    *length = sizeof *sin6;
    return true;
  }
  return false;
}

// Watches `fd` for readability on Node's loop, calling onPoll with handle->data = owner. A failure throws
// makeError(..., what) and leaves nothing to release; the returned handle is closed by ReleasePolledFd.
inline uv_poll_t* WatchReadable(Napi::Env env, int fd, void* owner, uv_poll_cb onPoll, SystemErrorFactory makeError,
                                const std::string& what) {
  uv_loop_t* loop = nullptr;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) throw Napi::Error::New(env, "no event loop");
  auto* poll = new uv_poll_t;
  int rc = uv_poll_init(loop, poll, fd);
  if (rc < 0) {
    delete poll;
    throw makeError(env, -rc, "uv_poll_init", what);
  }
  poll->data = owner;
  rc = uv_poll_start(poll, UV_READABLE, onPoll);
  if (rc < 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(poll), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    throw makeError(env, -rc, "uv_poll_start", what);
  }
  return poll;
}

// Stops watching and closes the descriptor; the uv handle is freed by libuv once it has closed. Idempotent.
inline void ReleasePolledFd(uv_poll_t*& poll, int& fd) {
  if (poll != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(poll), [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    poll = nullptr;
  }
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

// ref()/unref() of a socket: whether its poll handle keeps the loop alive, as for a net.Socket.
inline void RefPoll(uv_poll_t* poll) {
  if (poll != nullptr) uv_ref(reinterpret_cast<uv_handle_t*>(poll));
}
inline void UnrefPoll(uv_poll_t* poll) {
  if (poll != nullptr) uv_unref(reinterpret_cast<uv_handle_t*>(poll));
}

// The socket error pending on fd (SO_ERROR, which reading clears), or 0. libuv reports POLLERR as a poll error.
inline int TakePendingSocketError(int fd) {
  int pending = 0;
  socklen_t length = sizeof pending;
  if (fd >= 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0) return pending;
  return 0;
}

// Runs a uv_poll callback's body for `wrap` (an ObjectWrap) as Node runs any event callback: in a handle scope,
// with the JS object kept alive until the body returns (even if a callback closes the socket), and inside the
// async context, so microtasks and nextTicks run once, after the body.
template <typename Wrap, typename Body>
void InPollCallback(Wrap* wrap, Napi::AsyncContext& context, Body body) {
  Napi::Env env = wrap->Env();
  Napi::HandleScope scope(env);
  Napi::Object keep = wrap->Value();
  (void)keep;
  Napi::CallbackScope callbackScope(env, context);
  body(env);
}

// Calls a JS callback from a poll callback; an exception it throws goes where one from any event callback goes
// (process 'uncaughtException'). False when it threw.
inline bool CallFromEvent(Napi::Env env, const Napi::FunctionReference& callback,
                          const std::initializer_list<napi_value>& args) {
  try {
    callback.Call(args);
    return true;
  } catch (const Napi::Error& e) {
    napi_fatal_exception(env, e.Value());
    return false;
  }
}

// Hands an asynchronous error to onError, unless the socket is closed (onError reset).
inline void ReportError(Napi::Env env, const Napi::FunctionReference& onError, const Napi::Error& error) {
  if (onError.IsEmpty()) return;
  CallFromEvent(env, onError, {error.Value()});
}

}  // namespace mlb

#endif  // MLB_ADDON_SUPPORT_H_
