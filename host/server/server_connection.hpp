// ServerConnection: one accepted connection, driven by its event loop
// through the phases
//
//   handshake → head → body → handling → writing → (head again | close)
//
// with the side paths
//  - early answer (unknown route or method with a body, 413, a refused
//    head): answered with `Connection: Close`, then the sending side is
//    shut and unread request bytes are drained within the drain bounds, so
//    the client reads the answer rather than a reset;
//  - deadline (head and body of a request, the handshake of the first one,
//    not received within the request deadline): 408 when part of a request
//    arrived, then closed; counted as cut;
//  - busy (accepted beyond the connection limit): the handshake, the busy
//    503, a short drain, closed.
// Handlers of inline routes run within on_events(); worker routes are
// handed to the worker pool and come back through on_handled() on the
// loop's thread. The owner (the loop) destroys the connection when a call
// returns false.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "server/event_loop.hpp"
#include "server/http_head_parser.hpp"
#include "server/input_buffer.hpp"
#include "server/server_state.hpp"
#include "server/tls_channel.hpp"

namespace hami::server {

class ServerConnection {
 public:
  using Clock = std::chrono::steady_clock;
  // Posts the answer of a worker handler back to this connection's loop.
  using Completion = std::function<void(std::uint64_t key, Response response)>;
  // Asks the loop to call flush() once the current round's events are
  // handled.
  using Defer = std::function<void(std::uint64_t key)>;

  // `router` serves this connection's requests (the server's, or its
  // loopback router).
  ServerConnection(ServerState& state, EventLoop& loop, std::uint64_t key,
                   std::unique_ptr<Channel> channel, std::string peer, bool busy,
                   std::shared_ptr<const Router> router, Completion completion, Defer defer);
  ~ServerConnection();
  ServerConnection(const ServerConnection&) = delete;
  ServerConnection& operator=(const ServerConnection&) = delete;

  // Registers with the loop and starts the handshake; false: close.
  bool start();
  bool on_events(std::uint32_t events);
  bool on_tick(Clock::time_point now);
  bool on_handled(Response response);
  // Writes an answer that was held back until the end of the round.
  bool flush();

  bool busy() const { return busy_; }

 private:
  enum class Phase { handshake, head, body, handling, writing, draining };
  enum class After { keep_alive, close, drain };

  // Runs the phases as far as the socket allows; false: close now.
  bool advance();
  bool step_handshake(bool& progressed);
  bool step_head(bool& progressed);
  bool step_body(bool& progressed);
  bool step_write(bool& progressed);
  // Discards what the client still sends; never progresses to another phase.
  bool step_drain();

  // Reads what the channel has into in_. False when the connection broke;
  // an orderly end from the client sets ended_.
  bool fill(bool& progressed);
  void begin_request();
  void dispatch();
  void answer(Response response, After after);
  void answer_error(int status, std::string_view message, After after);
  void start_next_request();
  void want(std::uint32_t events);
  // True when `r` asks to wait for the socket, after registering the
  // interest it needs; false for an end or a failure.
  bool waits(const IoResult& r);

  ServerState& state_;
  EventLoop& loop_;
  std::uint64_t key_;
  std::unique_ptr<Channel> channel_;
  std::string peer_;
  bool busy_;
  std::shared_ptr<const Router> router_;
  Completion completion_;
  Defer defer_;
  // An answer is ready but held until the loop's round ends: the answers of
  // one round then go out back to back, and a client reading many
  // connections is woken once for them instead of once per answer.
  bool held_ = false;

  Phase phase_ = Phase::handshake;
  std::uint32_t interest_ = 0;
  Clock::time_point deadline_;    // of the current phase; max when none
  bool request_deadline_ = true;  // deadline_ is a request deadline (a cut)

  InputBuffer in_;
  // Whether a read may find data: set by readiness events, cleared by a
  // read that found none.
  bool readable_ = true;
  HeadParser parser_;

  // The request being served.
  RequestHead head_;
  const Router::Route* route_ = nullptr;
  std::string body_;
  std::uint64_t body_filled_ = 0;
  std::uint64_t body_length_ = 0;  // its Content-Length; 0 when chunked
  ChunkedDecoder chunks_;
  bool in_flight_ = false;
  bool corked_ = false;  // TCP_CORK on while a large answer is written
  Clock::time_point started_at_;
  std::string continue_;  // the unsent rest of a "100 Continue"
  bool ended_ = false;    // the client ended its sending side

  // Output: the answer being written.
  Response answer_;
  std::string head_bytes_;
  std::string staging_;
  std::size_t staged_ = 0;    // bytes of staging_ already written
  std::size_t piece_ = 0;     // next piece to stage: 0 head, 1 body, 2.. tail
  std::size_t piece_at_ = 0;  // offset within that piece
  bool direct_ = false;       // that piece is going out from its own memory
  bool head_only_ = false;
  After after_ = After::keep_alive;

  std::size_t drained_ = 0;
};

}  // namespace hami::server
