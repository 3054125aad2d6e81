#include "extender/extender_replies.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <functional>

namespace hami::extender {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

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

namespace {

std::string encode_filter_result_fields(const FilterResultOut& r);

// The bytes of `source` between `first` and `second` when both lie in it,
// `second` after `first`, and those bytes are JSON whitespace around a
// single comma: what separates two consecutive elements of an array.
// Empty otherwise.
std::string_view separator_between(std::string_view source, std::string_view first,
                                   std::string_view second) {
  const auto at = [&source](std::string_view piece) {
    const std::less_equal<const char*> le;
    const char* const end = source.data() + source.size();
    return le(source.data(), piece.data()) && le(piece.data() + piece.size(), end);
  };
  if (source.empty() || !at(first) || !at(second))
    return {};
  const char* const from = first.data() + first.size();
  if (!std::less<const char*>()(from, second.data()))
    return {};
  const std::string_view gap(from, static_cast<size_t>(second.data() - from));
  bool comma = false;
  for (const char c : gap) {
    if (c == ',' && !comma) {
      comma = true;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      return {};
    }
  }
  return comma ? gap : std::string_view();
}

}  // namespace

EncodedFilterResult encode_filter_result_parts(const FilterResultOut& r) {
  EncodedFilterResult out;
  if (!r.node_texts && !r.nodes_text) {
    out.head = encode_filter_result_fields(r);
    return out;
  }
  // The other fields come from the writer with Nodes null; the node texts
  // go between as views.
  FilterResultOut rest = r;
  rest.node_texts.reset();
  rest.nodes_text.reset();
  rest.nodes_list = nullptr;
  rest.node_items.reset();
  const std::string fields = encode_filter_result_fields(rest);
  constexpr std::string_view kNullNodes = R"({"Nodes":null)";
  if (r.nodes_text) {
    out.head = R"({"Nodes":)";
    out.views.push_back(*r.nodes_text);
    out.trailer = fields.substr(kNullNodes.size());
    return out;
  }
  static constexpr std::string_view kComma = ",";
  out.head = R"({"Nodes":{"metadata":{},"items":[)";
  out.views.reserve(r.node_texts->size() * 2);
  for (size_t i = 0; i < r.node_texts->size(); ++i) {
    const std::string_view text = (*r.node_texts)[i];
    if (i > 0) {
      // Items that follow each other in the request become one view: when
      // every node fits, the reply's items are a single slice of the
      // request and are written without staging.
      std::string_view& previous = out.views.back();
      const std::string_view gap = separator_between(r.node_texts_source, previous, text);
      if (!gap.empty()) {
        previous = std::string_view(previous.data(), previous.size() + gap.size() + text.size());
        continue;
      }
      out.views.push_back(kComma);
    }
    out.views.push_back(text);
  }
  out.trailer.reserve(fields.size() - kNullNodes.size() + 2);
  out.trailer = "]}";
  out.trailer.append(fields, kNullNodes.size());
  return out;
}

std::string EncodedFilterResult::joined() const {
  size_t bytes = head.size() + trailer.size();
  for (const std::string_view v : views)
    bytes += v.size();
  std::string all;
  all.reserve(bytes);
  all += head;
  for (const std::string_view v : views)
    all += v;
  all += trailer;
  return all;
}

std::string encode_filter_result(const FilterResultOut& r) {
  EncodedFilterResult parts = encode_filter_result_parts(r);
  if (parts.views.empty() && parts.trailer.empty())
    return std::move(parts.head);
  return parts.joined();
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
    for (const rapidjson::Value* item : *r.node_items)
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
