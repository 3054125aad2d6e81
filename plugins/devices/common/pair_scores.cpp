#include "pair_scores.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <limits>

#include "errors.hpp"
#include "text.hpp"

namespace hami::devices {

std::vector<PairScore> decode_pair_scores(std::string_view text) {
  if (text.find('\0') != std::string_view::npos)
    throw InvalidInput("contains a NUL byte");
  rapidjson::Document doc;
  // Iterative: deep nesting uses heap, not the scheduler's stack.
  doc.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(text.data(),
                                                                                    text.size());
  if (doc.HasParseError()) {
    throw InvalidInput(std::string("invalid JSON at offset ") +
                       std::to_string(doc.GetErrorOffset()) + ": " +
                       rapidjson::GetParseError_En(doc.GetParseError()));
  }
  std::vector<PairScore> out;
  if (doc.IsNull())
    return out;
  if (!doc.IsArray())
    throw InvalidInput("expected a JSON array");
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    const auto& entry = doc[i];
    const std::string where = "element " + std::to_string(i);
    if (entry.IsNull())
      continue;  // Go: a null element decodes to a zero entry
    if (!entry.IsObject())
      throw InvalidInput(where + ": expected an object");
    std::string_view uuid;
    const rapidjson::Value* scores = nullptr;
    for (auto m = entry.MemberBegin(); m != entry.MemberEnd(); ++m) {
      const std::string_view key(m->name.GetString(), m->name.GetStringLength());
      if (iequals(key, "uuid")) {
        if (m->value.IsNull())
          continue;
        if (!m->value.IsString())
          throw InvalidInput(where + " key \"uuid\": expected a string");
        uuid = std::string_view(m->value.GetString(), m->value.GetStringLength());
      } else if (iequals(key, "score")) {
        if (m->value.IsNull())
          continue;
        if (!m->value.IsObject())
          throw InvalidInput(where + " key \"score\": expected an object");
        scores = &m->value;
      }
    }
    if (scores == nullptr)
      continue;
    for (auto s = scores->MemberBegin(); s != scores->MemberEnd(); ++s) {
      if (!s->value.IsInt()) {
        throw InvalidInput(where + " score for \"" + std::string(s->name.GetString()) +
                           "\": expected an int32");
      }
      out.push_back(PairScore{std::string(uuid),
                              std::string(s->name.GetString(), s->name.GetStringLength()),
                              s->value.GetInt()});
    }
  }
  return out;
}

bool listed_in(std::string_view comma_list, std::string_view id) noexcept {
  bool found = false;
  for_each_piece(comma_list, ',', [&](std::string_view piece) {
    const std::string_view member = trim(piece);
    found = !member.empty() && member == id;
    return !found;
  });
  return found;
}

}  // namespace hami::devices
