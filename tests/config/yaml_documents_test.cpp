// load_yaml_documents: YAML::LoadAll's documents, and an error instead of
// yaml-cpp 0.7's endless loop.
#include "config/yaml_documents.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hami::test {
namespace {

std::string error_of(const std::string& text) {
  try {
    config::load_yaml_documents(text);
  } catch (const YAML::Exception& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(YamlDocuments, GivesTheDocumentsLoadAllGives) {
  const std::string stream = "a: 1\n---\n---\n- x\n...\n--- text\n";
  const auto docs = config::load_yaml_documents(stream);
  const auto expected = YAML::LoadAll(stream);
  ASSERT_EQ(docs.size(), expected.size());
  ASSERT_EQ(docs.size(), 4U);
  EXPECT_EQ(docs[0]["a"].as<int>(), 1);
  EXPECT_TRUE(docs[1].IsNull());
  EXPECT_EQ(docs[2][0].as<std::string>(), "x");
  EXPECT_EQ(docs[3].as<std::string>(), "text");
  EXPECT_TRUE(config::load_yaml_documents("").empty());
  EXPECT_EQ(config::load_yaml_documents("---\n---\n").size(), 2U);
}

TEST(YamlDocuments, ATokenNoValueCanStartIsAnErrorNotAnEndlessLoop) {
  // Each of these made LoadAll allocate empty documents until memory ran out.
  EXPECT_EQ(error_of(","), "yaml-cpp: error at line 1, column 1: expected a YAML value here");
  EXPECT_EQ(error_of("\n,\n"), "yaml-cpp: error at line 2, column 1: expected a YAML value here");
  EXPECT_EQ(error_of("kind: Node\n---\n,\n"),
            "yaml-cpp: error at line 3, column 1: expected a YAML value here");
}

}  // namespace
}  // namespace hami::test
