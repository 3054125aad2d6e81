// Fuzz target: skip_member_value against RapidJSON's reader. Whatever the
// skip accepts, the reader must read as one value ending at the same
// character; the skip may refuse what the reader accepts, never the other
// way round. The first byte sets the depth budget.
#include <rapidjson/reader.h>
#include <rapidjson/stream.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "extender/json_skip.hpp"
#include "k8s/json_depth.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const std::size_t budget = data[0] % 8 == 0 ? hami::k8s::kMaxJsonDepth : data[0] % 8;
  // Just after a key: the input is what follows it.
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const char* const begin = text.c_str();
  const char* const stop = hami::extender::skip_member_value(begin, begin + text.size(), budget);
  if (stop == nullptr)
    return 0;
  if (stop < begin || stop > begin + text.size())
    __builtin_trap();
  // The value after the colon, as the reader would get it.
  std::size_t colon = text.find(':');
  if (colon == std::string::npos || static_cast<std::size_t>(stop - begin) <= colon)
    __builtin_trap();
  const std::string value =
      text.substr(colon + 1, static_cast<std::size_t>(stop - begin) - colon - 1);
  rapidjson::StringStream in(value.c_str());
  rapidjson::BaseReaderHandler<> ignore;
  rapidjson::Reader reader;
  if (reader.Parse<rapidjson::kParseStopWhenDoneFlag>(in, ignore).IsError())
    __builtin_trap();
  if (in.Tell() != value.size())
    __builtin_trap();
  // Only whitespace before the colon.
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = text[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      __builtin_trap();
  }
  return 0;
}
