#include "server/http_connection.hpp"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Timestamp.h>

#include <optional>
#include <ostream>

#include "server/socket_drain.hpp"

namespace hami::server {
namespace {

// Answers a refused request head; the connection is closed afterwards.
void refuse_head(Poco::Net::HTTPServerSession& session, const HeadRefusal& refusal) {
  Poco::Net::HTTPServerResponseImpl response(session);
  response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(refusal.status));
  response.setKeepAlive(false);
  response.setContentType("application/json");
  const std::string body = error_body(refusal.message);
  response.setContentLength64(static_cast<Poco::Int64>(body.size()));
  std::ostream& out = response.send();
  out.write(body.data(), static_cast<std::streamsize>(body.size()));
  out.flush();
}

}  // namespace

HeadRefusal refusal_for(const std::string& what) {
  if (what.find("URI") != std::string::npos)
    return {414, "request target too long or malformed"};
  if (what.find("ield") != std::string::npos)
    return {431, "request header fields too large or too many"};
  return {400, "malformed request head"};
}

HttpConnection::HttpConnection(const Poco::Net::StreamSocket& socket,
                               std::shared_ptr<ConnectionContext> context)
    : Poco::Net::TCPServerConnection(socket), context_(std::move(context)) {}

HttpConnection::~HttpConnection() {
  --context_->admitted;
}

Poco::Net::TCPServerConnection* HttpConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket) {
  return std::make_unique<HttpConnection>(socket, context_).release();
}

void HttpConnection::run() {
  ConnectionContext& ctx = *context_;
  const Poco::Net::HTTPServerParams& params = *ctx.params;
  ConnectionWatch::Registration watch(ctx.watch, socket().impl()->sockfd());
  const auto deadline = [&ctx] {
    return ConnectionWatch::Clock::now() + ctx.limits.request_deadline;
  };
  try {
    // Every single read and write is bounded by the read timeout.
    socket().setReceiveTimeout(params.getTimeout());
    socket().setSendTimeout(params.getTimeout());
    Poco::Net::HTTPServerSession session(socket(), ctx.params);
    // The first request's deadline covers the TLS handshake, which happens
    // on the first read.
    watch.arm(deadline());
    bool first = true;
    while (!ctx.traffic.draining.load() && session.hasMoreRequests()) {
      if (!first)
        watch.arm(deadline());
      first = false;
      Poco::Net::HTTPServerResponseImpl response(session);
      std::optional<Poco::Net::HTTPServerRequestImpl> request;
      try {
        request.emplace(response, session, ctx.params.get());
      } catch (const Poco::Net::NoMessageException&) {
        return;  // closed (or cut) between requests
      } catch (const Poco::Exception& e) {
        // A head cut by the deadline, or one Poco refused.
        const bool expired = watch.expired();
        watch.disarm();
        if (!expired && dynamic_cast<const Poco::Net::MessageException*>(&e) == nullptr)
          return;  // the peer went away mid-head
        refuse_head(session, expired ? HeadRefusal{408, "timed out reading the request head"}
                                     : refusal_for(e.message()));
        drain_and_close(socket(), ctx.limits);
        return;
      }
      if (watch.expired()) {
        // Poco takes the end of input for the end of the head; a head cut
        // by the deadline is incomplete whatever it parsed to.
        refuse_head(session, {408, "timed out reading the request head"});
        drain_and_close(socket(), ctx.limits);
        return;
      }
      response.setDate(Poco::Timestamp());
      response.setVersion(request->getVersion());
      response.setKeepAlive(params.getKeepAlive() && request->getKeepAlive() &&
                            session.canKeepAlive());
      if (request->getExpectContinue() && response.getStatus() == Poco::Net::HTTPResponse::HTTP_OK)
        response.sendContinue();
      ctx.traffic.enter();
      struct Leave {
        Traffic& t;
        ~Leave() { t.leave(); }
      } leave{ctx.traffic};
      const Router::Deadline deadline_hooks{.body_read = [&] { watch.disarm(); },
                                            .passed = [&] { return watch.expired(); }};
      const Router::Outcome outcome =
          ctx.router->dispatch(*request, response, ctx.traffic.draining.load(), &deadline_hooks);
      watch.disarm();
      if (outcome.closed)
        return;
      session.setKeepAlive(params.getKeepAlive() && response.getKeepAlive() &&
                           session.canKeepAlive());
    }
  } catch (const Poco::Exception&) {
    // The peer went away, a read or write timed out, or the deadline cut
    // the connection: nothing can be answered any more.
  } catch (const std::exception&) {
    // Same; the router already turned handler failures into 500s.
  }
}

}  // namespace hami::server
