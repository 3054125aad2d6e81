#include "extender/extender_codec.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <strings.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>

#include "extender/json_skip.hpp"
#include "extender/string_scan.hpp"
#include "k8s/json_depth.hpp"

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

namespace {

// What the handler is dropping: the next value (after a key it does not
// want) or everything inside a dropped container.
struct Dropping {
  size_t depth = 0;
  bool next = false;
  bool any() const { return depth > 0 || next; }
};

// Reads the body and writes decoded strings elsewhere: RapidJSON's in-situ
// mode (strings decoded in place and referenced, not copied, by the
// document) without writing into the body, whose bytes replies echo. The
// non-in-situ reader pushed every character onto a stack and the document
// copied it again: twice the time. A dropped value's string is written and
// then given back, so `out` (as large as the body) has pages touched only
// for what the document keeps.
class BodyStream {
 public:
  using Ch = char;

  // `body` is `size` bytes followed by a NUL.
  BodyStream(const char* body, size_t size, char* out, const Dropping& dropping)
      : head_(body), end_(body + size), src_(body), dst_(out), dropping_(&dropping) {}

  Ch Peek() const { return *src_; }
  Ch Take() { return *src_++; }
  size_t Tell() const { return static_cast<size_t>(src_ - head_); }

  Ch* PutBegin() { return dst_; }
  void Put(Ch c) { *dst_++ = c; }
  size_t PutEnd(Ch* begin) {
    const auto length = static_cast<size_t>(dst_ - begin);
    if (dropping_->any())
      dst_ = begin;
    return length;
  }

  // Copies the string up to its closing quote, decoding the one-character
  // escapes (\" \\ \/ \b \f \n \r \t) on the way; stops at the quote, a
  // \u escape, an invalid escape or a control character (the NUL ending the
  // body included) and leaves those to the reader, so its errors and
  // offsets are unchanged. Registration annotations are JSON inside a JSON
  // string, an escaped quote every few characters: handing each escape back
  // to the reader cost more than the copying. A dropped value is only
  // scanned.
  void copy_plain() {
    const bool keep = !dropping_->any();
#if defined(__SSE2__)
    if (keep) {
      Ch* dst = dst_;
      src_ = copy_decoding_blocks(src_, dst, end_);
      dst_ = dst;
    }
#endif
    for (;;) {
      if (keep) {
        // A local, not the member, through the copy: a store through a
        // char pointer may alias the member, and reloading it after every
        // block cost more than the block.
        Ch* dst = dst_;
        src_ = copy_run(src_, dst, end_);
        dst_ = dst;
      } else {
        src_ = find_string_run_end(src_, end_);
      }
      if (*src_ != '\\')
        return;
      const char decoded = simple_escape(static_cast<unsigned char>(src_[1]));
      if (decoded == 0)
        return;
      if (keep)
        *dst_++ = decoded;
      src_ += 2;
    }
  }

  // Unused by the reader; part of the stream concept.
  void Flush() {}

 private:
#if defined(__SSE2__)
  // Copies and decodes the string at `src` to `dst` a block at a time while
  // at least two blocks of the body remain, decoding one-character escapes
  // inside a block from its mask of special characters: a registration
  // annotation (JSON inside a string) has an escape every few characters,
  // and restarting the scan at each one made every escape a mispredicted
  // round trip. Returns where it stopped (a closing quote, a control
  // character, an escape it leaves to the reader, or the last blocks of the
  // body) and moves `dst` past what it wrote. Output never outgrows input,
  // so a block stored at `dst` stays inside `out`.
  static const Ch* copy_decoding_blocks(const Ch* src, Ch*& dst, const Ch* end) {
    Ch* out = dst;
    while (end - src >= 32) {
      unsigned specials = string_run_ends(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
      unsigned at = 0;  // characters of this block consumed
      while (specials != 0) {
        const auto i = static_cast<unsigned>(std::countr_zero(specials));
        // The characters before the special one, with up to 16 after them
        // that the next store or the caller overwrites.
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + at)));
        out += i - at;
        const char decoded =
            src[i] == '\\' ? simple_escape(static_cast<unsigned char>(src[i + 1])) : 0;
        if (decoded == 0) {
          dst = out;
          return src + i;
        }
        *out++ = decoded;
        at = i + 2;
        // The escaped character may itself be special (\" or \\).
        specials &= ~0u << at;
      }
      if (at < 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + at)));
        out += 16 - at;
        at = 16;
      }
      src += at;
    }
    dst = out;
    return src;
  }
#endif

  // Copies the run at `src` to `dst`, returns its end and moves `dst` past
  // the copy: whole blocks while they lie before `end`, each stored before
  // it is checked (a call to memcpy for every few characters between
  // escapes cost more than the copying), then the rest. Output never
  // outgrows input, so a block stored at `dst` stays inside `out`.
  static const Ch* copy_run(const Ch* src, Ch*& dst, const Ch* end) {
#if defined(__SSE2__)
    while (end - src >= 16) {
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), block);
      const unsigned mask = string_run_ends(block);
      if (mask != 0) {
        const int n = std::countr_zero(mask);
        dst += n;
        return src + n;
      }
      src += 16;
      dst += 16;
    }
#endif
    const Ch* stop = find_string_run_end(src, end);
    const auto n = static_cast<size_t>(stop - src);
    std::memcpy(dst, src, n);
    dst += n;
    return stop;
  }

 public:
  // Where the reader is in the body, and the body's end (a NUL).
  const Ch* cursor() const {
    return src_;
  }
  const Ch* end() const {
    return end_;
  }

  // Makes the reader see `:null` next and then go on at `resume`: the
  // handler passed over a dropped member's value itself and the reader,
  // which expects a value after a key, gets the cheapest one there is. The
  // handler calls resume() when the null arrives.
  void stand_in_null(const Ch* resume) {
    static constexpr char kStandIn[] = ":null";
    resume_ = resume;
    src_ = kStandIn;
  }
  // Makes the reader, just inside an object, see it close at once and then
  // go on at `resume` (past the object's own '}'): the handler took the
  // object from the node cache. The handler calls resume() at its end.
  void stand_in_close(const Ch* resume) {
    static constexpr char kStandIn[] = "}";
    resume_ = resume;
    src_ = kStandIn;
  }
  bool standing_in() const {
    return resume_ != nullptr;
  }
  void resume() {
    src_ = resume_;
    resume_ = nullptr;
  }

 private:
  const Ch* head_;
  const Ch* end_;
  const Ch* src_;
  Ch* dst_;
  const Dropping* dropping_;
  const Ch* resume_ = nullptr;
};

}  // namespace

}  // namespace hami::extender

namespace rapidjson {

// The reader works on the stream itself, never on a copy: the handler moves
// it past dropped values (BodyStream::stand_in_null) while the reader is
// inside a key, and a copy would be written back over that.
template <>
struct StreamTraits<hami::extender::BodyStream> {
  enum { copyOptimization = 0 };
};

// The reader's hook for copying undecoded runs of a string in bulk (it has
// SIMD versions for its own streams).
template <>
template <>
inline void GenericReader<UTF8<>, UTF8<>, CrtAllocator>::ScanCopyUnescapedString(
    hami::extender::BodyStream& is, hami::extender::BodyStream& os) {
  (void)os;  // the same stream: it reads the body and writes `out`
  is.copy_plain();
}

}  // namespace rapidjson

namespace hami::extender {

namespace {

// Builds the document from the reader's events, dropping what NodeFields
// says the host never reads, and notes where each NodeList and each of its
// items lie in the body (the reader has consumed a container's '{' when it
// reports the start and its '}' when it reports the end).
class ArgsHandler {
 public:
  struct Range {
    size_t begin = 0;
    size_t end = 0;
    // The node cache's entry for the text, when it had one.
    const NodeObjectCache::Entry* known;
  };
  // One top-level Nodes object: its text and each of its "items" arrays'
  // element texts, in body order.
  struct NodeListText {
    Range text;
    std::vector<std::vector<Range>> items;
  };

  // `cache` (optional) is consulted with NodeFields::model only.
  ArgsHandler(rapidjson::Document& doc, BodyStream& in, Dropping& dropping, NodeFields fields,
              const NodeObjectCache::Snapshot* cache)
      : doc_(doc),
        in_(in),
        dropping_(dropping),
        fields_(fields),
        cache_(fields == NodeFields::model ? cache : nullptr),
        digest_allowance_(2 * static_cast<size_t>(in.end() - in.cursor())) {}

  std::vector<NodeListText>& node_lists() { return node_lists_; }

  bool Null() {
    if (in_.standing_in()) {
      // The stand-in for a value passed over in Key.
      in_.resume();
      dropping_.next = false;
      return true;
    }
    return scalar([this] { return doc_.Null(); });
  }
  bool Bool(bool b) {
    return scalar([&] { return doc_.Bool(b); });
  }
  bool Int(int i) {
    return scalar([&] { return doc_.Int(i); });
  }
  bool Uint(unsigned u) {
    return scalar([&] { return doc_.Uint(u); });
  }
  bool Int64(int64_t i) {
    return scalar([&] { return doc_.Int64(i); });
  }
  bool Uint64(uint64_t u) {
    return scalar([&] { return doc_.Uint64(u); });
  }
  bool Double(double d) {
    return scalar([&] { return doc_.Double(d); });
  }
  bool RawNumber(const char* str, rapidjson::SizeType length, bool copy) {
    return scalar([&] { return doc_.RawNumber(str, length, copy); });
  }
  bool String(const char* str, rapidjson::SizeType length, bool copy) {
    return scalar([&] { return doc_.String(str, length, copy); });
  }

  bool Key(const char* str, rapidjson::SizeType length, bool copy) {
    if (dropping_.depth > 0)
      return true;
    Frame& parent = frames_.back();
    const std::string_view key(str, length);
    Role role = Role::keep;
    bool wanted = true;
    switch (parent.role) {
      case Role::root:
        if (key_is(key, "Nodes")) {
          role = Role::node_list;
        } else {
          wanted = key_is(key, "Pod") || key_is(key, "NodeNames");
        }
        break;
      case Role::node_list:
        if (key_is(key, "items")) {
          role = Role::items;
        } else {
          wanted = false;
        }
        break;
      case Role::item:
        if (key == "metadata") {
          role = Role::metadata;
        } else if (key == "status") {
          role = Role::status;
        } else {
          wanted = false;
        }
        break;
      case Role::metadata:
        wanted = key == "name" || key == "uid" || key == "resourceVersion" ||
                 key == "annotations" || key == "labels";
        break;
      case Role::status:
        wanted = key == "allocatable" || key == "capacity";
        break;
      default:
        break;
    }
    if (!wanted && fields_ == NodeFields::model) {
      // Pass over the value here when it is plainly valid; otherwise the
      // reader reads it (and reports what is wrong with it) while the
      // handler drops what it reports.
      if (const char* after =
              skip_member_value(in_.cursor(), in_.end(), k8s::kMaxJsonDepth - nesting_))
        in_.stand_in_null(after);
      dropping_.next = true;
      return true;
    }
    next_role_ = role;
    ++parent.count;
    return doc_.Key(str, length, copy);
  }

  bool StartObject() { return start(true); }
  bool StartArray() { return start(false); }
  bool EndObject(rapidjson::SizeType) { return end(true); }
  bool EndArray(rapidjson::SizeType) { return end(false); }

 private:
  // What a container is to the decode; `keep` containers are taken whole.
  enum class Role : uint8_t { keep, root, node_list, items, item, metadata, status };
  struct Frame {
    Role role;
    bool array;
    rapidjson::SizeType count = 0;  // members or elements passed on
  };

  static bool key_is(std::string_view key, std::string_view field) {
    return key.size() == field.size() && strncasecmp(key.data(), field.data(), field.size()) == 0;
  }

  // The role of the value starting now (containers only). Counts it in an
  // array parent; object members were counted at their key.
  Role enter_value(bool container, bool object) {
    Role role = next_role_;
    next_role_ = Role::keep;
    if (frames_.empty())
      return object ? Role::root : Role::keep;
    Frame& parent = frames_.back();
    if (parent.array) {
      ++parent.count;
      role = Role::keep;
      if (parent.role == Role::items) {
        // Every element gets a slot so that slot i is element i; only
        // objects are nodes, anything else fails the decode.
        node_lists_.back().items.back().push_back({container ? in_.Tell() - 1 : 0, 0, nullptr});
        role = Role::item;
      }
    }
    // A role applies to the container it expects only.
    const bool fits = container && (role == Role::items ? !object : object);
    return fits ? role : Role::keep;
  }

  template <typename Emit>
  bool scalar(Emit emit) {
    if (dropping_.depth > 0)
      return true;
    if (dropping_.next) {
      dropping_.next = false;
      return true;
    }
    enter_value(false, false);
    return emit();
  }

  bool start(bool object) {
    // RapidJSON's reader recurses once per level before any value reaches
    // this handler: refusing the level past the bound stops it there, so
    // no body can exhaust the stack and the router need not scan for depth.
    if (++nesting_ > k8s::kMaxJsonDepth) {
      too_deep_ = true;
      return false;
    }
    if (dropping_.any()) {
      dropping_.next = false;
      ++dropping_.depth;
      return true;
    }
    const Role role = enter_value(true, object);
    if (role == Role::node_list)
      node_lists_.push_back({{in_.Tell() - 1, 0, nullptr}, {}});
    else if (role == Role::items)
      node_lists_.back().items.emplace_back();
    frames_.push_back({role, !object});
    if (role == Role::item && cache_ != nullptr) {
      // The reader has taken the item's '{'. A node seen before is passed
      // over here: the document gets an empty object for it.
      const char* const begin = in_.cursor() - 1;
      Range& slot = node_lists_.back().items.back().back();
      slot.known = cache_->find(begin, in_.end(), digest_allowance_);
      if (slot.known) {
        in_.stand_in_close(begin + slot.known->size);
        closing_known_ = true;
      }
    }
    return object ? doc_.StartObject() : doc_.StartArray();
  }

  bool end(bool object) {
    --nesting_;
    if (dropping_.depth > 0) {
      --dropping_.depth;
      return true;
    }
    if (closing_known_) {
      // The stand-in '}' of a cached item: back to the body after it.
      in_.resume();
      closing_known_ = false;
    }
    const Frame frame = frames_.back();
    frames_.pop_back();
    if (frame.role == Role::node_list)
      node_lists_.back().text.end = in_.Tell();
    else if (frame.role == Role::item)
      node_lists_.back().items.back().back().end = in_.Tell();
    return object ? doc_.EndObject(frame.count) : doc_.EndArray(frame.count);
  }

  rapidjson::Document& doc_;
  BodyStream& in_;
  Dropping& dropping_;
  const NodeFields fields_;
  const NodeObjectCache::Snapshot* const cache_;
  // What cache lookups may hash for nothing in this body (see
  // NodeObjectCache::Snapshot::find).
  size_t digest_allowance_;
  bool closing_known_ = false;
  std::vector<Frame> frames_;
  std::vector<NodeListText> node_lists_;
  Role next_role_ = Role::keep;
  std::size_t nesting_ = 0;
  bool too_deep_ = false;

 public:
  bool too_deep() const { return too_deep_; }
};

}  // namespace

ExtenderArgs::ExtenderArgs(std::string text, NodeFields fields, const NodeObjectCache* cache)
    : body(std::move(text)) {
  if (cache != nullptr && fields == NodeFields::model)
    node_cache = cache->snapshot();
  // Decoded strings are never longer than their JSON text.
  strings_ = std::make_unique_for_overwrite<char[]>(body.size() + 1);
  // The body's own terminating NUL ends the stream, as the in-situ parse of
  // a NUL-terminated copy did before.
  Dropping dropping;
  BodyStream in(body.c_str(), body.size(), strings_.get(), dropping);
  rapidjson::Reader reader;
  ArgsHandler handler(doc, in, dropping, fields, node_cache.get());
  auto parse = [&](rapidjson::Document&) {
    return !reader.Parse<rapidjson::kParseInsituFlag>(in, handler).IsError();
  };
  doc.Populate(parse);
  if (handler.too_deep()) {
    throw DecodeError("request body nests JSON deeper than " + std::to_string(k8s::kMaxJsonDepth) +
                      " levels");
  }
  if (reader.HasParseError()) {
    throw DecodeError(std::string("invalid JSON at offset ") +
                      std::to_string(reader.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(reader.GetParseErrorCode()));
  }
  if (!doc.IsObject()) {
    throw DecodeError("json: cannot unmarshal " + std::string(go_type(doc)) +
                      " into Go value of type v1.ExtenderArgs");
  }
  const Value* pod_member = nullptr;
  const Value* nodes_member = nullptr;
  const Value* names = nullptr;
  for (const auto& m : doc.GetObject()) {
    if (key_is(m.name, "Pod")) {
      pod_member = &m.value;
    } else if (key_is(m.name, "Nodes")) {
      nodes_member = &m.value;
    } else if (key_is(m.name, "NodeNames")) {
      names = &m.value;
    }
  }
  if (pod_member != nullptr && !pod_member->IsNull()) {
    if (!pod_member->IsObject())
      type_error(*pod_member, "ExtenderArgs.Pod", "v1.Pod");
    pod = pod_member;
  }
  if (nodes_member != nullptr && !nodes_member->IsNull()) {
    if (!nodes_member->IsObject())
      type_error(*nodes_member, "ExtenderArgs.Nodes", "v1.NodeList");
    nodes = nodes_member;
    // The last Nodes member wins and is an object, so it is the last one
    // the handler saw; likewise its last "items", an array.
    const auto& list = handler.node_lists().back();
    nodes_text = std::string_view(body).substr(list.text.begin, list.text.end - list.text.begin);
    const Value* items = nullptr;
    for (const auto& m : nodes->GetObject()) {
      if (key_is(m.name, "items"))
        items = &m.value;
    }
    if (items != nullptr && !items->IsNull()) {
      if (!items->IsArray())
        type_error(*items, "ExtenderArgs.Nodes.items", "[]v1.Node");
      node_items.reserve(items->Size());
      for (const Value& item : items->GetArray()) {
        if (!item.IsObject())
          type_error(item, "ExtenderArgs.Nodes.items", "v1.Node");
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
      type_error(*names, "ExtenderArgs.NodeNames", "[]string");
    std::vector<std::string> list;
    list.reserve(names->Size());
    for (const Value& n : names->GetArray()) {
      if (!n.IsString())
        type_error(n, "ExtenderArgs.NodeNames", "string");
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
