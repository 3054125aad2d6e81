#include "node_register.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <limits>
#include <optional>

#include "errors.hpp"
#include "hami/go_text.hpp"
#include "text.hpp"

namespace hami::devices {
namespace {

enum class Field {
  None,
  Id,
  Index,
  Count,
  Devmem,
  Devcore,
  Type,
  Numa,
  Mode,
  Health,
  MigProfiles,
  CustomInfo,
  // Keys of one migProfiles entry.
  ProfileName,
  ProfileMemory,
  ProfileCore,
  ProfileSlices,
  ProfilePlacements,
  // Keys of one placement.
  PlacementStart,
  PlacementSize,
};

Field field_of(std::string_view key) noexcept {
  // Go matches struct tags case-insensitively (EqualFold).
  switch (key.size()) {
    case 2:
      return iequals(key, "id") ? Field::Id : Field::None;
    case 4:
      if (iequals(key, "type"))
        return Field::Type;
      if (iequals(key, "numa"))
        return Field::Numa;
      if (iequals(key, "mode"))
        return Field::Mode;
      return Field::None;
    case 5:
      if (iequals(key, "index"))
        return Field::Index;
      if (iequals(key, "count"))
        return Field::Count;
      return Field::None;
    case 6:
      if (iequals(key, "devmem"))
        return Field::Devmem;
      if (iequals(key, "health"))
        return Field::Health;
      return Field::None;
    case 7:
      return iequals(key, "devcore") ? Field::Devcore : Field::None;
    case 10:
      return iequals(key, "custominfo") ? Field::CustomInfo : Field::None;
    case 11:
      return iequals(key, "migprofiles") ? Field::MigProfiles : Field::None;
    default:
      return Field::None;
  }
}

Field profile_field_of(std::string_view key) noexcept {
  if (iequals(key, "name"))
    return Field::ProfileName;
  if (iequals(key, "memorymb"))
    return Field::ProfileMemory;
  if (iequals(key, "core"))
    return Field::ProfileCore;
  if (iequals(key, "slicecount"))
    return Field::ProfileSlices;
  if (iequals(key, "placements"))
    return Field::ProfilePlacements;
  return Field::None;
}

Field placement_field_of(std::string_view key) noexcept {
  if (iequals(key, "start"))
    return Field::PlacementStart;
  if (iequals(key, "size"))
    return Field::PlacementSize;
  return Field::None;
}

std::string_view field_name(Field f) noexcept {
  switch (f) {
    case Field::Id:
      return "id";
    case Field::Index:
      return "index";
    case Field::Count:
      return "count";
    case Field::Devmem:
      return "devmem";
    case Field::Devcore:
      return "devcore";
    case Field::Type:
      return "type";
    case Field::Numa:
      return "numa";
    case Field::Mode:
      return "mode";
    case Field::Health:
      return "health";
    case Field::MigProfiles:
      return "migProfiles";
    case Field::CustomInfo:
      return "custominfo";
    case Field::ProfileName:
      return "name";
    case Field::ProfileMemory:
      return "memoryMB";
    case Field::ProfileCore:
      return "core";
    case Field::ProfileSlices:
      return "sliceCount";
    case Field::ProfilePlacements:
      return "placements";
    case Field::PlacementStart:
      return "start";
    case Field::PlacementSize:
      return "size";
    case Field::None:
      break;
  }
  return "?";
}

// SAX handler: a state machine over
// `[ {k: v, ..., "migProfiles": [ {k: v, ..., "placements": [ {k: v} ]} ]} ]`
// and `"custominfo": {k: scalar-or-skipped, ...}`.
// Values of unknown keys (custominfo, instanceCount, ...) are skipped
// whatever their shape; the reader has already checked that they are
// well-formed JSON. A repeated list key replaces the earlier list, and a
// null element is a zero-valued one, as Go's decoder does.
class RegisterHandler {
 public:
  explicit RegisterHandler(std::vector<RegisteredDevice>& out) : out_(out) {}

  const std::string& error() const noexcept { return error_; }

  bool Null() {
    if (skip_ > 0)
      return skip_value();
    if (state_ == State::CustomValue)
      return custom_value(RegisteredCustomValue::Kind::Null);
    switch (state_) {
      case State::Top:
        state_ = State::Done;  // `null` is an empty list, as in Go
        return true;
      case State::Array:
        return fail("element is null");
      case State::Value:
        if (field_ == Field::MigProfiles)
          out_.back().mig_profiles.clear();
        if (field_ == Field::CustomInfo)
          out_.back().custom_info.clear();
        state_ = State::Object;  // null leaves the zero value
        return true;
      case State::ProfileList:
        out_.back().mig_profiles.emplace_back();
        return true;
      case State::ProfileValue:
        if (field_ == Field::ProfilePlacements)
          profile().placements.clear();
        state_ = State::Profile;
        return true;
      case State::PlacementList:
        profile().placements.emplace_back();
        return true;
      case State::PlacementValue:
        state_ = State::Placement;
        return true;
      default:
        return fail("unexpected null");
    }
  }
  bool Bool(bool b) {
    if (skip_ > 0)
      return skip_value();
    if (state_ == State::CustomValue) {
      custom().boolean = b;
      return custom_value(RegisteredCustomValue::Kind::Bool);
    }
    if (!in_value())
      return unexpected("boolean");
    if (state_ != State::Value || field_ != Field::Health)
      return wrong_type("boolean");
    out_.back().health = b;
    state_ = State::Object;
    return true;
  }
  bool Int(int i) { return integer(i); }
  bool Uint(unsigned u) { return integer(static_cast<std::int64_t>(u)); }
  bool Int64(std::int64_t i) { return integer(i); }
  bool Uint64(std::uint64_t u) {
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      if (skip_ > 0)
        return skip_value();
      if (state_ == State::CustomValue)
        return custom_number(static_cast<double>(u));
      return in_value() ? out_of_range() : unexpected("number");
    }
    return integer(static_cast<std::int64_t>(u));
  }
  bool Double(double d) {
    if (skip_ > 0)
      return skip_value();
    if (state_ == State::CustomValue)
      return custom_number(d);
    if (!in_value())
      return unexpected("number");
    return wrong_type("number with a fraction or exponent");
  }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return fail("unexpected raw number"); }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    if (skip_ > 0)
      return skip_value();
    const std::string_view v(s, len);
    if (state_ == State::CustomValue) {
      custom().text = v;
      return custom_value(RegisteredCustomValue::Kind::String);
    }
    if (!in_value())
      return unexpected("string");
    if (state_ == State::ProfileValue && field_ == Field::ProfileName) {
      profile().name = v;
      state_ = State::Profile;
      return true;
    }
    if (state_ != State::Value)
      return wrong_type("string");
    auto& d = out_.back();
    switch (field_) {
      case Field::Id:
        d.id = v;
        break;
      case Field::Type:
        d.type = v;
        break;
      case Field::Mode:
        d.mode = v;
        break;
      default:
        return wrong_type("string");
    }
    state_ = State::Object;
    return true;
  }
  bool StartObject() {
    if (skip_ > 0)
      return deeper();
    switch (state_) {
      case State::Array:
        out_.emplace_back();
        state_ = State::Object;
        return true;
      case State::CustomValue:
        return skip_custom_container();
      case State::ProfileList:
        out_.back().mig_profiles.emplace_back();
        state_ = State::Profile;
        return true;
      case State::PlacementList:
        profile().placements.emplace_back();
        state_ = State::Placement;
        return true;
      case State::Value:
        if (field_ == Field::CustomInfo) {
          out_.back().custom_info.clear();  // a repeated key replaces the map
          state_ = State::CustomInfo;
          return true;
        }
        return wrong_type("object");
      case State::ProfileValue:
      case State::PlacementValue:
        return wrong_type("object");
      default:
        return unexpected("object");
    }
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    if (skip_ > 0)
      return true;
    const std::string_view key(s, len);
    if (state_ == State::CustomInfo) {
      RegisteredCustomValue entry;
      entry.key = key;
      out_.back().custom_info.push_back(entry);
      state_ = State::CustomValue;
      return true;
    }
    State value_state = State::Value;
    if (state_ == State::Object) {
      field_ = field_of(key);
    } else if (state_ == State::Profile) {
      field_ = profile_field_of(key);
      value_state = State::ProfileValue;
    } else {
      field_ = placement_field_of(key);
      value_state = State::PlacementValue;
    }
    if (field_ == Field::None) {
      skip_ = 1;  // skip the next value; depth counts nested containers
      skip_pending_ = true;
      return true;
    }
    state_ = value_state;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (skip_ > 0) {
      --skip_;
      return end_of_skipped();
    }
    if (state_ == State::Profile)
      state_ = State::ProfileList;
    else if (state_ == State::CustomInfo)
      state_ = State::Object;
    else if (state_ == State::Placement)
      state_ = State::PlacementList;
    else
      state_ = State::Array;
    return true;
  }
  bool StartArray() {
    if (skip_ > 0)
      return deeper();
    switch (state_) {
      case State::CustomValue:
        return skip_custom_container();
      case State::Top:
        state_ = State::Array;
        return true;
      case State::Value:
        if (field_ != Field::MigProfiles)
          return wrong_type("array");
        out_.back().mig_profiles.clear();
        state_ = State::ProfileList;
        return true;
      case State::ProfileValue:
        if (field_ != Field::ProfilePlacements)
          return wrong_type("array");
        profile().placements.clear();
        state_ = State::PlacementList;
        return true;
      case State::PlacementValue:
        return wrong_type("array");
      default:
        return unexpected("array");
    }
  }
  bool EndArray(rapidjson::SizeType) {
    if (skip_ > 0) {
      --skip_;
      return end_of_skipped();
    }
    if (state_ == State::ProfileList)
      state_ = State::Object;
    else if (state_ == State::PlacementList)
      state_ = State::Profile;
    else
      state_ = State::Done;
    return true;
  }

 private:
  enum class State {
    Top,
    Array,
    Object,
    Value,
    ProfileList,
    Profile,
    ProfileValue,
    PlacementList,
    Placement,
    PlacementValue,
    CustomInfo,   // inside custominfo, before a key or its end
    CustomValue,  // after a custominfo key
    Done
  };

  // Registrations nest at most four levels (array, device, migProfiles,
  // placements); anything deeper is refused before it can exhaust the stack.
  static constexpr int kMaxDepth = 64;

  RegisteredMigProfile& profile() { return out_.back().mig_profiles.back(); }
  RegisteredCustomValue& custom() { return out_.back().custom_info.back(); }

  bool custom_value(RegisteredCustomValue::Kind kind) {
    custom().kind = kind;
    state_ = State::CustomInfo;
    return true;
  }
  bool custom_number(double v) {
    custom().number = v;
    return custom_value(RegisteredCustomValue::Kind::Number);
  }
  // A custominfo value that is an object or array: recorded as Other and
  // skipped; its container start is the skipped value's first level.
  bool skip_custom_container() {
    custom_value(RegisteredCustomValue::Kind::Other);
    skip_ = 1;
    skip_pending_ = true;
    return deeper();
  }
  RegisteredMigPlacement& placement() { return profile().placements.back(); }

  bool in_value() const noexcept {
    return state_ == State::Value || state_ == State::ProfileValue ||
           state_ == State::PlacementValue;
  }

  bool deeper() {
    if (++skip_ > kMaxDepth)
      return fail(where() + ": nesting deeper than 64 levels");
    return true;
  }

  // A scalar in skip mode: when it is the whole skipped value, skipping ends.
  bool skip_value() {
    if (skip_pending_ && skip_ == 1) {
      skip_ = 0;
      skip_pending_ = false;
    }
    return true;
  }
  // A container closed in skip mode: depth 1 means the skipped value itself
  // was this container, which has now ended.
  bool end_of_skipped() {
    if (skip_ == 1 && skip_pending_) {
      skip_ = 0;
      skip_pending_ = false;
    }
    return true;
  }

  bool integer(std::int64_t v) {
    if (skip_ > 0)
      return skip_value();
    if (state_ == State::CustomValue)
      return custom_number(static_cast<double>(v));
    if (!in_value())
      return unexpected("number");
    constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
    constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
    constexpr std::int64_t kU32Max = std::numeric_limits<std::uint32_t>::max();
    const bool i32 = v >= kI32Min && v <= kI32Max;
    const bool u32 = v >= 0 && v <= kU32Max;
    if (state_ == State::ProfileValue) {
      switch (field_) {
        case Field::ProfileMemory:
        case Field::ProfileCore:
          if (!i32)
            return out_of_range();
          (field_ == Field::ProfileMemory ? profile().memory_mb : profile().core) =
              static_cast<std::int32_t>(v);
          break;
        case Field::ProfileSlices:
          if (!u32)
            return out_of_range();
          profile().slice_count = static_cast<std::uint32_t>(v);
          break;
        default:
          return wrong_type("number");
      }
      state_ = State::Profile;
      return true;
    }
    if (state_ == State::PlacementValue) {
      if (!u32)
        return out_of_range();
      (field_ == Field::PlacementStart ? placement().start : placement().size) =
          static_cast<std::uint32_t>(v);
      state_ = State::Placement;
      return true;
    }
    auto& d = out_.back();
    switch (field_) {
      case Field::Index:
        if (!u32)
          return out_of_range();
        d.index = static_cast<std::uint32_t>(v);
        break;
      case Field::Count:
      case Field::Devmem:
      case Field::Devcore:
      case Field::Numa: {
        if (!i32)
          return out_of_range();
        const auto n = static_cast<std::int32_t>(v);
        if (field_ == Field::Count)
          d.count = n;
        if (field_ == Field::Devmem)
          d.devmem = n;
        if (field_ == Field::Devcore)
          d.devcore = n;
        if (field_ == Field::Numa)
          d.numa = n;
        break;
      }
      default:
        return wrong_type("number");
    }
    state_ = State::Object;
    return true;
  }

  std::string where() const {
    std::string w = "element " + std::to_string(out_.empty() ? 0 : out_.size() - 1);
    const bool in_profile = state_ == State::Profile || state_ == State::ProfileValue ||
                            state_ == State::PlacementList || state_ == State::Placement ||
                            state_ == State::PlacementValue;
    if (!in_profile || out_.back().mig_profiles.empty())
      return w;
    const auto& profiles = out_.back().mig_profiles;
    w += " migProfiles[" + std::to_string(profiles.size() - 1) + "]";
    const bool in_placement = state_ == State::Placement || state_ == State::PlacementValue;
    if (in_placement && !profiles.back().placements.empty())
      w += " placements[" + std::to_string(profiles.back().placements.size() - 1) + "]";
    return w;
  }
  bool wrong_type(std::string_view got) {
    return fail(where() + " key \"" + std::string(field_name(field_)) + "\": unexpected " +
                std::string(got));
  }
  bool out_of_range() {
    return fail(where() + " key \"" + std::string(field_name(field_)) + "\": value out of range");
  }
  bool unexpected(std::string_view what) {
    if (state_ == State::Top)
      return fail("expected a JSON array, found " + std::string(what));
    if (state_ == State::Array)
      return fail("expected device objects, found " + std::string(what));
    if (state_ == State::ProfileList)
      return fail(where() + " key \"migProfiles\": expected objects, found " + std::string(what));
    if (state_ == State::PlacementList)
      return fail(where() + " key \"placements\": expected objects, found " + std::string(what));
    return fail("unexpected " + std::string(what));
  }
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  std::vector<RegisteredDevice>& out_;
  State state_ = State::Top;
  Field field_ = Field::None;
  int skip_ = 0;  // > 0: inside the value of an unknown key (nesting depth + 1)
  bool skip_pending_ = false;
  std::string error_;
};

std::optional<std::int64_t> parse_int(std::string_view s) {
  // Go strconv.ParseInt/Atoi: optional sign, decimal digits, nothing else.
  if (s.empty())
    return std::nullopt;
  std::size_t pos = 0;
  if (s[0] == '+') {
    pos = 1;
    if (s.size() > 1 && s[1] == '-')
      return std::nullopt;
  }
  std::int64_t v = 0;
  const char* first = s.data() + pos;
  const char* last = s.data() + s.size();
  if (first == last)
    return std::nullopt;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last)
    return std::nullopt;
  return v;
}

std::optional<bool> parse_go_bool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True")
    return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False")
    return false;
  return std::nullopt;
}

constexpr std::size_t kInsituPadding = 4;

bool is_ascii(std::string_view text) noexcept {
  unsigned char any = 0;
  for (const char c : text)
    any |= static_cast<unsigned char>(c);
  return (any & 0x80u) == 0;
}

void reject_nul(std::string_view text) {
  if (text.find('\0') != std::string_view::npos)
    throw InvalidInput("contains a NUL byte");
}

}  // namespace

RegisterDecoding decode_register_json(std::string_view text) {
  reject_nul(text);
  RegisterDecoding result;
  // RapidJSON's UTF-8 validator takes up to three continuation bytes after a
  // lead byte without looking for the end of an in-situ buffer; NUL padding
  // makes a truncated sequence at the very end fail instead of read past it.
  result.buffer_.reserve(text.size() + kInsituPadding);
  result.buffer_.assign(text);
  result.buffer_.append(kInsituPadding, '\0');
  result.devices_.reserve(8);  // a typical node; larger ones grow
  RegisterHandler handler(result.devices_);
  rapidjson::Reader reader;
  rapidjson::InsituStringStream stream(result.buffer_.data());
  // The reader recurses per nesting level; the handler refuses to go deeper
  // than kMaxDepth, so a hostile annotation cannot overflow the scheduler's
  // stack (and the recursive reader is faster than the iterative one). UTF-8
  // validation is only needed when a byte is outside ASCII, which real
  // registrations never have; checking that first saves a third of the time.
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag;
  const rapidjson::ParseResult ok =
      is_ascii(text)
          ? reader.Parse<kFlags>(stream, handler)
          : reader.Parse<kFlags | rapidjson::kParseValidateEncodingFlag>(stream, handler);
  if (!ok) {
    if (!handler.error().empty())
      throw InvalidInput(handler.error());
    throw InvalidInput(std::string("invalid JSON at offset ") + std::to_string(ok.Offset()) + ": " +
                       rapidjson::GetParseError_En(ok.Code()));
  }
  return result;
}

RegisterDecoding decode_register_legacy(std::string_view text) {
  reject_nul(text);
  if (text.find(':') == std::string_view::npos) {
    throw InvalidInput("neither a JSON array nor the legacy colon form");
  }
  RegisterDecoding result;
  result.buffer_.assign(text);
  const std::string_view all(result.buffer_);
  std::size_t n = 0;
  for_each_piece(all, ':', [&](std::string_view entry) {
    ++n;
    if (entry.find(',') == std::string_view::npos)
      return true;  // as HAMi: skipped
    std::string_view items[10];
    std::size_t count = 0;
    bool too_many = false;
    for_each_piece(entry, ',', [&](std::string_view item) {
      if (count == 10) {
        too_many = true;
        return false;
      }
      items[count++] = item;
      return true;
    });
    const std::string where = "legacy entry " + std::to_string(n - 1);
    if (too_many || (count != 7 && count != 9)) {
      throw InvalidInput(where + ": expected 7 or 9 comma-separated fields");
    }
    RegisteredDevice d;
    d.id = items[0];
    const auto i32 = [&](std::string_view s, const char* name) {
      const auto v = parse_int(s);
      if (!v || *v < std::numeric_limits<std::int32_t>::min() ||
          *v > std::numeric_limits<std::int32_t>::max()) {
        throw InvalidInput(where + ": " + name + " \"" + std::string(s) + "\" is not an int32");
      }
      return static_cast<std::int32_t>(*v);
    };
    d.count = i32(items[1], "count");
    d.devmem = i32(items[2], "devmem");
    d.devcore = i32(items[3], "devcore");
    d.type = items[4];
    d.numa = i32(items[5], "numa");
    const auto health = parse_go_bool(items[6]);
    if (!health)
      throw InvalidInput(where + ": health \"" + std::string(items[6]) + "\" is not a boolean");
    d.health = *health;
    d.mode = "hami-core";
    if (count == 9) {
      const auto index = parse_int(items[7]);
      if (!index || *index < 0 || *index > std::numeric_limits<std::uint32_t>::max()) {
        throw InvalidInput(where + ": index \"" + std::string(items[7]) + "\" is not an index");
      }
      d.index = static_cast<std::uint32_t>(*index);
      d.mode = items[8];
    }
    result.devices_.push_back(d);
    return true;
  });
  return result;
}

RegisterDecoding decode_register(std::string_view text, RegisterForm allowed_legacy) {
  const std::string_view t = trim(text);
  if (t.empty())
    throw InvalidInput("empty value");
  // The legacy form starts with a device UUID; anything that starts like a
  // JSON value is read (and reported) as JSON.
  if (t.front() == '[' || t.front() == '{' || t.front() == '"' || t == "null" || t == "true" ||
      t == "false") {
    return decode_register_json(text);
  }
  if (allowed_legacy == RegisterForm::Legacy)
    return decode_register_legacy(text);
  return decode_register_json(text);  // reports the JSON error
}

}  // namespace hami::devices

namespace hami::devices {
namespace {

// Go's strconv.ParseInt(s, 10, bits) / Atoi: the value, or the error text
// "<func>: parsing \"s\": invalid syntax|value out of range".
std::int64_t go_parse_int(std::string_view s, std::int64_t min, std::int64_t max, const char* func,
                          const char* field) {
  const auto fail = [&](const char* what) {
    return InvalidInput(std::string("invalid ") + field + " field: " + func + ": parsing " +
                        go_quote(s) + ": " + what);
  };
  std::size_t pos = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (pos == s.size())
    throw fail("invalid syntax");
  for (std::size_t i = pos; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      throw fail("invalid syntax");
  }
  std::int64_t v = 0;
  const char* first = s.data() + (s[0] == '+' ? 1 : 0);
  const auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < min || v > max)
    throw fail("value out of range");
  return v;
}

}  // namespace

RegisterDecoding decode_register_colon(std::string_view text) {
  reject_nul(text);
  if (text.find(':') == std::string_view::npos)
    throw InvalidInput("node annotation missing device separator");
  RegisterDecoding result;
  result.buffer_.assign(text);
  const std::string_view all(result.buffer_);
  constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
  for_each_piece(all, ':', [&](std::string_view seg) {
    if (seg.empty())
      return true;
    if (seg.find(',') == std::string_view::npos)
      throw InvalidInput("malformed node annotation segment: " + go_quote(seg));
    std::string_view items[9];
    std::size_t count = 0;
    for_each_piece(seg, ',', [&](std::string_view item) {
      if (count < 9)
        items[count] = item;
      ++count;
      return true;
    });
    if (count != 7 && count != 9) {
      throw InvalidInput("unexpected field count " + std::to_string(count) + " in node annotation");
    }
    RegisteredDevice d;
    d.id = items[0];
    const auto i32 = [&](std::string_view s, const char* field) {
      return static_cast<std::int32_t>(
          go_parse_int(s, kI32Min, kI32Max, "strconv.ParseInt", field));
    };
    d.count = i32(items[1], "count");
    d.devmem = i32(items[2], "memory");
    d.devcore = i32(items[3], "core");
    const auto health = parse_go_bool(items[6]);
    if (!health) {
      throw InvalidInput("invalid health field: strconv.ParseBool: parsing " + go_quote(items[6]) +
                         ": invalid syntax");
    }
    d.health = *health;
    d.numa =
        static_cast<std::int32_t>(go_parse_int(items[5], kI32Min, kI32Max, "strconv.Atoi", "numa"));
    d.type = items[4];
    d.mode = "hami-core";
    if (count == 9) {
      const std::int64_t index =
          go_parse_int(items[7], std::numeric_limits<std::int64_t>::min(),
                       std::numeric_limits<std::uint32_t>::max(), "strconv.Atoi", "index");
      if (index < 0)
        throw InvalidInput("index field must not be negative: " + std::to_string(index));
      d.index = static_cast<std::uint32_t>(index);
      d.mode = items[8];
    }
    result.devices_.push_back(d);
    return true;
  });
  return result;
}

}  // namespace hami::devices
