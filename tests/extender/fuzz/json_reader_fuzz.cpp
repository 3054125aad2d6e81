// Fuzz target: JsonReader against RapidJSON's own reader. Any input is
// either refused by both or read by both into the same document: the same
// types, the same number events (Int, Uint, Int64, Uint64, Double), the same
// string bytes, the same members in the same order. When refused, the
// failure says the same as RapidJSON (json_syntax_error), and a too-deep
// text is too deep for both.
#include <rapidjson/document.h>
#include <rapidjson/reader.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "extender/json_reader.hpp"
#include "extender/json_syntax_error.hpp"

namespace {

constexpr std::size_t kDepth = 64;

// Forwards the reader's events to a document, refusing past kDepth levels.
struct Bounded : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Bounded> {
  explicit Bounded(rapidjson::Document& d) : doc(d) {}
  bool Null() { return doc.Null(); }
  bool Bool(bool b) { return doc.Bool(b); }
  bool Int(int i) { return doc.Int(i); }
  bool Uint(unsigned u) { return doc.Uint(u); }
  bool Int64(int64_t i) { return doc.Int64(i); }
  bool Uint64(uint64_t u) { return doc.Uint64(u); }
  bool Double(double d) { return doc.Double(d); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return doc.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return doc.Key(s, n, copy); }
  bool StartObject() { return ++depth <= kDepth && doc.StartObject(); }
  bool StartArray() { return ++depth <= kDepth && doc.StartArray(); }
  bool EndObject(rapidjson::SizeType n) {
    --depth;
    return doc.EndObject(n);
  }
  bool EndArray(rapidjson::SizeType n) {
    --depth;
    return doc.EndArray(n);
  }
  rapidjson::Document& doc;
  std::size_t depth = 0;
};

bool same(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.GetType() != b.GetType())
    return false;
  if (a.IsNumber()) {
    if (a.IsInt() != b.IsInt() || a.IsUint() != b.IsUint() || a.IsInt64() != b.IsInt64() ||
        a.IsUint64() != b.IsUint64() || a.IsDouble() != b.IsDouble())
      return false;
    if (a.IsDouble()) {
      const double x = a.GetDouble();
      const double y = b.GetDouble();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    return a.IsUint64() ? a.GetUint64() == b.GetUint64() : a.GetInt64() == b.GetInt64();
  }
  if (a.IsString()) {
    return a.GetStringLength() == b.GetStringLength() &&
           std::memcmp(a.GetString(), b.GetString(), a.GetStringLength()) == 0 &&
           a.GetString()[a.GetStringLength()] == '\0';
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size())
      return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
      if (!same(a[i], b[i]))
        return false;
    }
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount())
      return false;
    for (auto x = a.MemberBegin(), y = b.MemberBegin(); x != a.MemberEnd(); ++x, ++y) {
      if (!same(x->name, y->name) || !same(x->value, y->value))
        return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  rapidjson::Document expected;
  rapidjson::Reader reader;
  rapidjson::StringStream in(text.c_str());
  Bounded bounded(expected);
  auto reference = [&](rapidjson::Document&) { return !reader.Parse(in, bounded).IsError(); };
  expected.Populate(reference);
  const bool reference_ok = !reader.HasParseError();
  const bool reference_deep = bounded.depth > kDepth;

  rapidjson::Document got;
  const auto strings = std::make_unique<char[]>(text.size() + 1);
  hami::extender::JsonReader ours(text, strings.get(), got, kDepth);
  auto generate = [&](rapidjson::Document&) {
    return ours.value(true, 0) &&
           (ours.peek() == '\0' || ours.fail(hami::extender::JsonReader::Failure::syntax));
  };
  got.Populate(generate);
  const auto failure = ours.failure();

  if (reference_ok) {
    if (failure != hami::extender::JsonReader::Failure::none || !same(got, expected))
      __builtin_trap();
    if (hami::extender::json_syntax_error(text, kDepth))
      __builtin_trap();
    return 0;
  }
  if (failure == hami::extender::JsonReader::Failure::none)
    __builtin_trap();
  if ((failure == hami::extender::JsonReader::Failure::too_deep) != reference_deep)
    __builtin_trap();
  const auto error = hami::extender::json_syntax_error(text, kDepth);
  if (!error || error->too_deep != reference_deep)
    __builtin_trap();
  return 0;
}
