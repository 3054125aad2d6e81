// A plain HTTP(S) client for the fake API server's tests (Poco's
// HTTPClientSession, deliberately not the project's ApiClient), and a
// reader of watch streams.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <chrono>
#include <istream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hami::testing::test {

using Json = nlohmann::ordered_json;

struct Response {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;
  Json json() const { return Json::parse(body); }
};

struct RequestOptions {
  std::string body;
  std::string content_type;
  std::string token;   // sent as "Authorization: Bearer <token>" when set
  std::string ca_pem;  // HTTPS: trust only this certificate
};

// One request on a fresh connection; throws on transport errors.
Response call(const std::string& url, const std::string& method, const std::string& path_and_query,
              const RequestOptions& options = {});

// The text of a fixture in tests/fixtures/apiserver.
std::string fixture(const std::string& name);

// An open watch read straight off the socket, with its own chunked
// decoding so a stream cut without the terminating chunk is told apart from
// a clean end. Every read gives up after `read_timeout`.
class WatchReader {
 public:
  enum class End { open, clean, broken };

  WatchReader(const std::string& url, const std::string& path_and_query,
              const RequestOptions& options = {},
              std::chrono::milliseconds read_timeout = std::chrono::seconds(5));
  ~WatchReader();
  WatchReader(const WatchReader&) = delete;
  WatchReader& operator=(const WatchReader&) = delete;

  int status() const { return status_; }
  bool chunked() const { return chunked_; }
  const std::map<std::string, std::string>& headers() const { return headers_; }
  // The next event line; nullopt once the stream has ended (see end()).
  // Throws Poco::TimeoutException when nothing arrives in time.
  std::optional<std::string> next_line();
  // next_line() parsed.
  std::optional<Json> next();
  End end() const { return end_; }
  // The whole body of a non-chunked reply (an error Status).
  const std::string& body() const { return body_; }

 private:
  bool fill();  // reads more bytes into raw_; false at EOF
  std::string read_line();
  std::string read_exact(size_t n);

  std::unique_ptr<Poco::Net::StreamSocket> socket_;
  std::string raw_;      // bytes received, not yet decoded
  std::string decoded_;  // chunk payload not yet returned as lines
  int status_ = 0;
  bool chunked_ = false;
  std::map<std::string, std::string> headers_;
  std::string body_;
  End end_ = End::open;
};

}  // namespace hami::testing::test
