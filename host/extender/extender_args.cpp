#include "extender/extender_args.hpp"

#include <stdexcept>

#include "extender/json_reader.hpp"
#include "extender/json_syntax_error.hpp"
#include "k8s/json_depth.hpp"

namespace hami::extender {

namespace {

using rapidjson::Value;

// Where a text lies in the body, and the node cache's entry for it.
struct Range {
  std::size_t begin = 0;
  std::size_t end = 0;
  const NodeObjectCache::Entry* known = nullptr;
};

// One top-level Nodes object: its text and each of its "items" arrays'
// element texts, in body order.
struct NodeListText {
  Range text;
  std::vector<std::vector<Range>> items;
};

// What an object is to the decode. The members an object of a role does
// not name are dropped with NodeFields::model (what k8s::NodeModel reads is
// kept: metadata name, uid, resourceVersion, annotations and labels; status
// allocatable and capacity; at the top level Pod, Nodes.items and
// NodeNames) and kept whole with NodeFields::all.
enum class Role : uint8_t { keep, drop, root, node_list, items, item, metadata, status };

Role member_role(Role parent, std::string_view key) {
  switch (parent) {
    case Role::root:
      if (go_field_is(key, "Nodes"))
        return Role::node_list;
      return go_field_is(key, "Pod") || go_field_is(key, "NodeNames") ? Role::keep : Role::drop;
    case Role::node_list:
      return go_field_is(key, "items") ? Role::items : Role::drop;
    case Role::item:
      if (key == "metadata")
        return Role::metadata;
      return key == "status" ? Role::status : Role::drop;
    case Role::metadata:
      return key == "name" || key == "uid" || key == "resourceVersion" || key == "annotations" ||
                     key == "labels"
                 ? Role::keep
                 : Role::drop;
    case Role::status:
      return key == "allocatable" || key == "capacity" ? Role::keep : Role::drop;
    default:
      return Role::keep;
  }
}

// Reads the body into the document by role, noting where each NodeList
// and each of its items lie in it.
class ArgsWalk {
 public:
  ArgsWalk(JsonReader& in, NodeFields fields, const NodeObjectCache::Snapshot* cache)
      : in_(in),
        fields_(fields),
        cache_(fields == NodeFields::model ? cache : nullptr),
        digest_allowance_(2 * static_cast<std::size_t>(in.end() - in.cursor())) {}

  bool root() {
    if (!(in_.peek() == '{' ? object(Role::root, 0) : in_.value(true, 0)))
      return false;
    // Only whitespace may follow the value, up to the end or a NUL.
    return in_.peek() == '\0' || in_.fail(JsonReader::Failure::syntax);
  }

  std::vector<NodeListText>& node_lists() { return node_lists_; }

 private:
  // The value of a member or element of role `role`, inside `open`
  // containers. A role applies only to the container it expects.
  bool value(Role role, std::size_t open) {
    const char c = in_.peek();
    switch (role) {
      case Role::node_list:
        if (c == '{') {
          node_lists_.push_back({{in_.offset(), 0, nullptr}, {}});
          if (!object(role, open))
            return false;
          node_lists_.back().text.end = in_.offset();
          return true;
        }
        break;
      case Role::items:
        if (c == '[')
          return items(open);
        break;
      case Role::metadata:
      case Role::status:
        if (c == '{')
          return object(role, open);
        break;
      default:
        break;
    }
    return in_.value(true, open);
  }

  bool object(Role role, std::size_t open) {
    if (!in_.enter(open))
      return false;
    in_.seek(in_.cursor() + 1);  // '{'
    rapidjson::Document& doc = in_.doc();
    doc.StartObject();
    rapidjson::SizeType count = 0;
    if (!in_.consume('}')) {
      for (;;) {
        std::string_view key;
        if (!in_.read_key(key))
          return false;
        const Role child = member_role(role, key);
        if (child == Role::drop && fields_ == NodeFields::model) {
          if (!in_.skip_member_value(open + 1))
            return false;
        } else {
          if (!in_.keep_key(key))
            return false;
          if (!in_.consume(':'))
            return in_.fail(JsonReader::Failure::syntax);
          if (!value(child, open + 1))
            return false;
          ++count;
        }
        if (in_.consume(','))
          continue;
        if (in_.consume('}'))
          break;
        return in_.fail(JsonReader::Failure::syntax);
      }
    }
    doc.EndObject(count);
    return true;
  }

  // A Nodes.items array. Every element gets a slot, so that slot i is
  // element i; only objects are nodes (anything else fails the decode
  // after the walk).
  bool items(std::size_t open) {
    if (!in_.enter(open))
      return false;
    in_.seek(in_.cursor() + 1);  // '['
    rapidjson::Document& doc = in_.doc();
    doc.StartArray();
    std::vector<Range>& slots = node_lists_.back().items.emplace_back();
    rapidjson::SizeType count = 0;
    if (!in_.consume(']')) {
      for (;;) {
        Range& slot = slots.emplace_back();
        if (in_.peek() == '{') {
          slot.begin = in_.offset();
          if (!item(slot, open + 1))
            return false;
          slot.end = in_.offset();
        } else if (!in_.value(true, open + 1)) {
          return false;
        }
        ++count;
        if (in_.consume(','))
          continue;
        if (in_.consume(']'))
          break;
        return in_.fail(JsonReader::Failure::syntax);
      }
    }
    doc.EndArray(count);
    return true;
  }

  bool item(Range& slot, std::size_t open) {
    if (fields_ == NodeFields::all)
      return in_.value(true, open);
    if (cache_ != nullptr) {
      if (!in_.enter(open))
        return false;
      // A node seen before is passed over: the document gets an empty
      // object for it.
      const char* const begin = in_.cursor();
      slot.known = cache_->find(begin, in_.end(), digest_allowance_);
      if (slot.known != nullptr) {
        in_.seek(begin + slot.known->size);
        in_.doc().StartObject();
        in_.doc().EndObject(0);
        return true;
      }
    }
    return object(Role::item, open);
  }

  JsonReader& in_;
  const NodeFields fields_;
  const NodeObjectCache::Snapshot* const cache_;
  // What cache lookups may hash for nothing in this body (see
  // NodeObjectCache::Snapshot::find).
  std::size_t digest_allowance_;
  std::vector<NodeListText> node_lists_;
};

}  // namespace

ExtenderArgs::ExtenderArgs(std::string text, NodeFields fields, const NodeObjectCache* cache)
    : body(std::move(text)) {
  if (cache != nullptr && fields == NodeFields::model)
    node_cache = cache->snapshot();
  // Decoded strings, each with a NUL, never outgrow their JSON text.
  strings_ = std::make_unique_for_overwrite<char[]>(body.size() + 1);
  JsonReader in(body, strings_.get(), doc, k8s::kMaxJsonDepth);
  ArgsWalk walk(in, fields, node_cache.get());
  auto generate = [&walk](rapidjson::Document&) { return walk.root(); };
  doc.Populate(generate);
  if (in.failure() == JsonReader::Failure::too_deep) {
    throw DecodeError("request body nests JSON deeper than " + std::to_string(k8s::kMaxJsonDepth) +
                      " levels");
  }
  if (in.failure() != JsonReader::Failure::none) {
    // RapidJSON says what is wrong, and where.
    if (const auto error = json_syntax_error(body, k8s::kMaxJsonDepth))
      throw DecodeError(error->message);
    throw std::logic_error("ExtenderArgs: refused a body RapidJSON accepts, at offset " +
                           std::to_string(in.offset()));
  }
  if (!doc.IsObject())
    throw_value_type_error(doc, "v1.ExtenderArgs");
  const Value* pod_member = nullptr;
  const Value* nodes_member = nullptr;
  const Value* names = nullptr;
  for (const auto& m : doc.GetObject()) {
    if (go_field_is(m.name, "Pod")) {
      pod_member = &m.value;
    } else if (go_field_is(m.name, "Nodes")) {
      nodes_member = &m.value;
    } else if (go_field_is(m.name, "NodeNames")) {
      names = &m.value;
    }
  }
  if (pod_member != nullptr && !pod_member->IsNull()) {
    if (!pod_member->IsObject())
      throw_type_error(*pod_member, "ExtenderArgs.Pod", "v1.Pod");
    pod = pod_member;
  }
  if (nodes_member != nullptr && !nodes_member->IsNull()) {
    if (!nodes_member->IsObject())
      throw_type_error(*nodes_member, "ExtenderArgs.Nodes", "v1.NodeList");
    nodes = nodes_member;
    // The last Nodes member wins and is an object, so it is the last one
    // the walk saw; likewise its last "items", an array.
    const auto& list = walk.node_lists().back();
    nodes_text = std::string_view(body).substr(list.text.begin, list.text.end - list.text.begin);
    const Value* items = nullptr;
    for (const auto& m : nodes->GetObject()) {
      if (go_field_is(m.name, "items"))
        items = &m.value;
    }
    if (items != nullptr && !items->IsNull()) {
      if (!items->IsArray())
        throw_type_error(*items, "ExtenderArgs.Nodes.items", "[]v1.Node");
      node_items.reserve(items->Size());
      for (const Value& item : items->GetArray()) {
        if (!item.IsObject())
          throw_type_error(item, "ExtenderArgs.Nodes.items", "v1.Node");
        node_items.push_back(&item);
      }
      const auto& ranges = list.items.back();
      if (ranges.size() != node_items.size())
        throw std::logic_error("ExtenderArgs: node texts out of step with Nodes.items");
      node_texts.reserve(ranges.size());
      known_nodes.reserve(ranges.size());
      for (const auto& r : ranges) {
        node_texts.push_back(std::string_view(body).substr(r.begin, r.end - r.begin));
        known_nodes.push_back(r.known);
      }
    }
  }
  if (names != nullptr && !names->IsNull()) {
    if (!names->IsArray())
      throw_type_error(*names, "ExtenderArgs.NodeNames", "[]string");
    std::vector<std::string> list;
    list.reserve(names->Size());
    for (const Value& n : names->GetArray()) {
      if (!n.IsString())
        throw_type_error(n, "ExtenderArgs.NodeNames", "string");
      list.emplace_back(n.GetString(), n.GetStringLength());
    }
    node_names = std::move(list);
  }
}

void ExtenderArgs::drop_document() {
  pod = nullptr;
  nodes = nullptr;
  node_items = {};
  // Swapped out with its allocator, the document frees everything when
  // `gone` does.
  rapidjson::Document gone;
  doc.Swap(gone);
  strings_.reset();
}

ExtenderArgs decode_extender_args(std::string body, NodeFields fields,
                                  const NodeObjectCache* cache) {
  return ExtenderArgs(std::move(body), fields, cache);
}

}  // namespace hami::extender
