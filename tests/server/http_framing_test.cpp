// The request framing of the event-loop server, without sockets: the head
// parser (limits and their answers, incremental input, framing fields) and
// the chunked body decoder.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "k8s/json_brackets.hpp"
#include "k8s/json_depth.hpp"
#include "server/http_head_parser.hpp"
#include "server/http_reply.hpp"

namespace hami::server {
namespace {

struct Parsed {
  HeadParser::State state;
  std::size_t used;
  RequestHead head;
  HeadError error;
};

Parsed parse(const std::string& text) {
  HeadParser p;
  const std::size_t used = p.feed(text);
  return {p.state(), used, p.head(), p.error()};
}

// The same text fed one byte at a time ends in the same state.
Parsed parse_bytewise(const std::string& text) {
  HeadParser p;
  std::size_t used = 0;
  for (const char c : text) {
    if (p.state() != HeadParser::State::incomplete)
      break;
    used += p.feed(std::string_view(&c, 1));
  }
  return {p.state(), used, p.head(), p.error()};
}

TEST(HeadParser, SimpleRequestAndWhatFollowsIt) {
  const std::string head =
      "POST /mutate-pod?timeout=10s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 5\r\n\r\n";
  const Parsed p = parse(head + "hello");
  ASSERT_EQ(p.state, HeadParser::State::complete);
  EXPECT_EQ(p.used, head.size()) << "the body is left for the caller";
  EXPECT_EQ(p.head.method, "POST");
  EXPECT_EQ(p.head.target, "/mutate-pod?timeout=10s");
  EXPECT_EQ(p.head.minor_version, 1);
  EXPECT_EQ(p.head.content_length, 5u);
  EXPECT_FALSE(p.head.chunked);
  EXPECT_TRUE(p.head.keep_alive);
  EXPECT_EQ(p.head.content_type, "application/json");
  ASSERT_EQ(p.head.headers.size(), 3u);
  EXPECT_EQ(p.head.headers[0], (std::pair<std::string, std::string>{"Host", "x"}));
}

TEST(HeadParser, ByteByByteGivesTheSameHead) {
  const std::string text =
      "\r\nGET /healthz HTTP/1.0\nConnection: keep-alive\nX-A:  spaced value \t\n\nNEXT";
  const Parsed whole = parse(text);
  const Parsed bytes = parse_bytewise(text);
  ASSERT_EQ(whole.state, HeadParser::State::complete);
  ASSERT_EQ(bytes.state, HeadParser::State::complete);
  EXPECT_EQ(whole.used, text.size() - 4);
  EXPECT_EQ(bytes.used, whole.used);
  EXPECT_EQ(bytes.head.headers, whole.head.headers);
  EXPECT_EQ(whole.head.minor_version, 0);
  EXPECT_TRUE(whole.head.keep_alive) << "HTTP/1.0 with Connection: keep-alive";
  EXPECT_EQ(whole.head.headers[1].second, "spaced value");
}

TEST(HeadParser, ConnectionAndVersionDecideKeepAlive) {
  EXPECT_FALSE(parse("GET / HTTP/1.0\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(parse("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(parse("GET / HTTP/1.1\r\nConnection: te, close\r\n\r\n").head.keep_alive);
  EXPECT_TRUE(parse("GET / HTTP/1.1\r\nConnection: Keep-Alive\r\n\r\n").head.keep_alive);
  EXPECT_TRUE(parse("GET / HTTP/1.1\r\n\r\n").head.keep_alive);
}

TEST(HeadParser, FramingFields) {
  const Parsed chunked =
      parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 10\r\n\r\n");
  ASSERT_EQ(chunked.state, HeadParser::State::complete);
  EXPECT_TRUE(chunked.head.chunked);
  EXPECT_FALSE(chunked.head.content_length) << "chunked wins over Content-Length";
  EXPECT_TRUE(parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n").head.expect_continue);
  const Parsed same = parse("POST / HTTP/1.1\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\n");
  ASSERT_EQ(same.state, HeadParser::State::complete);
  EXPECT_EQ(same.head.content_length, 3u);
}

struct Refusal {
  const char* name;
  std::string text;
  int status;
};

TEST(HeadParser, RefusalsSayWhichLimitWasBroken) {
  std::string many = "GET / HTTP/1.1\r\n";
  for (std::size_t i = 0; i <= kMaxFields; ++i)
    many += "X-" + std::to_string(i) + ": v\r\n";
  const std::vector<Refusal> cases = {
      {"garbage", "\x01\x02 nonsense\r\n\r\n", 400},
      {"no version", "GET /\r\n\r\n", 400},
      {"HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", 400},
      {"long method", std::string(kMaxMethod + 1, 'G') + " / HTTP/1.1\r\n\r\n", 400},
      {"control in target", "GET /a\x7f HTTP/1.1\r\n\r\n", 400},
      {"long target", "GET /" + std::string(kMaxTarget, 't') + " HTTP/1.1\r\n\r\n", 414},
      {"very long target", "GET /" + std::string(3 * kMaxTarget, 't') + " HTTP/1.1\r\n\r\n", 414},
      {"too many fields", many + "\r\n", 431},
      {"long name", "GET / HTTP/1.1\r\n" + std::string(kMaxFieldName + 1, 'n') + ": v\r\n\r\n",
       431},
      {"long value", "GET / HTTP/1.1\r\nX: " + std::string(kMaxFieldValue + 1, 'v') + "\r\n\r\n",
       431},
      {"endless value", "GET / HTTP/1.1\r\nX: " + std::string(4 * kMaxFieldValue, 'v'), 431},
      {"folded line", "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400},
      {"no colon", "GET / HTTP/1.1\r\nnonsense\r\n\r\n", 400},
      {"space in name", "GET / HTTP/1.1\r\nX Y: v\r\n\r\n", 400},
      {"bad length", "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400},
      {"negative length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"conflicting lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
       400},
      {"gzip coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400},
      {"chunked not last", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400},
  };
  for (const auto& c : cases) {
    for (const Parsed& p : {parse(c.text), parse_bytewise(c.text)}) {
      ASSERT_EQ(p.state, HeadParser::State::refused) << c.name;
      EXPECT_EQ(p.error.status, c.status) << c.name;
    }
  }
  EXPECT_STREQ(kTargetTooLong.message, "request target too long or malformed");
  EXPECT_STREQ(kFieldsTooLarge.message, "request header fields too large or too many");
  EXPECT_STREQ(kBadHead.message, "malformed request head");
}

TEST(HeadParser, AnOverlongLineIsRefusedBeforeItEnds) {
  HeadParser p;
  p.feed("GET /");
  p.feed(std::string(kMaxTarget + 64, 't'));
  EXPECT_EQ(p.state(), HeadParser::State::refused);
  EXPECT_EQ(p.error().status, 414);
}

TEST(HeadParser, ResetServesTheNextRequest) {
  HeadParser p;
  const std::string two = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
  const std::size_t first = p.feed(two);
  ASSERT_EQ(p.state(), HeadParser::State::complete);
  EXPECT_EQ(p.head().target, "/a");
  EXPECT_EQ(p.feed("more"), 0u) << "nothing is consumed once complete";
  p.reset();
  EXPECT_FALSE(p.started());
  p.feed(std::string_view(two).substr(first));
  ASSERT_EQ(p.state(), HeadParser::State::complete);
  EXPECT_EQ(p.head().target, "/b");
}

TEST(HeadParser, EmptyLinesAloneDoNotStartARequest) {
  HeadParser p;
  p.feed("\r\n\r\n\n");
  EXPECT_FALSE(p.started());
  p.feed("G");
  EXPECT_TRUE(p.started());
}

std::string decode(const std::string& wire, ChunkedDecoder::State* state = nullptr,
                   std::size_t* used = nullptr, std::size_t step = 0) {
  ChunkedDecoder d;
  std::string body;
  std::size_t consumed = 0;
  if (step == 0) {
    consumed = d.feed(wire, body);
  } else {
    for (std::size_t at = 0; at < wire.size() && d.state() == ChunkedDecoder::State::more;
         at += step)
      consumed += d.feed(std::string_view(wire).substr(at, step), body);
  }
  if (state != nullptr)
    *state = d.state();
  if (used != nullptr)
    *used = consumed;
  return body;
}

TEST(ChunkedDecoder, DecodesChunksExtensionsAndTrailers) {
  const std::string wire =
      "5;name=value\r\nhello\r\n7\r\n, world\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\nNEXT";
  for (const std::size_t step : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
    ChunkedDecoder::State state{};
    std::size_t used = 0;
    EXPECT_EQ(decode(wire, &state, &used, step), "hello, world0123456789") << "step " << step;
    EXPECT_EQ(state, ChunkedDecoder::State::done);
    EXPECT_EQ(used, wire.size() - 4) << "the next request is left";
  }
}

TEST(ChunkedDecoder, MalformedFramingIsReported) {
  const std::vector<std::string> wires = {"x\r\n", "5\r\nhelloXX\r\n", "-1\r\n",
                                          "fffffffffffffffff\r\n", std::string(5000, '1')};
  for (const std::string& wire : wires) {
    ChunkedDecoder::State state{};
    decode(wire, &state);
    EXPECT_EQ(state, ChunkedDecoder::State::malformed) << wire.substr(0, 40);
  }
}

TEST(HttpReply, ResponseHeadCarriesLengthAndConnection) {
  Response r;
  r.status = 405;
  r.headers.emplace_back("Allow", "GET");
  std::string out;
  append_response_head(out, r, 12, 1, true);
  EXPECT_EQ(out.rfind("HTTP/1.1 405 Method Not Allowed\r\nDate: ", 0), 0u) << out;
  EXPECT_NE(out.find("\r\nContent-Type: application/json\r\nAllow: GET\r\nContent-Length: 12\r\n"
                     "Connection: Close\r\n\r\n"),
            std::string::npos)
      << out;
  out.clear();
  r.content_type.clear();
  append_response_head(out, r, 0, 0, false);
  EXPECT_EQ(out.rfind("HTTP/1.0 405", 0), 0u);
  EXPECT_EQ(out.find("Content-Type"), std::string::npos);
  EXPECT_NE(out.find("Connection: Keep-Alive\r\n\r\n"), std::string::npos) << out;
}

TEST(HttpReply, DateIsTheImfFixdate) {
  EXPECT_EQ(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(http_date(1795968000), "Sun, 29 Nov 2026 16:00:00 GMT");
}

TEST(JsonBrackets, CountsEveryOpeningBracketInBlocksWithoutOverflow) {
  EXPECT_EQ(k8s::json_open_brackets(""), 0u);
  EXPECT_EQ(k8s::json_open_brackets(R"({"a":["[{",{}]})"), 5u);
  // More than 255 in one block and across blocks.
  EXPECT_EQ(k8s::json_open_brackets(std::string(1000, '[')), 1000u);
  EXPECT_EQ(k8s::json_open_brackets(std::string(300, '{') + std::string(300, 'x')), 300u);
}

TEST(JsonDepth, DeeperThanOnlyWhenTheNestingIs) {
  // Many brackets, little depth: the exact scan decides.
  std::string flat;
  for (int i = 0; i < 2000; ++i)
    flat += "[]";
  EXPECT_FALSE(k8s::json_nests_deeper_than(flat, 512));
  EXPECT_FALSE(k8s::json_nests_deeper_than(std::string(512, '['), 512));
  EXPECT_TRUE(k8s::json_nests_deeper_than(std::string(513, '['), 512));
  EXPECT_FALSE(k8s::json_nests_deeper_than("\"" + std::string(600, '[') + "\"", 512));
}

}  // namespace
}  // namespace hami::server
