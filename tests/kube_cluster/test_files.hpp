// Reading the fixtures the kube_cluster tests use.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace hami::kube::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string apiserver_fixture(const std::string& name) {
  return read_text(std::string(HAMI_APISERVER_FIXTURES) + "/" + name);
}

inline std::string data_file(const std::string& name) {
  return read_text(std::string(HAMI_KUBE_CLUSTER_DATA) + "/" + name);
}

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError())
    throw std::runtime_error("fixture is not JSON");
  return doc;
}

inline std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

// A pretty-printed JSON fixture in the compact form the client sends.
inline std::string compact_fixture(const std::string& name) {
  return compact(parse(apiserver_fixture(name)));
}

}  // namespace hami::kube::testing
