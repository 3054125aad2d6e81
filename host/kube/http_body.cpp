#include "kube/http_body.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace hami::kube {
namespace {

constexpr size_t kBufferSize = 16 * 1024;
// A chunk-size line is a hex number and optional extensions; anything
// longer is not HTTP.
constexpr size_t kMaxLine = 4096;

}  // namespace

HttpBodyReader::HttpBodyReader(Source source, Framing framing, uint64_t length)
    : source_(std::move(source)), framing_(framing), remaining_(length) {
  done_ = framing_ == Framing::none || (framing_ == Framing::length && remaining_ == 0);
}

size_t HttpBodyReader::fill() {
  buffer_.resize(kBufferSize);
  pos_ = 0;
  const size_t n = source_(buffer_.data(), buffer_.size());
  buffer_.resize(n);
  return n;
}

int HttpBodyReader::next_byte() {
  if (pos_ == buffer_.size() && fill() == 0)
    return -1;
  return static_cast<unsigned char>(buffer_[pos_++]);
}

std::string HttpBodyReader::line() {
  std::string out;
  for (;;) {
    const int c = next_byte();
    if (c < 0)
      throw HttpBodyError("the connection closed inside the chunked body");
    if (c == '\n')
      break;
    if (out.size() == kMaxLine)
      throw HttpBodyError("malformed chunked body: chunk line too long");
    out += static_cast<char>(c);
  }
  if (!out.empty() && out.back() == '\r')
    out.pop_back();
  return out;
}

size_t HttpBodyReader::take(char* out, size_t max) {
  if (pos_ < buffer_.size()) {
    const size_t n = std::min(max, buffer_.size() - pos_);
    std::memcpy(out, buffer_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  return source_(out, max);
}

size_t HttpBodyReader::read(char* out, size_t max) {
  if (done_ || max == 0)
    return 0;
  switch (framing_) {
    case Framing::none:
      return 0;
    case Framing::until_close: {
      const size_t n = take(out, max);
      if (n == 0)
        done_ = true;
      return n;
    }
    case Framing::length: {
      const size_t n = take(out, static_cast<size_t>(std::min<uint64_t>(max, remaining_)));
      if (n == 0)
        throw HttpBodyError("the connection closed with " + std::to_string(remaining_) +
                            " bytes of the body still to come");
      remaining_ -= n;
      done_ = remaining_ == 0;
      return n;
    }
    case Framing::chunked:
      break;
  }
  while (!in_chunk_) {
    const std::string size_line = line();
    const std::string hex = size_line.substr(0, size_line.find_first_of("; \t"));
    if (hex.empty() || hex.size() > 15 ||
        hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw HttpBodyError("malformed chunked body: bad chunk size \"" + size_line + "\"");
    }
    remaining_ = std::stoull(hex, nullptr, 16);
    if (remaining_ > 0) {
      in_chunk_ = true;
      break;
    }
    // The last chunk: skip trailer fields up to the empty line.
    while (!line().empty()) {
    }
    done_ = true;
    return 0;
  }
  const size_t n = take(out, static_cast<size_t>(std::min<uint64_t>(max, remaining_)));
  if (n == 0)
    throw HttpBodyError("the connection closed inside a chunk");
  remaining_ -= n;
  if (remaining_ == 0) {
    if (!line().empty())
      throw HttpBodyError("malformed chunked body: chunk data longer than its size");
    in_chunk_ = false;
  }
  return n;
}

std::string HttpBodyReader::read_all() {
  std::string body;
  char chunk[kBufferSize];
  for (;;) {
    const size_t n = read(chunk, sizeof chunk);
    if (n == 0)
      return body;
    body.append(chunk, n);
  }
}

}  // namespace hami::kube
