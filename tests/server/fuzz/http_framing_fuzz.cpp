// Fuzz target: the server's request framing. The input is split at a
// position taken from its first byte and fed in two parts, so the parsers'
// incremental paths are exercised; whatever follows a complete head is fed
// to the chunked decoder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/http_head_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t split = data[0] % (input.size() + 1);
  hami::server::HeadParser head;
  std::size_t used = head.feed(input.substr(0, split));
  if (used == split)
    used += head.feed(input.substr(split));
  if (used > input.size())
    __builtin_trap();
  if (head.state() == hami::server::HeadParser::State::refused) {
    const int status = head.error().status;
    if (status != 400 && status != 414 && status != 431)
      __builtin_trap();
    return 0;
  }
  if (head.state() != hami::server::HeadParser::State::complete)
    return 0;
  const hami::server::RequestHead& parsed = head.head();
  if (parsed.headers.size() > hami::server::kMaxFields ||
      parsed.target.size() > hami::server::kMaxTarget)
    __builtin_trap();
  hami::server::ChunkedDecoder chunks;
  std::string body;
  const std::string_view rest = input.substr(used);
  const std::size_t half = rest.size() / 2;
  std::size_t taken = chunks.feed(rest.substr(0, half), body);
  if (taken == half)
    taken += chunks.feed(rest.substr(half), body);
  if (taken > rest.size() || body.size() > rest.size())
    __builtin_trap();
  return 0;
}
