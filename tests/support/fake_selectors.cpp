#include "fake_selectors.hpp"

#include <algorithm>
#include <array>

namespace hami::testing::fake {
namespace {

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) {
      comma = text.size();
    }
    out.push_back(text.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  return s;
}

bool field_supported(std::string_view field, const KindInfo& kind) {
  if (field == "metadata.name" || field == "metadata.namespace") {
    return true;
  }
  static constexpr std::array<std::string_view, 8> kPodFields{
      "spec.nodeName",    "spec.schedulerName", "spec.restartPolicy", "spec.serviceAccountName",
      "spec.hostNetwork", "status.phase",       "status.podIP",       "status.nominatedNodeName"};
  if (kind.kind == "Pod") {
    return std::find(kPodFields.begin(), kPodFields.end(), field) != kPodFields.end();
  }
  static constexpr std::array<std::string_view, 9> kEventFields{"involvedObject.kind",
                                                                "involvedObject.namespace",
                                                                "involvedObject.name",
                                                                "involvedObject.uid",
                                                                "involvedObject.apiVersion",
                                                                "involvedObject.resourceVersion",
                                                                "involvedObject.fieldPath",
                                                                "reason",
                                                                "type"};
  if (kind.kind == "Event") {
    return std::find(kEventFields.begin(), kEventFields.end(), field) != kEventFields.end();
  }
  return kind.kind == "Node" && field == "spec.unschedulable";
}

// Splits "key=value", "key==value" or "key!=value" into `term`; false when
// `part` has none of those operators.
bool parse_comparison(std::string_view part, Selector::Term& term) {
  size_t op_pos = part.find("!=");
  size_t value_pos = 0;
  if (op_pos != std::string_view::npos) {
    term.op = Selector::Op::not_equals;
    value_pos = op_pos + 2;
  } else if ((op_pos = part.find("==")) != std::string_view::npos) {
    value_pos = op_pos + 2;
  } else if ((op_pos = part.find('=')) != std::string_view::npos) {
    value_pos = op_pos + 1;
  } else {
    return false;
  }
  term.key = std::string(trim(part.substr(0, op_pos)));
  term.value = std::string(trim(part.substr(value_pos)));
  return true;
}

}  // namespace

std::optional<Selector> Selector::parse_fields(std::string_view text, const KindInfo& kind,
                                               std::string& error) {
  Selector sel;
  if (trim(text).empty()) {
    return sel;
  }
  for (std::string_view part : split_commas(text)) {
    part = trim(part);
    Term term;
    if (!parse_comparison(part, term)) {
      error = "invalid selector: '" + std::string(text) + "'; can't understand '" +
              std::string(part) + "'";
      return std::nullopt;
    }
    if (!field_supported(term.key, kind)) {
      error = "field label not supported: " + term.key;
      return std::nullopt;
    }
    sel.terms_.push_back(std::move(term));
  }
  return sel;
}

std::optional<Selector> Selector::parse_labels(std::string_view text, std::string& error) {
  Selector sel;
  sel.labels_ = true;
  if (trim(text).empty()) {
    return sel;
  }
  for (std::string_view part : split_commas(text)) {
    part = trim(part);
    Term term;
    if (!parse_comparison(part, term)) {
      const bool negated = !part.empty() && part.front() == '!';
      term.op = negated ? Op::not_exists : Op::exists;
      term.key = std::string(negated ? trim(part.substr(1)) : part);
    }
    if (term.key.empty() || term.key.find_first_of(" ()") != std::string::npos) {
      error = "unable to parse requirement: \"" + std::string(part) + "\"";
      return std::nullopt;
    }
    sel.terms_.push_back(std::move(term));
  }
  return sel;
}

bool Selector::matches(const Json& object) const {
  const Json* labels = nullptr;
  if (labels_ && object.contains("metadata") && object["metadata"].is_object()) {
    auto it = object["metadata"].find("labels");
    if (it != object["metadata"].end() && it->is_object()) {
      labels = &*it;
    }
  }
  for (const Term& t : terms_) {
    std::optional<std::string> value;
    if (labels_) {
      if (labels != nullptr) {
        auto it = labels->find(t.key);
        if (it != labels->end() && it->is_string()) {
          value = it->get<std::string>();
        }
      }
    } else {
      value = field_value(object, t.key);
      // Booleans the server always knows: absent is false.
      if (value->empty() && (t.key == "spec.unschedulable" || t.key == "spec.hostNetwork")) {
        value = "false";
      }
    }
    switch (t.op) {
      case Op::equals:
        if (!value || *value != t.value) {
          return false;
        }
        break;
      case Op::not_equals:
        // As in Kubernetes, a missing label satisfies "!=".
        if (value && *value == t.value) {
          return false;
        }
        break;
      case Op::exists:
        if (!value) {
          return false;
        }
        break;
      case Op::not_exists:
        if (value) {
          return false;
        }
        break;
    }
  }
  return true;
}

}  // namespace hami::testing::fake
