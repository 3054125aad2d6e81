// Request and Response as route handlers see them (interfaces §D).
#pragma once

#include <Poco/Net/HTTPServerRequest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hami::server {

// One request, body already read and within the route's limit.
struct Request {
  std::string method;
  std::string path;  // without the query string
  std::string content_type;
  std::string body;
  const Poco::Net::HTTPServerRequest& raw;  // headers, peer address, TLS session
};

// What the handler answers. An empty content_type sends no Content-Type.
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// {"error":"<message>"} with the message JSON-escaped.
std::string error_body(std::string_view message);

}  // namespace hami::server
