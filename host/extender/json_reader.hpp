// JsonReader: reads JSON text one value at a time into a RapidJSON
// document, through the document's public SAX handler interface (the
// caller wraps the reading in rapidjson::Document::Populate), so that the
// caller chooses member by member what the document keeps.
//
// It accepts what RapidJSON's default reader accepts and nothing else:
// whitespace is space, tab, CR and LF; no comments, trailing commas, NaN or
// Infinity; strings are not checked as UTF-8; a NUL ends the text; numbers
// become the same Int/Uint/Int64/Uint64/Double events (any number that is
// not a plain integer of at most 18 digits is converted by RapidJSON's own
// reader). It does not say *why* a text is invalid: on a syntax failure the
// caller asks json_syntax_error (json_syntax_error.hpp) for RapidJSON's
// message and offset, so error texts stay RapidJSON's.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hami::extender {

class JsonReader {
 public:
  enum class Failure : uint8_t { none, syntax, too_deep };

  // `text` is followed by a NUL (as std::string::c_str() is). Strings the
  // document keeps are decoded into `strings`, which holds at least
  // text.size() + 1 bytes and outlives the document; each is NUL-terminated.
  // Containers nest at most `max_depth` levels.
  JsonReader(std::string_view text, char* strings, rapidjson::Document& doc, std::size_t max_depth);
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  rapidjson::Document& doc() { return doc_; }
  const char* cursor() const { return at_; }
  const char* end() const { return end_; }
  std::size_t offset() const { return static_cast<std::size_t>(at_ - begin_); }
  // Moves to `at`, inside the text: past a value the caller has passed over.
  void seek(const char* at) { at_ = at; }

  // Passes whitespace and returns the next character (NUL at the end).
  char peek() {
    while (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')
      ++at_;
    return *at_;
  }
  // Passes whitespace and then `c` when it comes next.
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++at_;
    return true;
  }

  // Reads the value at the cursor (after whitespace). `open` containers
  // enclose it. With `keep` its events go to the document; otherwise it is
  // only checked.
  bool value(bool keep, std::size_t open);

  // Reads the object member key at the cursor (a string) and decodes it
  // where the next kept string goes; `key` views the decoded text. The
  // caller then either keeps it (keep_key: the document gets the Key event)
  // or passes over the member (skip_member_value), which reuses that space.
  bool read_key(std::string_view& key);
  bool keep_key(std::string_view key);
  // Passes over ':' and the value of the member whose key was just read,
  // inside `open` containers, keeping nothing.
  bool skip_member_value(std::size_t open);

  // Counts the container about to open at the cursor (inside `open`
  // others), failing past the depth bound.
  bool enter(std::size_t open);

  // Records a failure at the cursor and returns false.
  bool fail(Failure failure);
  Failure failure() const { return failure_; }

 private:
  bool container(bool keep, std::size_t open, bool object);
  bool string(bool keep, std::string_view* decoded);
  bool number(bool keep);
  bool literal(std::string_view word);

  const char* const begin_;
  const char* const end_;
  const char* at_;
  char* out_;
  rapidjson::Document& doc_;
  const std::size_t max_depth_;
  Failure failure_ = Failure::none;
};

}  // namespace hami::extender
