#include "server/http_reply.hpp"

#include <Poco/Net/HTTPResponse.h>

#include <array>
#include <charconv>

namespace hami::server {
namespace {

void append_number(std::string& out, std::size_t n) {
  std::array<char, 24> digits{};
  const auto [end, ec] = std::to_chars(digits.data(), digits.data() + digits.size(), n);
  out.append(digits.data(), end);
}

}  // namespace

std::string_view http_date(std::time_t now) {
  thread_local std::time_t cached_at = -1;
  thread_local std::array<char, 40> text{};
  thread_local std::size_t length = 0;
  if (now != cached_at) {
    std::tm tm{};
    gmtime_r(&now, &tm);
    length = std::strftime(text.data(), text.size(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached_at = now;
  }
  return {text.data(), length};
}

std::string_view reason_phrase(int status) {
  // Poco returns a reference to a static string per status; the lookup is
  // a switch, cheap enough to call per answer.
  return Poco::Net::HTTPResponse::getReasonForStatus(
      static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
}

void append_response_head(std::string& out, const Response& response, std::size_t body_size,
                          int minor_version, bool close) {
  out += minor_version == 0 ? "HTTP/1.0 " : "HTTP/1.1 ";
  append_number(out, static_cast<std::size_t>(response.status));
  out += ' ';
  out += reason_phrase(response.status);
  out += "\r\nDate: ";
  out += http_date(std::time(nullptr));
  out += "\r\n";
  if (!response.content_type.empty()) {
    out += "Content-Type: ";
    out += response.content_type;
    out += "\r\n";
  }
  for (const auto& [name, value] : response.headers) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  out += "Content-Length: ";
  append_number(out, body_size);
  out += "\r\n";
  if (close && minor_version >= 1)
    out += "Connection: Close\r\n";
  else if (!close && minor_version == 0)
    out += "Connection: Keep-Alive\r\n";
  out += "\r\n";
}

const std::string& busy_reply() {
  static const std::string reply = [] {
    const std::string body = error_body("server busy, retry later");
    return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: " +
           std::to_string(kRetryAfterSeconds) +
           "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
  }();
  return reply;
}

}  // namespace hami::server
