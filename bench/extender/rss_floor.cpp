// rss-floor: the least a Poco HTTPS host can hold while it reads one request
// body, as a floor for the host's peak-RSS figure (run-https-bench.sh).
//
// Poco's HTTPServer on a SecureServerSocket (TLS 1.3, the bench's
// certificate), one worker thread, one malloc arena like the host. Every
// POST body is read into one string sized by Content-Length and answered
// with its length; nothing is parsed or kept. Whatever this process peaks at
// serving a body, any host that links Poco NetSSL and OpenSSL and reads the
// body into memory peaks at least as high.
//
// usage: rss-floor CERT_PEM KEY_PEM PORT   (listens on 127.0.0.1:PORT until SIGTERM)
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SecureServerSocket.h>
#include <malloc.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <istream>
#include <memory>
#include <string>

namespace {

class ReadBody : public Poco::Net::HTTPRequestHandler {
 public:
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    std::string body;
    if (request.hasContentLength())
      body.resize(static_cast<std::size_t>(request.getContentLength64()));
    request.stream().read(body.data(), static_cast<std::streamsize>(body.size()));
    body.resize(static_cast<std::size_t>(request.stream().gcount()));
    const std::string reply = "{\"bytes\":" + std::to_string(body.size()) + "}";
    response.setContentType("application/json");
    response.setContentLength(static_cast<std::streamsize>(reply.size()));
    response.send() << reply;
  }
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    // Poco takes ownership of the handler.
    return std::make_unique<ReadBody>().release();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: rss-floor CERT_PEM KEY_PEM PORT\n";
    return 2;
  }
  mallopt(M_ARENA_MAX, 1);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  Poco::Net::Context::Params params;
  params.certificateFile = argv[1];
  params.privateKeyFile = argv[2];
  params.verificationMode = Poco::Net::Context::VERIFY_NONE;
  auto context = Poco::makeAuto<Poco::Net::Context>(Poco::Net::Context::TLS_SERVER_USE, params);
  context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_3);
  context->disableStatelessSessionResumption();

  auto server_params = Poco::makeAuto<Poco::Net::HTTPServerParams>();
  server_params->setMaxThreads(1);
  server_params->setKeepAlive(true);
  Poco::Net::SecureServerSocket socket(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(std::atoi(argv[3]))), 64,
      context);
  Poco::Net::HTTPServer server(Poco::makeShared<Factory>(), socket, server_params);
  server.start();
  int signal = 0;
  sigwait(&stop, &signal);
  server.stop();
  return 0;
}
