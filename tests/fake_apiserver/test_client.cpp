#include "test_client.hpp"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/X509Certificate.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hami::testing::test {
namespace {

struct BrokenStream {};

Poco::Net::Context::Ptr client_context(const RequestOptions& options) {
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_STRICT;
  params.loadDefaultCAs = false;
  auto context = Poco::makeAuto<Poco::Net::Context>(Poco::Net::Context::TLS_CLIENT_USE, params);
  if (!options.ca_pem.empty()) {
    std::istringstream pem(options.ca_pem);
    context->addCertificateAuthority(Poco::Net::X509Certificate(pem));
  }
  return context;
}

std::unique_ptr<Poco::Net::HTTPClientSession> open_session(const std::string& url,
                                                           const RequestOptions& options) {
  const Poco::URI uri(url);
  if (uri.getScheme() == "https") {
    return std::make_unique<Poco::Net::HTTPSClientSession>(uri.getHost(), uri.getPort(),
                                                           client_context(options));
  }
  return std::make_unique<Poco::Net::HTTPClientSession>(uri.getHost(), uri.getPort());
}

Poco::Net::HTTPRequest make_request(const std::string& method, const std::string& path,
                                    const RequestOptions& options) {
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.set("Accept", "application/json");
  if (!options.token.empty()) {
    request.set("Authorization", "Bearer " + options.token);
  }
  if (!options.content_type.empty()) {
    request.setContentType(options.content_type);
  }
  if (!options.body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    request.setContentLength(static_cast<std::streamsize>(options.body.size()));
  }
  return request;
}

}  // namespace

Response call(const std::string& url, const std::string& method, const std::string& path,
              const RequestOptions& options) {
  auto session = open_session(url, options);
  session->setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest request = make_request(method, path, options);
  session->sendRequest(request) << options.body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session->receiveResponse(response);
  Response out;
  out.status = response.getStatus();
  Poco::StreamCopier::copyToString(in, out.body);
  for (const auto& [k, v] : response) {
    out.headers[k] = v;
  }
  return out;
}

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HAMI_APISERVER_FIXTURES) + "/" + name);
  if (!in) {
    throw std::runtime_error("missing fixture " + name);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

WatchReader::WatchReader(const std::string& url, const std::string& path,
                         const RequestOptions& options, std::chrono::milliseconds read_timeout) {
  const Poco::URI uri(url);
  const Poco::Net::SocketAddress address(uri.getHost(), uri.getPort());
  if (uri.getScheme() == "https") {
    socket_ = std::make_unique<Poco::Net::SecureStreamSocket>(address, uri.getHost(),
                                                              client_context(options));
  } else {
    socket_ = std::make_unique<Poco::Net::StreamSocket>(address);
  }
  socket_->setReceiveTimeout(
      Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(read_timeout.count()) * 1000));
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" +
                        std::to_string(uri.getPort()) + "\r\nAccept: application/json\r\n";
  if (!options.token.empty()) {
    request += "Authorization: Bearer " + options.token + "\r\n";
  }
  request += "\r\n";
  socket_->sendBytes(request.data(), static_cast<int>(request.size()));

  const std::string status_line = read_line();
  // "HTTP/1.1 200 OK"
  status_ = std::stoi(status_line.substr(9, 3));
  for (std::string line = read_line(); !line.empty(); line = read_line()) {
    const size_t colon = line.find(':');
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') {
      value.erase(0, 1);
    }
    headers_[line.substr(0, colon)] = value;
  }
  auto te = headers_.find("Transfer-Encoding");
  chunked_ = te != headers_.end() && te->second == "chunked";
  if (!chunked_) {
    auto cl = headers_.find("Content-Length");
    body_ = read_exact(cl == headers_.end() ? 0 : std::stoul(cl->second));
    end_ = End::clean;
  }
}

WatchReader::~WatchReader() {
  try {
    socket_->close();
  } catch (const Poco::Exception&) {
  }
}

bool WatchReader::fill() {
  char buf[4096];
  const int n = socket_->receiveBytes(buf, sizeof(buf));
  if (n <= 0) {
    return false;
  }
  raw_.append(buf, static_cast<size_t>(n));
  return true;
}

std::string WatchReader::read_line() {
  size_t pos;
  while ((pos = raw_.find("\r\n")) == std::string::npos) {
    if (!fill()) {
      throw BrokenStream{};
    }
  }
  std::string line = raw_.substr(0, pos);
  raw_.erase(0, pos + 2);
  return line;
}

std::string WatchReader::read_exact(size_t n) {
  while (raw_.size() < n) {
    if (!fill()) {
      throw BrokenStream{};
    }
  }
  std::string out = raw_.substr(0, n);
  raw_.erase(0, n);
  return out;
}

std::optional<std::string> WatchReader::next_line() {
  size_t newline;
  while ((newline = decoded_.find('\n')) == std::string::npos) {
    if (end_ != End::open) {
      return std::nullopt;
    }
    try {
      const size_t size = std::stoul(read_line(), nullptr, 16);
      if (size == 0) {
        read_line();  // the empty trailer
        end_ = End::clean;
        return std::nullopt;
      }
      decoded_ += read_exact(size);
      if (!read_line().empty()) {
        end_ = End::broken;
      }
    } catch (const BrokenStream&) {
      end_ = End::broken;
    } catch (const Poco::Net::NetException&) {
      // A reset or a TLS error: broken as well.
      end_ = End::broken;
    }
  }
  std::string line = decoded_.substr(0, newline);
  decoded_.erase(0, newline + 1);
  return line;
}

std::optional<Json> WatchReader::next() {
  auto line = next_line();
  if (!line) {
    return std::nullopt;
  }
  return Json::parse(*line);
}

}  // namespace hami::testing::test
