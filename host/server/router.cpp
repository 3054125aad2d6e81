#include "server/router.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <istream>
#include <ostream>
#include <stdexcept>

#include "log/logger.hpp"
#include "server/json_depth.hpp"
#include "server/socket_drain.hpp"

namespace hami::server {

std::string error_body(std::string_view message) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("error");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string_view Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key.size() == name.size() &&
        std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return value;
    }
  }
  return {};
}

std::size_t Response::body_size() const {
  std::size_t size = body.size();
  for (const std::string_view piece : tail)
    size += piece.size();
  return size;
}

std::string Response::joined_body() const {
  std::string all;
  all.reserve(body_size());
  all += body;
  for (const std::string_view piece : tail)
    all += piece;
  return all;
}

std::string_view path_of(std::string_view target) {
  const auto end = target.find_first_of("?#");
  return end == std::string_view::npos ? target : target.substr(0, end);
}

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

Response error_response(int status, std::string_view message) {
  Response r;
  r.status = status;
  r.body = error_body(message);
  return r;
}

int send(Poco::Net::HTTPServerResponse& out, const Response& r, bool close, bool head) {
  out.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(r.status));
  if (!r.content_type.empty())
    out.setContentType(r.content_type);
  for (const auto& [name, value] : r.headers)
    out.set(name, value);
  if (close)
    out.setKeepAlive(false);
  out.setContentLength64(static_cast<Poco::Int64>(r.body_size()));
  // Flushed here, not when Poco destroys the response: shutdown counts a
  // request as finished when its handler returns, and must not cut off
  // bytes still sitting in the stream buffer.
  std::ostream& body = out.send();
  // A HEAD answer carries the headers of the body but never the body.
  if (!head) {
    body.write(r.body.data(), static_cast<std::streamsize>(r.body.size()));
    for (const std::string_view piece : r.tail)
      body.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  }
  body.flush();
  return r.status;
}

// True when the request announces body bytes that have not been read.
bool carries_body(const Poco::Net::HTTPServerRequest& request) {
  if (request.getChunkedTransferEncoding())
    return true;
  return request.hasContentLength() && request.getContentLength64() > 0;
}

enum class BodyOutcome { ok, too_large, incomplete };

// Reads the request body into `body`, never holding more than `limit` bytes
// plus one read chunk. Stream errors (timeouts, resets) propagate.
BodyOutcome read_body(Poco::Net::HTTPServerRequest& request, std::size_t limit, std::string& body) {
  std::istream& in = request.stream();
  // Rethrow the socket's exception (e.g. Poco::TimeoutException) instead of
  // silently setting badbit.
  in.exceptions(std::ios::badbit);
  if (request.hasContentLength() && !request.getChunkedTransferEncoding()) {
    const auto length = static_cast<std::size_t>(request.getContentLength64());
    body.resize(length);
    in.read(body.data(), static_cast<std::streamsize>(length));
    if (static_cast<std::size_t>(in.gcount()) != length)
      return BodyOutcome::incomplete;
    return BodyOutcome::ok;
  }
  char chunk[kReadChunk];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (body.size() + n > limit)
      return BodyOutcome::too_large;
    body.append(chunk, n);
  }
  return BodyOutcome::ok;
}

}  // namespace

void Router::add(std::string method, std::string path, std::size_t body_limit, Handler handler) {
  auto& methods = routes_[std::move(path)];
  const auto [it, inserted] =
      methods.emplace(std::move(method), Route{body_limit, std::move(handler)});
  if (!inserted)
    throw std::invalid_argument("route registered twice: " + it->first);
}

void Router::set_observer(Observer observer) {
  observer_ = std::move(observer);
}

std::string Router::allowed_methods(std::string_view path) const {
  const auto found = routes_.find(path);
  if (found == routes_.end())
    return {};
  std::string allow;
  for (const auto& [method, route] : found->second) {
    if (!allow.empty())
      allow += ", ";
    allow += method;
  }
  return allow;
}

Router::Outcome Router::dispatch(Poco::Net::HTTPServerRequest& request,
                                 Poco::Net::HTTPServerResponse& response, bool close_after,
                                 const Deadline* deadline) const {
  const auto begin = std::chrono::steady_clock::now();
  Outcome outcome = serve(request, response, close_after, deadline);
  const int status = outcome.status;
  const auto elapsed = std::chrono::steady_clock::now() - begin;
  if (observer_) {
    const auto path = path_of(request.getURI());
    const bool known = routes_.find(path) != routes_.end();
    observer_(known ? path : std::string_view{}, request.getMethod(), status,
              std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
  }
  if (logger_ != nullptr && logger_->enabled(log::Level::debug)) {
    logger_->debug("request", {{"method", request.getMethod()},
                               {"route", std::string(path_of(request.getURI()))},
                               {"status", std::to_string(status)},
                               {"peer", request.clientAddress().toString()},
                               {"duration_ms", log::milliseconds_text(elapsed)}});
  }
  // After the observer, so the drain does not count as serving time.
  if (outcome.closed)
    outcome.closed = drain_and_close(request, limits_);
  return outcome;
}

Router::Outcome Router::serve(Poco::Net::HTTPServerRequest& request,
                              Poco::Net::HTTPServerResponse& response, bool close_after,
                              const Deadline* deadline) const {
  const std::string path(path_of(request.getURI()));
  const std::string& method = request.getMethod();
  const bool head = method == Poco::Net::HTTPRequest::HTTP_HEAD;
  // An answer sent before the body is read: the body would otherwise be
  // parsed as the next request, so the connection ends after a drain.
  const auto early = [&](const Response& r) {
    return Outcome{send(response, r, true, head), true};
  };
  const bool unread_body = carries_body(request);
  const auto by_path = routes_.find(path);
  if (by_path == routes_.end()) {
    const Response r = error_response(404, "not found: " + path);
    if (unread_body)
      return early(r);
    return {send(response, r, close_after, head), false};
  }
  const auto by_method = by_path->second.find(method);
  if (by_method == by_path->second.end()) {
    Response r = error_response(405, "method " + method + " not allowed on " + path);
    r.headers.emplace_back("Allow", allowed_methods(path));
    if (unread_body)
      return early(r);
    return {send(response, r, close_after, head), false};
  }
  const Route& route = by_method->second;
  const auto too_large = [&] {
    return error_response(
        413, "request body exceeds the limit of " + std::to_string(route.body_limit) + " bytes");
  };

  // A declared length over the limit is refused before reading a byte.
  if (request.hasContentLength() && !request.getChunkedTransferEncoding() &&
      static_cast<std::size_t>(request.getContentLength64()) > route.body_limit) {
    return early(too_large());
  }

  const auto timed_out = [&] {
    return early(error_response(408, "timed out reading the request body"));
  };
  const auto deadline_passed = [&] { return deadline != nullptr && deadline->passed(); };
  std::string body;
  try {
    switch (read_body(request, route.body_limit, body)) {
      case BodyOutcome::ok:
        break;
      case BodyOutcome::too_large:
        return early(too_large());
      case BodyOutcome::incomplete:
        if (deadline_passed())
          return timed_out();
        return {send(response, error_response(400, "request body ended early"), true, head), false};
    }
  } catch (const Poco::TimeoutException&) {
    return timed_out();
  } catch (const Poco::Exception& e) {
    if (deadline_passed())
      return timed_out();
    // Malformed chunking or a reset connection: nothing sensible to reuse.
    if (logger_ != nullptr) {
      logger_->debug("request body unreadable", {{"path", path}, {"error", e.displayText()}});
    }
    return early(error_response(400, "request body unreadable"));
  } catch (const std::exception& e) {
    if (deadline_passed())
      return timed_out();
    if (logger_ != nullptr) {
      logger_->debug("request body unreadable", {{"path", path}, {"error", e.what()}});
    }
    return early(error_response(400, "request body unreadable"));
  }
  if (deadline != nullptr)
    deadline->body_read();
  // Before any handler parses it: a recursive JSON reader would overflow
  // the thread's stack on a deeply nested body.
  if (json_nesting_depth(body) > kMaxJsonDepth) {
    return {send(response,
                 error_response(400, "request body nests JSON deeper than " +
                                         std::to_string(kMaxJsonDepth) + " levels"),
                 close_after, head),
            false};
  }

  Request req{.method = method,
              .path = path,
              .content_type = request.getContentType(),
              .body = std::move(body),
              .peer = request.clientAddress().toString(),
              .headers = {}};
  for (const auto& [name, value] : request)
    req.headers.emplace_back(name, value);
  Response out;
  try {
    route.handler(req, out);
  } catch (const std::exception& e) {
    if (logger_ != nullptr) {
      logger_->error("handler failed", {{"method", method}, {"path", path}, {"error", e.what()}});
    }
    out = error_response(500, "internal error");
  } catch (...) {
    if (logger_ != nullptr) {
      logger_->error("handler failed",
                     {{"method", method}, {"path", path}, {"error", "unknown exception"}});
    }
    out = error_response(500, "internal error");
  }
  return {send(response, out, close_after, head), false};
}

}  // namespace hami::server
