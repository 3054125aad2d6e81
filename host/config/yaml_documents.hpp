// Every document of a YAML stream, without yaml-cpp 0.7's endless loop.
//
// YAML::LoadAll loops when the parser meets a token that cannot start a
// value (a lone ",", for one): each round yields an empty document without
// consuming the token, and the list of documents grows until memory is gone
// (fixed upstream after 0.8.0). The stream is first walked with an event
// handler that notices a document made only of a null at the very place the
// previous one was; only a stream that walks to its end is then loaded.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace hami::config {

// The documents of `text`, as YAML::LoadAll returns them. Throws
// YAML::Exception (ParserException with the position where the parser
// stopped advancing, or what yaml-cpp itself throws).
std::vector<YAML::Node> load_yaml_documents(const std::string& text);

}  // namespace hami::config
