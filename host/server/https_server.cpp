#include "server/https_server.hpp"

#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <future>
#include <thread>
#include <unordered_map>
#include <vector>

#include "platform/cpus.hpp"
#include "server/event_loop.hpp"
#include "server/server_connection.hpp"
#include "server/server_state.hpp"
#include "server/worker_pool.hpp"

namespace hami::server {
namespace {

constexpr int kListenBacklog = 256;
constexpr std::uint64_t kListenerKey = 1;
constexpr std::uint64_t kFirstConnectionKey = 2;
// Deadlines are checked this often.
constexpr std::chrono::milliseconds kTick{50};
constexpr int kMaxLoops = 4;
// Connections taken per readiness event, so one loop does not starve its
// own connections during a burst.
constexpr int kAcceptBurst = 64;
constexpr auto kLoopAnswerBound = std::chrono::seconds(5);
// How long a loop stops accepting when the process is out of descriptors.
constexpr std::chrono::milliseconds kAcceptPause{100};

int loop_count() {
  return std::clamp(static_cast<int>(platform::usable_cpus()), 1, kMaxLoops);
}

std::string peer_text(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    inet_ntop(AF_INET6, &a.sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(a.sin6_port));
  }
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(a.sin_port));
  }
  return "unknown";
}

// Whether `fd`'s local address (where the client connected to) is a
// loopback address.
bool connected_to_loopback(int fd) {
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0)
    return false;
  if (local.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(local);
    return (ntohl(a.sin_addr.s_addr) >> 24) == 127;
  }
  if (local.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(local);
    return IN6_IS_ADDR_LOOPBACK(&a.sin6_addr) ||
           (IN6_IS_ADDR_V4MAPPED(&a.sin6_addr) && a.sin6_addr.s6_addr[12] == 127);
  }
  return false;
}

// Runs one step of a connection. A step that throws (out of memory while
// growing a buffer, say) ends that connection, never the loop's thread.
template <typename Step>
bool survive(const log::Logger& logger, Step&& step) noexcept {
  try {
    return step();
  } catch (const std::exception& e) {
    try {
      logger.warn("connection dropped", {{"error", e.what()}});
    } catch (...) {
      // Logging failed too; the connection is dropped all the same.
    }
  } catch (...) {
    // Same, without a message to log.
  }
  return false;
}

}  // namespace

// One event loop, its thread and the connections it serves. Everything but
// the EventLoop's post/stop is touched only on the loop's thread.
struct Loop {
  EventLoop events{kTick};
  std::unordered_map<std::uint64_t, std::unique_ptr<ServerConnection>> connections;
  std::uint64_t next_key = kFirstConnectionKey;
  // Connections whose answers wait for the end of the round.
  std::vector<std::uint64_t> held;
  bool listening = false;
  // Accepting paused (out of descriptors) until then; zero when not.
  EventLoop::Clock::time_point resume_accepting{};
  std::thread thread;
};

struct HttpsServer::Impl {
  ServerTls tls;
  const log::Logger& logger;
  ServerState state;
  Poco::Net::ServerSocket socket;
  uint16_t port = 0;
  std::string address;
  int workers_wanted;
  // Declared before the workers: the workers' answers are posted to the
  // loops, which must therefore outlive them.
  std::vector<std::unique_ptr<Loop>> loops;
  std::unique_ptr<WorkerPool> workers;
  bool started = false;
  bool stopped = false;

  Impl(ServerTls t, const config::ServerConfig& settings, const log::Logger& l)
      : tls(std::move(t)), logger(l), workers_wanted(std::max(1, settings.max_threads)) {
    state.tls = tls.context ? tls.context->sslContext() : nullptr;
    state.limits = limits_of(settings);
  }

  void accept_ready(Loop& loop);
  void run(Loop& loop);
  // Runs `task` on every loop's thread and waits (bounded) until all did.
  void on_every_loop(const std::function<void(Loop&)>& task);
};

void HttpsServer::Impl::accept_ready(Loop& loop) {
  const int listen_fd = socket.impl()->sockfd();
  for (int i = 0; i < kAcceptBurst; ++i) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The pending connection stays queued and the socket stays
        // readable: without a pause the loop would spin on it. Connections
        // being served go on; accepting resumes after kAcceptPause.
        loop.events.remove(listen_fd);
        loop.resume_accepting = EventLoop::Clock::now() + kAcceptPause;
        ++state.accept_pauses;
        logger.warn(
            "cannot accept connections, pausing",
            {{"error", std::strerror(errno)}, {"pause_ms", std::to_string(kAcceptPause.count())}});
      }
      return;  // EAGAIN: nothing more waiting
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    bool busy = false;
    if (state.admitted.fetch_add(1) >= state.limits.max_connections) {
      --state.admitted;
      ++state.refused;
      if (state.busy.load() >= static_cast<int>(kBusyBacklog)) {
        ::close(fd);
        continue;
      }
      ++state.busy;
      busy = true;
    } else {
      ++state.total;
    }
    std::unique_ptr<Channel> channel;
    try {
      channel = std::make_unique<Channel>(fd, state.tls);
    } catch (const std::exception& e) {
      // The channel closed the descriptor.
      if (busy)
        --state.busy;
      else
        --state.admitted;
      logger.warn("connection dropped", {{"error", e.what()}});
      continue;
    }
    const std::uint64_t key = loop.next_key++;
    auto completion = [this, &loop](std::uint64_t done_key, Response response) {
      loop.events.post([this, &loop, done_key, response = std::move(response)]() mutable {
        const auto found = loop.connections.find(done_key);
        if (found != loop.connections.end() &&
            !survive(logger, [&] { return found->second->on_handled(std::move(response)); }))
          loop.connections.erase(found);
      });
    };
    auto defer = [&loop](std::uint64_t held_key) { loop.held.push_back(held_key); };
    const bool loopback = state.loopback_router && connected_to_loopback(channel->fd());
    auto connection = std::make_unique<ServerConnection>(
        state, loop.events, key, std::move(channel), peer_text(addr), busy,
        loopback ? state.loopback_router : state.router, std::move(completion), std::move(defer));
    if (survive(logger, [&] { return connection->start(); }))
      loop.connections.emplace(key, std::move(connection));
  }
}

void HttpsServer::Impl::run(Loop& loop) {
  loop.events.run(
      [this, &loop](std::uint64_t key, std::uint32_t events) {
        if (key == kListenerKey) {
          if (loop.listening)
            accept_ready(loop);
          return;
        }
        const auto found = loop.connections.find(key);
        if (found != loop.connections.end() &&
            !survive(logger, [&] { return found->second->on_events(events); }))
          loop.connections.erase(found);
      },
      [this, &loop](EventLoop::Clock::time_point now) {
        if (loop.resume_accepting != EventLoop::Clock::time_point{} &&
            now >= loop.resume_accepting) {
          loop.resume_accepting = {};
          if (loop.listening)
            loop.events.add(socket.impl()->sockfd(), EPOLLIN | EPOLLEXCLUSIVE, kListenerKey);
        }
        for (auto it = loop.connections.begin(); it != loop.connections.end();) {
          if (survive(logger, [&] { return it->second->on_tick(now); }))
            ++it;
          else
            it = loop.connections.erase(it);
        }
      },
      [this, &loop] {
        // Flushing may hold new answers (a pipelined request answered
        // inline): keep going until none is left.
        while (!loop.held.empty()) {
          std::vector<std::uint64_t> keys;
          keys.swap(loop.held);
          for (const std::uint64_t key : keys) {
            const auto found = loop.connections.find(key);
            if (found != loop.connections.end() &&
                !survive(logger, [&] { return found->second->flush(); }))
              loop.connections.erase(found);
          }
        }
      });
}

void HttpsServer::Impl::on_every_loop(const std::function<void(Loop&)>& task) {
  std::vector<std::future<void>> done;
  for (auto& loop : loops) {
    auto finished = std::make_shared<std::promise<void>>();
    done.push_back(finished->get_future());
    Loop* target = loop.get();
    loop->events.post([target, finished, task] {
      task(*target);
      finished->set_value();
    });
  }
  for (auto& f : done)
    f.wait_for(kLoopAnswerBound);
}

HttpsServer::HttpsServer(std::shared_ptr<const Router> router, ServerTls tls,
                         const config::ListenAddress& listen, const config::ServerConfig& settings,
                         const log::Logger& logger, std::shared_ptr<const Router> loopback_router)
    : impl_(std::make_unique<Impl>(std::move(tls), settings, logger)) {
  std::signal(SIGPIPE, SIG_IGN);
  impl_->state.router = std::move(router);
  impl_->state.loopback_router = std::move(loopback_router);
  try {
    const Poco::Net::SocketAddress address =
        listen.host.empty() ? Poco::Net::SocketAddress(listen.port)
                            : Poco::Net::SocketAddress(listen.host, listen.port);
    // reuseAddress for quick restarts, but never SO_REUSEPORT: a second
    // process must not be able to share (and steal from) our port.
    impl_->socket.bind(address, true, false);
    impl_->socket.listen(kListenBacklog);
    impl_->socket.setBlocking(false);
    impl_->port = impl_->socket.address().port();
    impl_->address = impl_->socket.address().toString();
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("cannot listen on " + listen.text() + ": " + e.displayText());
  }
}

HttpsServer::~HttpsServer() {
  try {
    shutdown(std::chrono::milliseconds(0));
  } catch (...) {
    // Destructors must not throw; shutdown failures were already logged.
  }
}

void HttpsServer::start() {
  if (impl_->started || impl_->stopped)
    return;
  impl_->started = true;
  impl_->workers = std::make_unique<WorkerPool>(impl_->workers_wanted);
  impl_->state.workers = impl_->workers.get();
  const int listen_fd = impl_->socket.impl()->sockfd();
  const int count = loop_count();
  for (int i = 0; i < count; ++i) {
    auto loop = std::make_unique<Loop>();
    // Every loop waits on the one listening socket; EPOLLEXCLUSIVE wakes
    // one of them per connection instead of all.
    if (!loop->events.add(listen_fd, EPOLLIN | EPOLLEXCLUSIVE, kListenerKey))
      throw std::runtime_error("cannot watch the listening socket " + impl_->address);
    loop->listening = true;
    impl_->loops.push_back(std::move(loop));
  }
  for (auto& loop : impl_->loops) {
    Loop* target = loop.get();
    loop->thread = std::thread([this, target] { impl_->run(*target); });
  }
}

uint16_t HttpsServer::port() const {
  return impl_->port;
}

std::string HttpsServer::address() const {
  return impl_->address;
}

int HttpsServer::in_flight() const {
  const std::lock_guard lock(impl_->state.traffic.mutex);
  return impl_->state.traffic.in_flight;
}

int HttpsServer::total_connections() const {
  return impl_->state.total.load();
}

int HttpsServer::refused_connections() const {
  return impl_->state.refused.load();
}

int HttpsServer::cut_connections() const {
  return impl_->state.cut.load();
}

int HttpsServer::accept_pauses() const {
  return impl_->state.accept_pauses.load();
}

const ServerTls& HttpsServer::tls() const {
  return impl_->tls;
}

bool HttpsServer::shutdown(std::chrono::milliseconds grace) {
  if (impl_->stopped)
    return true;
  impl_->stopped = true;
  Traffic& traffic = impl_->state.traffic;
  traffic.draining.store(true);
  if (!impl_->started) {
    impl_->socket.close();
    return true;
  }
  // Stop accepting, then close the socket so new connections are refused
  // rather than queued.
  const int listen_fd = impl_->socket.impl()->sockfd();
  impl_->on_every_loop([listen_fd](Loop& loop) {
    loop.listening = false;
    loop.events.remove(listen_fd);
  });
  impl_->socket.close();

  bool finished = false;
  {
    std::unique_lock lock(traffic.mutex);
    finished = traffic.idle.wait_for(lock, grace, [&] { return traffic.in_flight == 0; });
  }
  if (!finished) {
    impl_->logger.warn("shutdown grace period over; aborting in-flight requests",
                       {{"in_flight", std::to_string(traffic.in_flight)}});
  }
  // Closes idle keep-alive connections and aborts what is still running.
  impl_->on_every_loop([](Loop& loop) { loop.connections.clear(); });
  for (auto& loop : impl_->loops) {
    loop->events.stop();
    if (loop->thread.joinable())
      loop->thread.join();
  }
  return finished;
}

}  // namespace hami::server
