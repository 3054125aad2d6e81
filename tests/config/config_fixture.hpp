// A temporary folder holding config files, and helpers that parse them.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config_loader.hpp"

namespace hami::test {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hami-config-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto p = dir / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  // Loads `text` from dir/cfg.yaml, naming it by its full path.
  config::HostConfig load(const std::string& text) const {
    return config::load_config(write("cfg.yaml", text));
  }

  // The ConfigError message for `text`, with the file's path replaced by
  // "cfg.yaml" and the folder by "DIR" so expectations stay readable.
  std::string error_of(const std::string& text) const {
    try {
      load(text);
    } catch (const config::ConfigError& e) {
      return normalise(e.what());
    }
    return "<no error>";
  }

  std::string normalise(std::string msg) const {
    const std::string file = (dir / "cfg.yaml").string();
    for (auto at = msg.find(file); at != std::string::npos; at = msg.find(file)) {
      msg.replace(at, file.size(), "cfg.yaml");
    }
    const std::string folder = dir.string();
    for (auto at = msg.find(folder); at != std::string::npos; at = msg.find(folder)) {
      msg.replace(at, folder.size(), "DIR");
    }
    return msg;
  }

  std::filesystem::path dir;
};

// The smallest valid document: everything else has defaults.
inline const std::string kMinimal = "tls:\n  selfSigned: true\n";

}  // namespace hami::test
