#include "systemd/sd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace hami::systemd {
namespace {

NotifyResult failure(std::string error) {
  return NotifyResult{NotifyOutcome::failed, std::move(error)};
}

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// Closes the socket on every path out of notify_socket.
class Fd {
 public:
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }

 private:
  int fd_;
};

}  // namespace

NotifyResult notify_socket(std::string_view socket, std::string_view message) {
  if (socket.empty()) {
    return NotifyResult{};
  }
  const bool abstract = socket.front() == '@';
  if (!abstract && socket.front() != '/') {
    return failure("NOTIFY_SOCKET '" + std::string(socket) +
                   "' is neither an absolute path nor an abstract socket ('@…')");
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // A path needs its terminating NUL inside sun_path; an abstract name is
  // length-delimited and may use every byte.
  const std::size_t room = sizeof(address.sun_path) - (abstract ? 0 : 1);
  if (socket.size() > room) {
    return failure("NOTIFY_SOCKET '" + std::string(socket) + "' is longer than " +
                   std::to_string(room) + " bytes");
  }
  std::memcpy(address.sun_path, socket.data(), socket.size());
  if (abstract) {
    address.sun_path[0] = '\0';
  }
  const auto length =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket.size() + (abstract ? 0 : 1));

  const Fd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    return failure("cannot create a notification socket: " + errno_text(errno));
  }
  ssize_t sent = -1;
  do {
    sent = ::sendto(fd.get(), message.data(), message.size(), MSG_NOSIGNAL,
                    reinterpret_cast<const sockaddr*>(&address), length);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) {
    return failure("cannot send to NOTIFY_SOCKET '" + std::string(socket) +
                   "': " + errno_text(errno));
  }
  if (static_cast<std::size_t>(sent) != message.size()) {
    return failure("NOTIFY_SOCKET '" + std::string(socket) + "' took " + std::to_string(sent) +
                   " of " + std::to_string(message.size()) + " bytes");
  }
  return NotifyResult{NotifyOutcome::sent, {}};
}

NotifyResult notify(std::string_view message) {
  // getenv is read-only here; nothing in the host sets NOTIFY_SOCKET.
  const char* socket = std::getenv("NOTIFY_SOCKET");
  return notify_socket(socket == nullptr ? std::string_view{} : std::string_view{socket}, message);
}

std::string status_message(std::string_view text) {
  std::string out = "STATUS=";
  out.reserve(out.size() + text.size());
  for (const char c : text) {
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  return out;
}

}  // namespace hami::systemd
