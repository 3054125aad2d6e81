#include "extender/json_syntax_error.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

namespace hami::extender {

namespace {

// Checks nothing but the nesting: the reader recurses once per level, so
// the bound stops it before the stack can run out.
struct DepthBound : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, DepthBound> {
  explicit DepthBound(std::size_t max) : max_depth(max) {}
  bool StartObject() { return enter(); }
  bool StartArray() { return enter(); }
  bool EndObject(rapidjson::SizeType) { return leave(); }
  bool EndArray(rapidjson::SizeType) { return leave(); }

  bool enter() {
    if (++depth > max_depth) {
      too_deep = true;
      return false;
    }
    return true;
  }
  bool leave() {
    --depth;
    return true;
  }

  std::size_t max_depth;
  std::size_t depth = 0;
  bool too_deep = false;
};

}  // namespace

std::optional<JsonSyntaxError> json_syntax_error(std::string_view text, std::size_t max_depth) {
  rapidjson::StringStream in(text.data());
  rapidjson::Reader reader;
  DepthBound bound(max_depth);
  if (!reader.Parse(in, bound).IsError())
    return std::nullopt;
  if (bound.too_deep) {
    return JsonSyntaxError{
        "request body nests JSON deeper than " + std::to_string(max_depth) + " levels", true};
  }
  return JsonSyntaxError{"invalid JSON at offset " + std::to_string(reader.GetErrorOffset()) +
                             ": " + rapidjson::GetParseError_En(reader.GetParseErrorCode()),
                         false};
}

}  // namespace hami::extender
