#include "server/http_head_parser.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "server/http_text.hpp"

namespace hami::server {
namespace {

bool is_token_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u <= 32 || u >= 127)
    return false;
  return std::strchr("\"(),/:;<=>?@[\\]{}", c) == nullptr;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char);
}

// Calls `each` with every comma-separated element of a list field, trimmed.
template <typename F>
void for_each_element(std::string_view list, F each) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    each(trim_ows(list.substr(0, comma)));
    if (comma == std::string_view::npos)
      break;
    list.remove_prefix(comma + 1);
  }
}

bool parse_decimal(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 19)
    return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

void HeadParser::reset() {
  state_ = State::incomplete;
  error_ = kBadHead;
  head_ = RequestHead{};
  partial_.clear();
  have_request_line_ = false;
  started_ = false;
}

std::size_t HeadParser::line_limit() const {
  if (!have_request_line_)
    return kMaxMethod + 1 + kMaxTarget + 1 + 8 + 1;  // "METHOD SP TARGET SP HTTP/1.1 CR"
  return kMaxFieldName + 1 + kMaxFieldValue + 64;    // name, ':', value, generous spaces
}

void HeadParser::refuse(HeadError error) {
  state_ = State::refused;
  error_ = error;
}

std::size_t HeadParser::feed(std::string_view data) {
  std::size_t used = 0;
  while (state_ == State::incomplete && used < data.size()) {
    const std::string_view rest = data.substr(used);
    const auto nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      if (partial_.size() + rest.size() > line_limit()) {
        // The line cannot end within its limit: say which limit it broke.
        if (!have_request_line_) {
          const std::string_view line = partial_.empty() ? rest : std::string_view(partial_);
          refuse(line.find(' ') != std::string_view::npos ||
                         partial_.size() + rest.size() > kMaxMethod
                     ? kTargetTooLong
                     : kBadHead);
        } else {
          refuse(kFieldsTooLarge);
        }
        return used + rest.size();
      }
      partial_.append(rest);
      started_ = started_ || std::any_of(rest.begin(), rest.end(),
                                         [](char c) { return c != '\r' && c != '\n'; });
      return data.size();
    }
    std::string_view text = rest.substr(0, nl);
    used += nl + 1;
    if (!partial_.empty()) {
      partial_.append(text);
      text = partial_;
    }
    if (!text.empty() && text.back() == '\r')
      text.remove_suffix(1);
    if (text.size() > line_limit()) {
      refuse(have_request_line_ ? kFieldsTooLarge : kTargetTooLong);
      return used;
    }
    line(text);
    partial_.clear();
  }
  return used;
}

void HeadParser::line(std::string_view text) {
  if (!have_request_line_) {
    if (text.empty())
      return;  // empty lines before the request line are allowed
    started_ = true;
    request_line(text);
    return;
  }
  if (text.empty()) {
    finish();
    return;
  }
  field_line(text);
}

void HeadParser::request_line(std::string_view text) {
  const auto sp1 = text.find(' ');
  if (sp1 == std::string_view::npos) {
    refuse(kBadHead);
    return;
  }
  const std::string_view method = text.substr(0, sp1);
  if (method.size() > kMaxMethod || !is_token(method)) {
    refuse(kBadHead);
    return;
  }
  const auto sp2 = text.rfind(' ');
  if (sp2 == sp1) {
    refuse(kBadHead);
    return;
  }
  const std::string_view target = text.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.size() > kMaxTarget) {
    refuse(kTargetTooLong);
    return;
  }
  if (target.empty() || std::any_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) <= 32 || c == 127;
      })) {
    refuse(kBadHead);
    return;
  }
  const std::string_view version = text.substr(sp2 + 1);
  if (version == "HTTP/1.1") {
    head_.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    head_.minor_version = 0;
  } else {
    refuse(kBadHead);
    return;
  }
  head_.method.assign(method);
  head_.target.assign(target);
  have_request_line_ = true;
}

void HeadParser::field_line(std::string_view text) {
  if (text.front() == ' ' || text.front() == '\t') {
    refuse(kBadHead);  // obsolete line folding
    return;
  }
  if (head_.headers.size() >= kMaxFields) {
    refuse(kFieldsTooLarge);
    return;
  }
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    refuse(text.size() > kMaxFieldName ? kFieldsTooLarge : kBadHead);
    return;
  }
  const std::string_view name = text.substr(0, colon);
  const std::string_view value = trim_ows(text.substr(colon + 1));
  if (name.size() > kMaxFieldName || value.size() > kMaxFieldValue) {
    refuse(kFieldsTooLarge);
    return;
  }
  if (!is_token(name)) {
    refuse(kBadHead);
    return;
  }
  head_.headers.emplace_back(std::string(name), std::string(value));
}

void HeadParser::finish() {
  bool close = false;
  bool keep_alive = false;
  for (const auto& [name, value] : head_.headers) {
    if (ascii_iequals(name, "content-length")) {
      std::uint64_t length = 0;
      if (!parse_decimal(value, length) ||
          (head_.content_length && *head_.content_length != length)) {
        refuse(kBadHead);
        return;
      }
      head_.content_length = length;
    } else if (ascii_iequals(name, "transfer-encoding")) {
      bool chunked_last = false;
      bool other = false;
      for_each_element(value, [&](std::string_view coding) {
        if (coding.empty())
          return;
        if (chunked_last)
          other = true;  // chunked must be the final coding
        if (ascii_iequals(coding, "chunked")) {
          chunked_last = true;
        } else {
          other = true;
        }
      });
      if (other || !chunked_last) {
        refuse(kBadHead);
        return;
      }
      head_.chunked = true;
    } else if (ascii_iequals(name, "connection")) {
      for_each_element(value, [&](std::string_view option) {
        if (ascii_iequals(option, "close"))
          close = true;
        else if (ascii_iequals(option, "keep-alive"))
          keep_alive = true;
      });
    } else if (ascii_iequals(name, "expect")) {
      head_.expect_continue = ascii_iequals(value, "100-continue");
    } else if (ascii_iequals(name, "content-type") && head_.content_type.empty()) {
      head_.content_type = value;
    }
  }
  // A chunked body ignores any Content-Length (RFC 9112 §6.3).
  if (head_.chunked)
    head_.content_length.reset();
  head_.keep_alive = !close && (head_.minor_version >= 1 || keep_alive);
  state_ = State::complete;
}

bool ChunkedDecoder::size_line(std::string_view text) {
  const auto ext = text.find(';');
  std::string_view digits = trim_ows(text.substr(0, ext));
  if (digits.empty() || digits.size() > 15)
    return false;
  std::uint64_t size = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
  if (ec != std::errc() || end != digits.data() + digits.size())
    return false;
  remaining_ = size;
  step_ = size == 0 ? Step::trailer : Step::data;
  return true;
}

std::size_t ChunkedDecoder::feed(std::string_view data, std::string& body) {
  constexpr std::size_t kMaxLine = 4096;
  std::size_t used = 0;
  while (state_ == State::more && used < data.size()) {
    if (step_ == Step::data) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, data.size() - used));
      body.append(data.data() + used, n);
      used += n;
      remaining_ -= n;
      if (remaining_ == 0)
        step_ = Step::data_end;
      continue;
    }
    // size, data_end and trailer are line-based.
    const std::string_view rest = data.substr(used);
    const auto nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      line_.append(rest);
      if (line_.size() > kMaxLine)
        state_ = State::malformed;
      return data.size();
    }
    line_.append(rest.substr(0, nl));
    used += nl + 1;
    std::string_view text = line_;
    if (!text.empty() && text.back() == '\r')
      text.remove_suffix(1);
    if (text.size() > kMaxLine) {
      state_ = State::malformed;
      return used;
    }
    switch (step_) {
      case Step::size:
        if (!size_line(text))
          state_ = State::malformed;
        break;
      case Step::data_end:
        if (!text.empty())
          state_ = State::malformed;
        step_ = Step::size;
        break;
      case Step::trailer:
        if (text.empty())
          state_ = State::done;
        break;
      case Step::data:
        break;
    }
    line_.clear();
  }
  return used;
}

}  // namespace hami::server
