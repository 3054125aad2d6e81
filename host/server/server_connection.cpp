#include "server/server_connection.hpp"

#include <sys/epoll.h>

#include <algorithm>
#include <cstring>

#include "server/http_reply.hpp"

namespace hami::server {
namespace {

// One TLS record's worth: SSL_read never returns more in one call.
constexpr std::size_t kReadChunk = 16 * 1024;
// Answers are copied into a staging buffer of this size before they are
// written, so a reply made of thousands of small views costs a few large
// writes instead of thousands of small ones.
constexpr std::size_t kStageSize = 256 * 1024;
// Pieces at least this large are written without staging.
constexpr std::size_t kDirectWrite = 64 * 1024;
// A Content-Length body is made readable (zeroed) this much at a time,
// just ahead of the bytes that arrive (see step_body).
constexpr std::size_t kBodyStep = 128 * 1024;
// Buffers grown past this by a large request or answer are released when
// the connection goes idle, so kept-alive connections stay small.
constexpr std::size_t kKeepCapacity = 64 * 1024;

void release_if_large(std::string& buffer) {
  if (buffer.capacity() > kKeepCapacity)
    std::string().swap(buffer);
  else
    buffer.clear();
}

}  // namespace

ServerConnection::ServerConnection(ServerState& state, EventLoop& loop, std::uint64_t key,
                                   std::unique_ptr<Channel> channel, std::string peer, bool busy,
                                   std::shared_ptr<const Router> router, Completion completion,
                                   Defer defer)
    : state_(state),
      loop_(loop),
      key_(key),
      channel_(std::move(channel)),
      peer_(std::move(peer)),
      busy_(busy),
      router_(std::move(router)),
      completion_(std::move(completion)),
      defer_(std::move(defer)) {
  // The first request's deadline covers the TLS handshake.
  deadline_ = Clock::now() + (busy_ ? std::chrono::milliseconds(kBusyAnswerTimeout)
                                    : state_.limits.request_deadline);
}

ServerConnection::~ServerConnection() {
  if (in_flight_)
    state_.traffic.leave();
  loop_.remove(channel_->fd());
  if (busy_)
    --state_.busy;
  else
    --state_.admitted;
}

bool ServerConnection::start() {
  if (!loop_.add(channel_->fd(), EPOLLIN, key_))
    return false;
  interest_ = EPOLLIN;
  return advance();
}

void ServerConnection::want(std::uint32_t events) {
  if (events == interest_)
    return;
  loop_.modify(channel_->fd(), events, key_);
  interest_ = events;
}

bool ServerConnection::on_events(std::uint32_t events) {
  if (phase_ == Phase::handling) {
    // Nothing is read while a worker answers; a connection that broke
    // meanwhile is closed (its answer will find nobody).
    return (events & (EPOLLHUP | EPOLLERR)) == 0;
  }
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0)
    readable_ = true;
  return advance();
}

bool ServerConnection::on_handled(Response response) {
  if (phase_ != Phase::handling)
    return true;
  answer(std::move(response), After::keep_alive);
  return advance();
}

bool ServerConnection::flush() {
  if (!held_)
    return true;
  held_ = false;
  return advance();
}

bool ServerConnection::on_tick(Clock::time_point now) {
  if (phase_ == Phase::handling || now < deadline_)
    return true;
  switch (phase_) {
    case Phase::handshake:
      if (!busy_)
        ++state_.cut;
      return false;
    case Phase::head:
      if (!request_deadline_)
        return false;  // idle between requests for the keep-alive timeout
      ++state_.cut;
      if (!parser_.started())
        return false;  // nothing of a request arrived: nobody to answer
      answer_error(408, "timed out reading the request head", After::close);
      return advance();
    case Phase::body:
      ++state_.cut;
      answer_error(408, "timed out reading the request body", After::close);
      return advance();
    case Phase::writing:  // the client stopped reading its answer
    case Phase::draining:
    case Phase::handling:
      return false;
  }
  return false;
}

bool ServerConnection::advance() {
  for (;;) {
    bool progressed = false;
    bool alive = true;
    switch (phase_) {
      case Phase::handshake:
        alive = step_handshake(progressed);
        break;
      case Phase::head:
        alive = step_head(progressed);
        break;
      case Phase::body:
        alive = step_body(progressed);
        break;
      case Phase::handling:
        return true;
      case Phase::writing:
        if (held_)
          return true;
        alive = step_write(progressed);
        break;
      case Phase::draining:
        alive = step_drain();
        break;
    }
    if (!alive)
      return false;
    if (!progressed)
      return true;
  }
}

bool ServerConnection::step_handshake(bool& progressed) {
  const IoResult r = channel_->handshake();
  if (r.kind != IoResult::Kind::done)
    return waits(r);
  progressed = true;
  if (busy_) {
    // The busy answer is sent without reading the request.
    head_bytes_ = busy_reply();
    answer_ = Response{};
    head_only_ = true;
    staging_.clear();
    staged_ = piece_ = piece_at_ = 0;
    direct_ = false;
    after_ = After::drain;
    phase_ = Phase::writing;
    return true;
  }
  phase_ = Phase::head;
  return true;
}

bool ServerConnection::waits(const IoResult& r) {
  switch (r.kind) {
    case IoResult::Kind::want_read:
      readable_ = false;
      want(EPOLLIN);
      return true;
    case IoResult::Kind::want_write:
      want(EPOLLOUT);
      return true;
    case IoResult::Kind::done:
    case IoResult::Kind::closed:
    case IoResult::Kind::failed:
      break;
  }
  return false;
}

bool ServerConnection::fill(bool& progressed) {
  if (!readable_ && !channel_->pending()) {
    // Nothing announced since the last read came back empty: wait for
    // epoll rather than spend a read(2) that would say EAGAIN.
    want(EPOLLIN);
    return true;
  }
  char* space = in_.space(kReadChunk);
  const IoResult r = channel_->read(space, kReadChunk);
  if (r.kind == IoResult::Kind::done) {
    in_.commit(r.bytes);
    progressed = true;
    return true;
  }
  if (r.kind == IoResult::Kind::closed) {
    ended_ = true;
    return true;
  }
  return waits(r);
}

bool ServerConnection::step_head(bool& progressed) {
  if (!in_.empty()) {
    const bool was_started = parser_.started();
    in_.consume(parser_.feed(in_.unread()));
    if (!was_started && parser_.started() && !request_deadline_) {
      // The first byte of a kept-alive connection's next request.
      deadline_ = Clock::now() + state_.limits.request_deadline;
      request_deadline_ = true;
    }
    switch (parser_.state()) {
      case HeadParser::State::complete:
        begin_request();
        progressed = true;
        return true;
      case HeadParser::State::refused:
        answer_error(parser_.error().status, parser_.error().message, After::drain);
        progressed = true;
        return true;
      case HeadParser::State::incomplete:
        break;
    }
  }
  if (!fill(progressed))
    return false;
  // The client closed: between requests that is the normal end.
  return !ended_;
}

void ServerConnection::begin_request() {
  head_ = std::move(parser_.head());
  parser_.reset();
  started_at_ = Clock::now();
  in_flight_ = true;
  state_.traffic.enter();
  const std::string_view path = path_of(head_.target);
  const bool has_body = head_.chunked || head_.content_length.value_or(0) > 0;
  Response refusal;
  route_ = router_->find(head_.method, path, refusal);
  if (route_ == nullptr) {
    // Without reading it, an unread body would be taken for the next
    // request: the connection ends after this answer.
    answer(std::move(refusal), has_body ? After::drain : After::keep_alive);
    return;
  }
  if (head_.content_length && *head_.content_length > route_->body_limit) {
    answer_error(
        413, "request body exceeds the limit of " + std::to_string(route_->body_limit) + " bytes",
        After::drain);
    return;
  }
  body_.clear();
  body_filled_ = 0;
  body_length_ = head_.content_length.value_or(0);
  chunks_ = ChunkedDecoder{};
  if (head_.content_length)
    body_.reserve(static_cast<std::size_t>(body_length_));
  if (head_.expect_continue && has_body && in_.empty() && head_.minor_version >= 1)
    continue_ = kContinueReply;
  phase_ = Phase::body;
}

bool ServerConnection::step_body(bool& progressed) {
  if (!continue_.empty()) {
    const IoResult r = channel_->write(continue_.data(), continue_.size());
    if (r.kind != IoResult::Kind::done)
      return waits(r);
    continue_.erase(0, r.bytes);
    progressed = true;
    return true;
  }
  const std::size_t limit = route_->body_limit;
  if (head_.chunked) {
    if (!in_.empty()) {
      in_.consume(chunks_.feed(in_.unread(), body_));
      if (body_.size() > limit) {
        answer_error(413, "request body exceeds the limit of " + std::to_string(limit) + " bytes",
                     After::drain);
        progressed = true;
        return true;
      }
      if (chunks_.state() == ChunkedDecoder::State::malformed) {
        answer_error(400, "request body unreadable", After::drain);
        progressed = true;
        return true;
      }
      if (chunks_.state() == ChunkedDecoder::State::done) {
        dispatch();
        progressed = true;
        return true;
      }
    }
    if (!fill(progressed))
      return false;
    if (ended_) {
      answer_error(400, "request body ended early", After::close);
      progressed = true;
    }
    return true;
  }
  // Content-Length (or no body): buffered bytes first, then straight from
  // the channel into the body, without an intermediate copy. The body's
  // size runs at most one step ahead of the bytes read: std::string zeroes
  // what a resize adds, and a step is zeroed just before the channel
  // overwrites it, while it is in cache. Sizing the string to the whole
  // Content-Length at the start zeroed all of it at once (5.4 MB for a
  // full-Nodes extender call) and the read then wrote it all again.
  const auto length = static_cast<std::size_t>(body_length_);
  const auto room = [&] {
    if (body_filled_ == body_.size())
      body_.resize(std::min(length, body_.size() + kBodyStep));
    return body_.size() - body_filled_;
  };
  while (body_filled_ < length && !in_.unread().empty()) {
    const std::size_t buffered = std::min(room(), in_.unread().size());
    std::memcpy(body_.data() + body_filled_, in_.unread().data(), buffered);
    body_filled_ += buffered;
    in_.consume(buffered);
  }
  while (body_filled_ < length) {
    if (!readable_ && !channel_->pending()) {
      want(EPOLLIN);
      return true;
    }
    const IoResult r = channel_->read(body_.data() + body_filled_, room());
    if (r.kind == IoResult::Kind::done) {
      body_filled_ += r.bytes;
      continue;
    }
    if (r.kind == IoResult::Kind::closed) {
      answer_error(400, "request body ended early", After::close);
      progressed = true;
      return true;
    }
    return waits(r);
  }
  dispatch();
  progressed = true;
  return true;
}

void ServerConnection::dispatch() {
  Request request{.method = head_.method,
                  .path = std::string(path_of(head_.target)),
                  .content_type = head_.content_type,
                  .body = std::move(body_),
                  .peer = peer_,
                  .headers = std::move(head_.headers)};
  body_ = std::string();
  const Router& router = *router_;
  if (route_->options.execution == Execution::inline_loop) {
    Response response;
    router.handle(*route_, request, response);
    answer(std::move(response), After::keep_alive);
    return;
  }
  phase_ = Phase::handling;
  want(0);
  state_.workers->submit([router = router_, route = route_,
                          request = std::make_shared<Request>(std::move(request)),
                          completion = completion_, key = key_] {
    Response response;
    router->handle(*route, *request, response);
    completion(key, std::move(response));
  });
}

void ServerConnection::answer_error(int status, std::string_view message, After after) {
  Response response;
  response.status = status;
  response.body = error_body(message);
  answer(std::move(response), after);
}

void ServerConnection::answer(Response response, After after) {
  const bool close =
      after != After::keep_alive || !head_.keep_alive || state_.traffic.draining.load() || ended_;
  after_ = (after == After::keep_alive && close) ? After::close : after;
  head_only_ = head_.method == "HEAD";
  answer_ = std::move(response);
  head_bytes_.clear();
  append_response_head(head_bytes_, answer_, answer_.body_size(), head_.minor_version, close);
  staging_.clear();
  staged_ = piece_ = piece_at_ = 0;
  direct_ = false;
  phase_ = Phase::writing;
  deadline_ = Clock::now() + state_.limits.write_stall;
  request_deadline_ = false;
  if (defer_) {
    held_ = true;
    defer_(key_);
  }
  if (in_flight_) {
    router_->finished(path_of(head_.target), head_.method, answer_.status,
                      Clock::now() - started_at_, peer_);
  }
}

bool ServerConnection::step_write(bool& progressed) {
  const auto piece = [this](std::size_t i) -> std::string_view {
    if (i == 0)
      return head_bytes_;
    if (head_only_)
      return {};
    if (i == 1)
      return answer_.body;
    return answer_.tail[i - 2];
  };
  const std::size_t pieces = head_only_ ? 1 : 2 + answer_.tail.size();
  for (;;) {
    if (staged_ == staging_.size() && piece_ < pieces &&
        (direct_ || piece(piece_).size() - piece_at_ >= kDirectWrite)) {
      // A large piece goes out from its own memory (kept by the answer):
      // copying megabytes into the staging buffer first costs more than
      // the few extra records it saves. So does its rest once it started
      // that way, however short. A retried write repeats the same
      // arguments, as OpenSSL requires.
      direct_ = true;
      const std::string_view rest = piece(piece_).substr(piece_at_);
      if (!corked_) {
        channel_->cork(true);
        corked_ = true;
      }
      const IoResult r = channel_->write(rest.data(), std::min(rest.size(), kStageSize));
      if (r.kind != IoResult::Kind::done)
        return waits(r);
      piece_at_ += r.bytes;
      if (piece_at_ == piece(piece_).size()) {
        ++piece_;
        piece_at_ = 0;
        direct_ = false;
      }
      deadline_ = Clock::now() + state_.limits.write_stall;
      continue;
    }
    if (staged_ == staging_.size()) {
      staging_.clear();
      staged_ = 0;
      while (staging_.size() < kStageSize && piece_ < pieces) {
        const std::string_view rest = piece(piece_).substr(piece_at_);
        if (rest.size() >= kDirectWrite && !staging_.empty())
          break;  // staged bytes first, then the large piece directly
        const std::size_t n = std::min(rest.size(), kStageSize - staging_.size());
        staging_.append(rest.data(), n);
        piece_at_ += n;
        if (piece_at_ == piece(piece_).size()) {
          ++piece_;
          piece_at_ = 0;
        }
      }
      if (staging_.empty())
        break;
    }
    const IoResult r = channel_->write(staging_.data() + staged_, staging_.size() - staged_);
    if (r.kind != IoResult::Kind::done)
      return waits(r);
    staged_ += r.bytes;
    deadline_ = Clock::now() + state_.limits.write_stall;
  }
  // The whole answer is out.
  if (corked_) {
    channel_->cork(false);
    corked_ = false;
  }
  if (in_flight_) {
    in_flight_ = false;
    state_.traffic.leave();
  }
  answer_ = Response{};
  release_if_large(staging_);
  progressed = true;
  switch (after_) {
    case After::keep_alive:
      start_next_request();
      return true;
    case After::close:
      return false;
    case After::drain:
      channel_->shutdown_send();
      phase_ = Phase::draining;
      drained_ = 0;
      deadline_ = Clock::now() + (busy_ ? std::chrono::milliseconds(kBusyAnswerTimeout)
                                        : state_.limits.drain_time);
      return true;
  }
  return false;
}

void ServerConnection::start_next_request() {
  phase_ = Phase::head;
  head_ = RequestHead{};
  route_ = nullptr;
  release_if_large(body_);
  in_.shrink(kKeepCapacity);
  // The next request is usually not there yet: ask epoll before reading
  // (level-triggered, so bytes already waiting are reported at once).
  readable_ = false;
  deadline_ = Clock::now() + state_.limits.keep_alive;
  request_deadline_ = false;
}

bool ServerConnection::step_drain() {
  const std::size_t limit = busy_ ? kBusyDrainBytes : state_.limits.drain_bytes;
  for (;;) {
    if (drained_ >= limit)
      return false;
    const IoResult r = channel_->discard(limit - drained_);
    if (r.kind != IoResult::Kind::done)
      return waits(r);
    drained_ += r.bytes;
  }
}

}  // namespace hami::server
