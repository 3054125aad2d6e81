// HttpBodyReader over scripted byte sources, Status replies into ApiError,
// Retry-After and query escaping.
#include "kube/http_body.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "kube/api_error.hpp"

namespace hami::kube {
namespace {

using Framing = HttpBodyReader::Framing;

// Delivers `wire` in pieces of at most `piece` bytes, then end of stream.
HttpBodyReader::Source source_of(std::string wire, size_t piece) {
  auto state = std::make_shared<std::pair<std::string, size_t>>(std::move(wire), 0);
  return [state, piece](char* out, size_t max) {
    auto& [data, pos] = *state;
    const size_t n = std::min({max, piece, data.size() - pos});
    std::copy_n(data.data() + pos, n, out);
    pos += n;
    return n;
  };
}

TEST(HttpBody, ChunkedAcrossEveryPieceSize) {
  const std::string wire =
      "5;ext=1\r\nhello\r\n1\r\n \r\nB\r\nwatch-lines\r\n0\r\nTrailer: x\r\n\r\n";
  for (size_t piece = 1; piece <= wire.size(); ++piece) {
    HttpBodyReader reader(source_of(wire, piece), Framing::chunked);
    EXPECT_EQ(reader.read_all(), "hello watch-lines") << "piece " << piece;
    EXPECT_TRUE(reader.finished());
  }
}

TEST(HttpBody, ChunkedCutsAreErrors) {
  for (const std::string wire : {"5\r\nhel", "5\r\nhello\r\n", "5\r\nhello\r\n0\r\n", ""}) {
    HttpBodyReader reader(source_of(wire, 3), Framing::chunked);
    EXPECT_THROW(reader.read_all(), HttpBodyError) << wire;
  }
}

TEST(HttpBody, ChunkedMalformed) {
  for (const std::string wire : {"zz\r\n", "5\r\nhelloXX\r\n0\r\n\r\n", "\r\n"}) {
    HttpBodyReader reader(source_of(wire, 64), Framing::chunked);
    EXPECT_THROW(reader.read_all(), HttpBodyError) << wire;
  }
}

TEST(HttpBody, ContentLength) {
  HttpBodyReader exact(source_of("0123456789extra", 4), Framing::length, 10);
  EXPECT_EQ(exact.read_all(), "0123456789");
  HttpBodyReader short_body(source_of("01234", 4), Framing::length, 10);
  EXPECT_THROW(short_body.read_all(), HttpBodyError);
  HttpBodyReader empty(source_of("ignored", 4), Framing::length, 0);
  EXPECT_EQ(empty.read_all(), "");
}

TEST(HttpBody, UntilCloseAndNone) {
  HttpBodyReader until_close(source_of("all of it", 2), Framing::until_close);
  EXPECT_EQ(until_close.read_all(), "all of it");
  HttpBodyReader none(source_of("ignored", 2), Framing::none);
  EXPECT_EQ(none.read_all(), "");
}

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(HAMI_FIXTURE_DIR) + "/apiserver/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ErrorFromReply, StatusBodies) {
  const ApiError conflict =
      error_from_reply(409, "Conflict", fixture("status-409-conflict.json"), {});
  EXPECT_EQ(conflict.status(), 409);
  EXPECT_EQ(conflict.reason(), "Conflict");
  EXPECT_EQ(conflict.message(),
            "Operation cannot be fulfilled on pods \"llm-serve-6f7d8c9b5-k2l3m\": the object has "
            "been modified; please apply your changes to the latest version and try again");
  EXPECT_EQ(std::string(conflict.what()), "HTTP 409 Conflict: " + conflict.message());

  const ApiError expired = error_from_reply(410, "Gone", fixture("status-410-expired.json"), {});
  EXPECT_EQ(expired.reason(), "Expired");
  EXPECT_EQ(expired.message().rfind("The provided continue parameter is too old", 0), 0u);

  const ApiError busy =
      error_from_reply(429, "Too Many Requests", fixture("status-429-too-many-requests.json"),
                       std::chrono::seconds(1));
  EXPECT_EQ(busy.reason(), "TooManyRequests");
  EXPECT_EQ(busy.message(), "Too many requests, please try again later.");
  EXPECT_EQ(busy.retry_after(), std::chrono::seconds(1));
}

TEST(ErrorFromReply, OtherBodies) {
  const ApiError text = error_from_reply(502, "Bad Gateway", "upstream connect error", {});
  EXPECT_EQ(text.reason(), "");
  EXPECT_EQ(text.message(), "upstream connect error");
  const ApiError empty = error_from_reply(503, "Service Unavailable", "", {});
  EXPECT_EQ(empty.message(), "Service Unavailable");
  EXPECT_EQ(std::string(empty.what()), "HTTP 503: Service Unavailable");
  const ApiError transport(0, "", "connect refused");
  EXPECT_EQ(std::string(transport.what()), "connect refused");
}

TEST(RetryAfter, DeltaSecondsOnly) {
  EXPECT_EQ(parse_retry_after("3"), std::chrono::seconds(3));
  EXPECT_EQ(parse_retry_after(" 120 "), std::chrono::seconds(120));
  EXPECT_EQ(parse_retry_after("0"), std::chrono::seconds(0));
  EXPECT_EQ(parse_retry_after("-1"), std::nullopt);
  EXPECT_EQ(parse_retry_after(""), std::nullopt);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
}

TEST(QueryEscape, KeepsUnreservedOnly) {
  EXPECT_EQ(query_escape("spec.nodeName=gpu-1"), "spec.nodeName%3Dgpu-1");
  EXPECT_EQ(query_escape("a b/c~_-.,&?"), "a%20b%2Fc~_-.%2C%26%3F");
  EXPECT_EQ(query_escape("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(query_escape(""), "");
}

}  // namespace
}  // namespace hami::kube
