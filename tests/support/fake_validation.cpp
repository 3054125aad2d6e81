#include "fake_validation.hpp"

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "fake_status.hpp"
#include "hami/go_text.hpp"

namespace hami::testing::fake {
namespace {

// apimachinery pkg/api/validate/content (kube.go, dns.go, errors.go).
constexpr const char* kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr const char* kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr const char* kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr const char* kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr const char* kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr const char* kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

bool matches(const std::string& value, const char* format) {
  return std::regex_match(value, std::regex(format, std::regex::extended));
}

std::string max_len_error(size_t length) {
  return "must be no more than " + std::to_string(length) + " bytes";
}

std::string regex_error(std::string msg, const char* format,
                        const std::vector<const char*>& examples) {
  msg += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0)
      msg += " or ";
    msg += "'" + std::string(examples[i]) + "', ";
  }
  return msg + "regex used for validation is '" + format + "')";
}

std::vector<std::string> dns1123_subdomain_errors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 253)
    errs.push_back(max_len_error(253));
  if (!matches(value, kDns1123SubdomainFmt))
    errs.push_back(regex_error(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  return errs;
}

// IsLabelKey.
std::vector<std::string> label_key_errors(const std::string& key) {
  std::vector<std::string> errs;
  const size_t slash = key.find('/');
  std::string name = key;
  if (slash != std::string::npos) {
    if (key.find('/', slash + 1) != std::string::npos) {
      return {"a valid label key " +
              regex_error(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}) +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    }
    const std::string prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& e : dns1123_subdomain_errors(prefix))
        errs.push_back("prefix part " + e);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + max_len_error(63));
  }
  if (!matches(name, kLabelKeyFmt)) {
    errs.push_back("name part " +
                   regex_error(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

// IsLabelValue.
std::vector<std::string> label_value_errors(const std::string& value) {
  std::vector<std::string> errs;
  if (value.size() > 63)
    errs.push_back(max_len_error(63));
  if (!matches(value, kLabelValueFmt))
    errs.push_back(
        regex_error(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  return errs;
}

}  // namespace

std::optional<Json> invalid_labels(const KindInfo& kind, const Json& object) {
  if (!object.contains("metadata") || !object["metadata"].is_object() ||
      !object["metadata"].contains("labels") || !object["metadata"]["labels"].is_object()) {
    return std::nullopt;
  }
  constexpr const char* kField = "metadata.labels";
  // field.Invalid: "Invalid value: <%q of the value>: <detail>".
  std::vector<std::string> bodies;
  for (const auto& [key, value] : object["metadata"]["labels"].items()) {
    for (const std::string& e : label_key_errors(key))
      bodies.push_back("Invalid value: " + hami::go_quote(key) + ": " + e);
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    for (const std::string& e : label_value_errors(text))
      bodies.push_back("Invalid value: " + hami::go_quote(text) + ": " + e);
  }
  if (bodies.empty())
    return std::nullopt;
  // The aggregate: one error as it is, several as "[a, b]" (duplicates
  // once).
  std::vector<std::string> unique;
  Json causes = Json::array();
  for (const std::string& body : bodies) {
    Json cause = Json::object();
    cause["reason"] = "FieldValueInvalid";
    cause["message"] = body;
    cause["field"] = kField;
    causes.push_back(std::move(cause));
    const std::string full = std::string(kField) + ": " + body;
    if (std::find(unique.begin(), unique.end(), full) == unique.end())
      unique.push_back(full);
  }
  std::string aggregate;
  for (size_t i = 0; i < unique.size(); ++i)
    aggregate += (i > 0 ? ", " : "") + unique[i];
  if (unique.size() > 1)
    aggregate = "[" + aggregate + "]";
  const std::string name = meta_string(object, "name");
  std::string qualified_kind(kind.kind);
  if (!kind.group.empty())
    qualified_kind += "." + std::string(kind.group);
  Json details = Json::object();
  details["name"] = name;
  if (!kind.group.empty())
    details["group"] = std::string(kind.group);
  details["kind"] = std::string(kind.kind);
  details["causes"] = std::move(causes);
  return status_failure(422, "Invalid",
                        qualified_kind + " " + hami::go_quote(name) + " is invalid: " + aggregate,
                        std::move(details));
}

}  // namespace hami::testing::fake
