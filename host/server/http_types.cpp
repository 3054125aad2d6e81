#include "server/http_types.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "server/http_text.hpp"

namespace hami::server {

std::string_view Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (ascii_iequals(key, name))
      return value;
  }
  return {};
}

std::size_t Response::body_size() const {
  std::size_t size = body.size();
  for (const std::string_view piece : tail)
    size += piece.size();
  return size;
}

std::string error_body(std::string_view message) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("error");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace hami::server
