#include "extender/extender_codec.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <strings.h>

namespace hami::extender {

namespace {

using rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

bool key_is(const Value& name, std::string_view field) {
  return name.GetStringLength() == field.size() &&
         strncasecmp(name.GetString(), field.data(), field.size()) == 0;
}

// Go's encoding/json type words for error messages.
std::string_view go_type(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "bool";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "value";
}

[[noreturn]] void type_error(const Value& v, std::string_view field, std::string_view type) {
  throw DecodeError("json: cannot unmarshal " + std::string(go_type(v)) + " into Go struct field " +
                    std::string(field) + " of type " + std::string(type));
}

[[noreturn]] void syntax_error(const rapidjson::Document& doc) {
  throw DecodeError(std::string("invalid JSON at offset ") + std::to_string(doc.GetErrorOffset()) +
                    ": " + rapidjson::GetParseError_En(doc.GetParseError()));
}

std::string string_field(const Value& v, std::string_view field) {
  if (v.IsNull())
    return {};
  if (!v.IsString())
    type_error(v, field, "string");
  return {v.GetString(), v.GetStringLength()};
}

void write_string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void write_map(Writer& w, const std::map<std::string, std::string>& map) {
  if (map.empty()) {
    w.Null();
    return;
  }
  w.StartObject();
  for (const auto& [k, v] : map) {
    write_string(w, k);
    write_string(w, v);
  }
  w.EndObject();
}

}  // namespace

ExtenderArgs decode_extender_args(std::string_view body) {
  ExtenderArgs args;
  args.buffer.reserve(body.size() + 1);
  args.buffer.assign(body.begin(), body.end());
  args.buffer.push_back('\0');
  args.doc.ParseInsitu(args.buffer.data());
  if (args.doc.HasParseError())
    syntax_error(args.doc);
  if (!args.doc.IsObject()) {
    throw DecodeError("json: cannot unmarshal " + std::string(go_type(args.doc)) +
                      " into Go value of type v1.ExtenderArgs");
  }
  const Value* pod = nullptr;
  const Value* nodes = nullptr;
  const Value* names = nullptr;
  for (const auto& m : args.doc.GetObject()) {
    if (key_is(m.name, "Pod")) {
      pod = &m.value;
    } else if (key_is(m.name, "Nodes")) {
      nodes = &m.value;
    } else if (key_is(m.name, "NodeNames")) {
      names = &m.value;
    }
  }
  if (pod != nullptr && !pod->IsNull()) {
    if (!pod->IsObject())
      type_error(*pod, "ExtenderArgs.Pod", "v1.Pod");
    args.pod = pod;
  }
  if (nodes != nullptr && !nodes->IsNull()) {
    if (!nodes->IsObject())
      type_error(*nodes, "ExtenderArgs.Nodes", "v1.NodeList");
    args.nodes = nodes;
    const Value* items = nullptr;
    for (const auto& m : nodes->GetObject()) {
      if (key_is(m.name, "items"))
        items = &m.value;
    }
    if (items != nullptr && !items->IsNull()) {
      if (!items->IsArray())
        type_error(*items, "ExtenderArgs.Nodes.items", "[]v1.Node");
      for (const Value& item : items->GetArray()) {
        if (!item.IsObject())
          type_error(item, "ExtenderArgs.Nodes.items", "v1.Node");
        args.node_items.push_back(&item);
      }
    }
  }
  if (names != nullptr && !names->IsNull()) {
    if (!names->IsArray())
      type_error(*names, "ExtenderArgs.NodeNames", "[]string");
    std::vector<std::string> list;
    list.reserve(names->Size());
    for (const Value& n : names->GetArray()) {
      if (!n.IsString())
        type_error(n, "ExtenderArgs.NodeNames", "string");
      list.emplace_back(n.GetString(), n.GetStringLength());
    }
    args.node_names = std::move(list);
  }
  return args;
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Position of the '{' opening the object whose first key starts at `key`
// (just after its quote), or npos.
size_t object_start(std::string_view body, size_t key) {
  if (key == 0 || key > body.size() || body[key - 1] != '"')
    return std::string_view::npos;
  size_t i = key - 1;
  while (i > 0 && is_space(body[i - 1]))
    --i;
  if (i == 0 || body[i - 1] != '{')
    return std::string_view::npos;
  return i - 1;
}

// One past the '}' closing the object that opens at `start`, or npos.
size_t object_end(std::string_view body, size_t start) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = start; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0)
        return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<std::vector<std::string_view>> node_item_texts(const ExtenderArgs& args,
                                                             std::string_view body) {
  if (args.buffer.size() != body.size() + 1)
    return std::nullopt;
  const char* base = args.buffer.data();
  std::vector<size_t> starts;
  starts.reserve(args.node_items.size());
  for (const Value* item : args.node_items) {
    if (item->MemberCount() == 0)
      return std::nullopt;
    const char* key = item->MemberBegin()->name.GetString();
    if (key < base || key >= base + body.size())
      return std::nullopt;
    const size_t start = object_start(body, static_cast<size_t>(key - base));
    if (start == std::string_view::npos)
      return std::nullopt;
    starts.push_back(start);
  }
  std::vector<std::string_view> texts;
  texts.reserve(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t end = std::string_view::npos;
    if (i + 1 < starts.size()) {
      // The next item begins after "<this item>," (and whitespace).
      size_t j = starts[i + 1];
      while (j > starts[i] && is_space(body[j - 1]))
        --j;
      if (j > starts[i] && body[j - 1] == ',') {
        --j;
        while (j > starts[i] && is_space(body[j - 1]))
          --j;
        if (j > starts[i] && body[j - 1] == '}')
          end = j;
      }
    } else {
      end = object_end(body, starts[i]);
    }
    if (end == std::string_view::npos || end <= starts[i])
      return std::nullopt;
    texts.push_back(body.substr(starts[i], end - starts[i]));
  }
  return texts;
}

ExtenderBindingArgs decode_binding_args(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError())
    syntax_error(doc);
  if (!doc.IsObject()) {
    throw DecodeError("json: cannot unmarshal " + std::string(go_type(doc)) +
                      " into Go value of type v1.ExtenderBindingArgs");
  }
  ExtenderBindingArgs args;
  for (const auto& m : doc.GetObject()) {
    if (key_is(m.name, "PodName")) {
      args.pod_name = string_field(m.value, "ExtenderBindingArgs.PodName");
    } else if (key_is(m.name, "PodNamespace")) {
      args.pod_namespace = string_field(m.value, "ExtenderBindingArgs.PodNamespace");
    } else if (key_is(m.name, "PodUID")) {
      args.pod_uid = string_field(m.value, "ExtenderBindingArgs.PodUID");
    } else if (key_is(m.name, "Node")) {
      args.node = string_field(m.value, "ExtenderBindingArgs.Node");
    }
  }
  return args;
}

namespace {

std::string encode_filter_result_fields(const FilterResultOut& r);

}  // namespace

std::string encode_filter_result(const FilterResultOut& r) {
  if (!r.node_texts)
    return encode_filter_result_fields(r);
  // Raw node texts are spliced in with memcpy (the writer's RawValue copies
  // byte by byte): the other fields come from the writer with Nodes null.
  FilterResultOut rest = r;
  rest.node_texts.reset();
  rest.nodes_list = nullptr;
  rest.node_items.reset();
  const std::string tail = encode_filter_result_fields(rest);
  constexpr std::string_view kNullNodes = R"({"Nodes":null)";
  size_t bytes = tail.size() + 64;
  for (const std::string_view t : *r.node_texts)
    bytes += t.size() + 1;
  std::string out;
  out.reserve(bytes);
  out += R"({"Nodes":{"metadata":{},"items":[)";
  for (size_t i = 0; i < r.node_texts->size(); ++i) {
    if (i > 0)
      out += ',';
    out += (*r.node_texts)[i];
  }
  out += "]}";
  out.append(tail, kNullNodes.size());
  return out;
}

namespace {

std::string encode_filter_result_fields(const FilterResultOut& r) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("Nodes");
  if (r.nodes_list != nullptr) {
    r.nodes_list->Accept(w);
  } else if (r.node_items) {
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    for (const Value* item : *r.node_items)
      item->Accept(w);
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("NodeNames");
  if (r.node_names) {
    w.StartArray();
    for (const std::string& n : *r.node_names)
      write_string(w, n);
    w.EndArray();
  } else {
    w.Null();
  }
  w.Key("FailedNodes");
  write_map(w, r.failed);
  w.Key("FailedAndUnresolvableNodes");
  write_map(w, r.unresolvable);
  w.Key("Error");
  write_string(w, r.error);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

std::string encode_host_priority_list(const std::vector<HostPriority>& list) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  for (const HostPriority& h : list) {
    w.StartObject();
    w.Key("Host");
    write_string(w, h.host);
    w.Key("Score");
    w.Int64(h.score);
    w.EndObject();
  }
  w.EndArray();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string encode_binding_result(std::string_view error) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("Error");
  write_string(w, error);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace hami::extender
