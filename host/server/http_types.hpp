// Request and Response as route handlers see them (interfaces §D).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hami::server {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One request, body already read (de-chunked) and within the route's limit.
// Handlers receive it mutable so that they may take the body (std::move)
// instead of copying megabytes of it.
struct Request {
  std::string method;
  std::string path;  // without the query string
  std::string content_type;
  std::string body;
  std::string peer;    // the client's address, "host:port" ("[v6]:port")
  HeaderList headers;  // as received, names in the client's spelling

  // The first header named `name` (ASCII case-insensitive); empty when
  // absent.
  std::string_view header(std::string_view name) const;
};

// What the handler answers. An empty content_type sends no Content-Type.
// The body sent is `body` followed by every view of `tail`, in order: a
// handler echoing large parts of the request hands out views instead of
// copies, and stores in `keep` whatever those views point into (for
// example the request body it took) so that it lives until the answer is
// written.
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::string_view> tail;
  std::shared_ptr<const void> keep;
  HeaderList headers;

  std::size_t body_size() const;
};

// {"error":"<message>"} with the message JSON-escaped.
std::string error_body(std::string_view message);

}  // namespace hami::server
