// sd_notify: tells the service manager (systemd with Type=notify) about the
// service's state, by sending one datagram to the AF_UNIX socket named in
// $NOTIFY_SOCKET — the protocol of sd_notify(3), without libsystemd.
//
// The message is newline-separated VARIABLE=value assignments, e.g.
// "READY=1", "STOPPING=1", "STATUS=serving on 0.0.0.0:443".
//
// Socket addresses: an absolute path ("/run/systemd/notify"), or an abstract
// socket written with a leading '@' ("@/org/freedesktop/systemd1/notify/…",
// the '@' becomes the leading NUL byte). Anything else (relative paths,
// "vsock:" addresses) is refused as unsupported.
//
// Not running under a service manager (NOTIFY_SOCKET unset or empty) is not
// an error: the call reports NotifyOutcome::disabled and sends nothing.
// Failures to send are reported, never thrown: a service must not die
// because its manager went away, but it should log why systemd will time
// out its start.
#pragma once

#include <string>
#include <string_view>

namespace hami::systemd {

enum class NotifyOutcome {
  sent,      // the whole datagram was accepted by the socket
  disabled,  // no socket configured: nothing to do
  failed,    // configured but not sent; NotifyResult::error says why
};

struct NotifyResult {
  NotifyOutcome outcome = NotifyOutcome::disabled;
  std::string error;  // empty unless outcome == failed

  [[nodiscard]] bool sent() const noexcept { return outcome == NotifyOutcome::sent; }
};

// Sends `message` to the socket address `socket` (empty: disabled).
NotifyResult notify_socket(std::string_view socket, std::string_view message);

// Sends `message` to $NOTIFY_SOCKET (unset or empty: disabled).
NotifyResult notify(std::string_view message);

// The standard messages.
inline constexpr std::string_view kReady = "READY=1";
inline constexpr std::string_view kStopping = "STOPPING=1";
inline constexpr std::string_view kReloading = "RELOADING=1";

// "STATUS=<text>" with every CR/LF of `text` turned into a space: a status
// is one line, and a newline would start a new assignment.
std::string status_message(std::string_view text);

}  // namespace hami::systemd
