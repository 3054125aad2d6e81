// HttpConnection: serves the HTTP/1.1 requests of one accepted connection
// (keep-alive loop) through the Router, in place of Poco's
// HTTPServerConnection, adding:
//  - the request deadline (header + body within the read timeout, the TLS
//    handshake included for the first request), enforced by the
//    ConnectionWatch;
//  - answers for request heads Poco refuses: 414 for a request target over
//    its limit, 431 for too many or too long header fields, 400 for other
//    malformed heads, each with a JSON error body, after which the
//    connection is drained and closed;
//  - `100 Continue` for requests that expect it.
// The factory creates one per connection admitted by the OverloadGuard.
#pragma once

#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include <memory>

#include "server/connection_context.hpp"

namespace hami::server {

class HttpConnection final : public Poco::Net::TCPServerConnection {
 public:
  HttpConnection(const Poco::Net::StreamSocket& socket, std::shared_ptr<ConnectionContext> context);
  // Releases the connection's admission slot.
  ~HttpConnection() override;
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  void run() override;

 private:
  std::shared_ptr<ConnectionContext> context_;
};

class HttpConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  explicit HttpConnectionFactory(std::shared_ptr<ConnectionContext> context)
      : context_(std::move(context)) {}
  // Poco takes ownership of the returned connection.
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override;

 private:
  std::shared_ptr<ConnectionContext> context_;
};

// The status and message answering a request head Poco refused with
// `what` (the text of its MessageException).
struct HeadRefusal {
  int status;
  const char* message;
};
HeadRefusal refusal_for(const std::string& what);

}  // namespace hami::server
