#include "systemd/sd_notify.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

namespace hami::systemd {
namespace {

using ::testing::HasSubstr;

// A bound AF_UNIX datagram socket playing the service manager.
class Manager {
 public:
  // `address` as NOTIFY_SOCKET spells it: a path or "@name".
  explicit Manager(std::string address) : address_(std::move(address)) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd_, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path, address_.data(), address_.size());
    const bool abstract = address_.front() == '@';
    if (abstract) {
      sa.sun_path[0] = '\0';
    }
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address_.size() +
                                               (abstract ? 0 : 1));
    bound_ = ::bind(fd_, reinterpret_cast<const sockaddr*>(&sa), length) == 0;
    EXPECT_TRUE(bound_) << address_ << ": " << std::strerror(errno);
  }
  ~Manager() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  const std::string& address() const { return address_; }

  // The next datagram, or nullopt after two seconds without one.
  std::optional<std::string> receive() const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 2000) != 1) {
      return std::nullopt;
    }
    std::array<char, 4096> buf{};
    const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
    if (n < 0) {
      return std::nullopt;
    }
    return std::string(buf.data(), static_cast<std::size_t>(n));
  }

  // True when nothing arrives within 50 ms (used only to check "sent nothing").
  bool quiet() const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 50) == 0;
  }

 private:
  std::string address_;
  int fd_ = -1;
  bool bound_ = false;
};

std::string unique_suffix() {
  static int counter = 0;
  return std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hami-sdn-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(SdNotify, ReadyReachesAPathSocketExactly) {
  const ScratchDir dir;
  const Manager manager((dir.path() / "notify").string());
  const NotifyResult result = notify_socket(manager.address(), kReady);
  ASSERT_EQ(result.outcome, NotifyOutcome::sent) << result.error;
  EXPECT_TRUE(result.error.empty());
  EXPECT_EQ(manager.receive(), std::optional<std::string>("READY=1"));
}

TEST(SdNotify, StoppingReachesAnAbstractSocket) {
  const Manager manager("@hami-sd-notify-test-" + unique_suffix());
  ASSERT_TRUE(notify_socket(manager.address(), kStopping).sent());
  EXPECT_EQ(manager.receive(), std::optional<std::string>("STOPPING=1"));
}

TEST(SdNotify, SeveralAssignmentsTravelInOneDatagram) {
  const Manager manager("@hami-sd-notify-test-" + unique_suffix());
  const std::string message = std::string(kReady) + "\n" + status_message("serving on :443");
  ASSERT_TRUE(notify_socket(manager.address(), message).sent());
  EXPECT_EQ(manager.receive(), std::optional<std::string>("READY=1\nSTATUS=serving on :443"));
}

TEST(SdNotify, NotifyReadsNotifySocketFromTheEnvironment) {
  const Manager manager("@hami-sd-notify-test-" + unique_suffix());
  ASSERT_EQ(::setenv("NOTIFY_SOCKET", manager.address().c_str(), 1), 0);
  const NotifyResult result = notify(kReady);
  ::unsetenv("NOTIFY_SOCKET");
  ASSERT_TRUE(result.sent()) << result.error;
  EXPECT_EQ(manager.receive(), std::optional<std::string>("READY=1"));
}

TEST(SdNotify, WithoutNotifySocketNothingIsSent) {
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_EQ(notify(kReady).outcome, NotifyOutcome::disabled);
  ASSERT_EQ(::setenv("NOTIFY_SOCKET", "", 1), 0);
  const NotifyResult empty = notify(kReady);
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_EQ(empty.outcome, NotifyOutcome::disabled);
  EXPECT_TRUE(empty.error.empty());
  EXPECT_EQ(notify_socket("", kReady).outcome, NotifyOutcome::disabled);
}

TEST(SdNotify, MissingSocketIsReportedNotThrown) {
  const ScratchDir dir;
  const std::string absent = (dir.path() / "nobody-listens").string();
  const NotifyResult result = notify_socket(absent, kReady);
  EXPECT_EQ(result.outcome, NotifyOutcome::failed);
  EXPECT_THAT(result.error, HasSubstr(absent));
  EXPECT_THAT(result.error, HasSubstr("No such file or directory"));
}

TEST(SdNotify, UnsupportedAddressesAreRefused) {
  const NotifyResult relative = notify_socket("run/notify", kReady);
  EXPECT_EQ(relative.outcome, NotifyOutcome::failed);
  EXPECT_THAT(relative.error, HasSubstr("neither an absolute path nor an abstract socket"));
  const NotifyResult vsock = notify_socket("vsock:2:1234", kReady);
  EXPECT_EQ(vsock.outcome, NotifyOutcome::failed);
}

TEST(SdNotify, OverlongPathsAreRefused) {
  // sun_path holds 108 bytes: 107 characters and the NUL.
  const std::string path = "/" + std::string(107, 'a');
  const NotifyResult result = notify_socket(path, kReady);
  EXPECT_EQ(result.outcome, NotifyOutcome::failed);
  EXPECT_THAT(result.error, HasSubstr("longer than 107 bytes"));
}

TEST(SdNotify, AnAbstractNameMayUseAllOfSunPath) {
  std::string name = "@hami-" + unique_suffix() + "-";
  name.append(108 - name.size(), 'x');
  ASSERT_EQ(name.size(), 108u);
  const Manager manager(name);
  ASSERT_TRUE(notify_socket(manager.address(), kReady).sent());
  EXPECT_EQ(manager.receive(), std::optional<std::string>("READY=1"));
}

TEST(SdNotify, StatusIsOneLine) {
  EXPECT_EQ(status_message("a\nb\r\nc"), "STATUS=a b  c");
  EXPECT_EQ(status_message(""), "STATUS=");
}

TEST(SdNotify, NothingArrivesWhenDisabled) {
  const Manager manager("@hami-sd-notify-test-" + unique_suffix());
  EXPECT_EQ(notify_socket("", kReady).outcome, NotifyOutcome::disabled);
  EXPECT_TRUE(manager.quiet());
}

}  // namespace
}  // namespace hami::systemd
