// Test data helpers shared by the admission tests.
#pragma once

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace hami::admission::testing {

// The bytes of tests/admission/data/<name>.
inline std::string data_file(const std::string& name) {
  std::ifstream in(std::string(HAMI_ADMISSION_TEST_DATA) + "/" + name, std::ios::binary);
  if (!in)
    throw std::runtime_error("missing test data " + name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `text` without trailing newlines (fixture files end with one).
inline std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

}  // namespace hami::admission::testing
