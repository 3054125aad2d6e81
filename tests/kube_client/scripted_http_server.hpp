// ScriptedHttpServer: a plain TCP server on 127.0.0.1 that answers each
// connection with a script — the exact reply bytes, then whether to close —
// so tests can produce what a well-behaved server never sends: a reply cut
// mid-body, a chunk boundary in the middle of a watch line, a kept-alive
// connection closed while idle. Records every request's head and body.
#pragma once

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hami::kube::testing {

class ScriptedHttpServer {
 public:
  // The reply bytes for the n-th request (0-based, over all connections).
  // After writing them the connection closes when `close` is set, else the
  // next request is read from it.
  struct Step {
    std::string reply;
    bool close = true;
  };
  using Script = std::function<Step(size_t request_index)>;

  explicit ScriptedHttpServer(Script script)
      : script_(std::move(script)), socket_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedHttpServer() {
    stopping_ = true;
    thread_.join();
  }
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(socket_.address().port()); }
  std::vector<std::string> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  size_t connections() const { return connections_.load(); }

 private:
  // Serves one connection at a time: the client under test is sequential.
  void serve() {
    while (!stopping_) {
      if (!socket_.poll(Poco::Timespan(0, 20000), Poco::Net::Socket::SELECT_READ))
        continue;
      Poco::Net::StreamSocket peer = socket_.acceptConnection();
      ++connections_;
      peer.setReceiveTimeout(Poco::Timespan(5, 0));
      for (;;) {
        std::string request;
        if (!read_request(peer, request))
          break;
        size_t index = 0;
        {
          std::lock_guard lock(mu_);
          index = requests_.size();
          requests_.push_back(request);
        }
        const Step step = script_(index);
        peer.sendBytes(step.reply.data(), static_cast<int>(step.reply.size()));
        if (step.close)
          break;
      }
      peer.shutdownSend();
      peer.close();
    }
  }

  // The head and the Content-Length body of one request; false at EOF.
  static bool read_request(Poco::Net::StreamSocket& peer, std::string& out) {
    char c = 0;
    try {
      while (out.find("\r\n\r\n") == std::string::npos) {
        if (peer.receiveBytes(&c, 1) != 1)
          return false;
        out += c;
      }
      const auto at = out.find("Content-Length: ");
      if (at != std::string::npos) {
        size_t length = std::stoul(out.substr(at + 16));
        std::string body(length, '\0');
        size_t got = 0;
        while (got < length) {
          const int n = peer.receiveBytes(body.data() + got, static_cast<int>(length - got));
          if (n <= 0)
            return false;
          got += static_cast<size_t>(n);
        }
        out += body;
      }
    } catch (const Poco::Exception&) {
      return false;
    }
    return true;
  }

  Script script_;
  Poco::Net::ServerSocket socket_;
  std::atomic<bool> stopping_{false};
  std::atomic<size_t> connections_{0};
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

}  // namespace hami::kube::testing
