// The ABI contract every plugin the build produces must keep, whatever its
// kind: sane negotiation, non-empty info, a schema that parses, `create`
// accepting `{}` or refusing it cleanly, clearly bad configs refused,
// destroy(NULL) safe, and error buffers of capacity 0 and 1 respected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/schema.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "hami/struct_sizes.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"
#include "raw_plugin.hpp"

namespace hami::conformance {

void PrintTo(const BuiltPlugin& plugin, std::ostream* os) {
  *os << plugin.file;
}

namespace {

using test::RawPlugin;
using ::testing::HasSubstr;

std::string kind_word(uint32_t kind) {
  return host::kind_name(kind);
}

// The vtable floor and required members of each kind (device.h,
// admission.h, scheduling.h).
size_t vtable_floor(uint32_t kind) {
  switch (kind) {
    case HAMI_KIND_DEVICE:
      return v1_0_size<hami_device_vtable>;
    case HAMI_KIND_ADMISSION:
      return v1_0_size<hami_admission_vtable>;
    default:
      return v1_0_size<hami_scheduling_vtable>;
  }
}

std::vector<std::string> missing_required(const RawPlugin& p) {
  std::vector<std::string> missing;
  const auto need = [&](bool present, const char* name) {
    if (!present) {
      missing.emplace_back(name);
    }
  };
  switch (p.info().kind) {
    case HAMI_KIND_DEVICE: {
      const auto& v = p.vtable<hami_device_vtable>();
      need(v.create != nullptr, "create");
      need(v.destroy != nullptr, "destroy");
      need(v.describe != nullptr, "describe");
      need(v.mutate_container != nullptr, "mutate_container");
      need(v.container_request != nullptr, "container_request");
      need(v.decode_node != nullptr, "decode_node");
      need(v.node_health != nullptr, "node_health");
      need(v.fit != nullptr, "fit");
      need(v.encode_allocation != nullptr, "encode_allocation");
      need(v.decode_allocation != nullptr, "decode_allocation");
      break;
    }
    case HAMI_KIND_ADMISSION: {
      const auto& v = p.vtable<hami_admission_vtable>();
      need(v.create != nullptr, "create");
      need(v.destroy != nullptr, "destroy");
      need(v.review != nullptr, "review");
      break;
    }
    default: {
      const auto& v = p.vtable<hami_scheduling_vtable>();
      need(v.create != nullptr, "create");
      need(v.destroy != nullptr, "destroy");
      need(v.describe != nullptr, "describe");
      break;
    }
  }
  return missing;
}

struct ErrBuf {
  std::array<char, 1024> buf{};
  hami_errbuf view() { return hami_errbuf{buf.data(), buf.size()}; }
  std::string message() const { return std::string(buf.data(), ::strnlen(buf.data(), buf.size())); }
};

// Calls create directly; destroys the instance if one was made.
struct CreateResult {
  hami_status status;
  bool made_instance;
  std::string message;
};

CreateResult raw_create(const RawPlugin& p, const std::string& config) {
  const hami_host_info host = RawPlugin::host_info();
  hami_instance* instance = nullptr;
  ErrBuf err;
  const hami_status status =
      p.header().create(&host, hami_str{config.data(), config.size()}, &instance, err.view());
  if (status == HAMI_OK && instance != nullptr) {
    p.header().destroy(instance);
  }
  return CreateResult{status, status == HAMI_OK && instance != nullptr, err.message()};
}

class PluginConformance : public ::testing::TestWithParam<BuiltPlugin> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::is_regular_file(GetParam().path()))
        << GetParam().path() << " was not built into the plugin directory " << plugin_directory();
    plugin_.emplace(GetParam().path());
    ASSERT_EQ(plugin_->status(), HAMI_OK) << "negotiation refused: " << plugin_->message();
    ASSERT_NE(plugin_->info().vtable, nullptr);
  }
  const RawPlugin& plugin() const { return *plugin_; }

  std::optional<RawPlugin> plugin_;
};

TEST(ConformanceSetup, TheBuildProducedPluginsInThePluginDirectory) {
  // Failing loudly beats a suite that passes because it checked nothing.
  ASSERT_FALSE(built_plugins().empty())
      << "no hami_add_plugin() targets in this build: the conformance suite has nothing to check";
  for (const auto& p : built_plugins()) {
    EXPECT_TRUE(std::filesystem::is_regular_file(p.path()))
        << p.file << " is missing from " << plugin_directory();
  }
}

TEST_P(PluginConformance, NegotiationIsSane) {
  const hami_plugin_info& info = plugin().info();
  EXPECT_EQ(info.abi_major, HAMI_ABI_MAJOR);
  EXPECT_EQ(info.kind, GetParam().kind)
      << "the build declared it a " << kind_word(GetParam().kind) << " plugin";
  const std::string name = plugin().name();
  EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-"), std::string::npos)
      << name;
  EXPECT_GE(plugin().header().struct_size, vtable_floor(info.kind));
  EXPECT_THAT(missing_required(plugin()), ::testing::IsEmpty());
  if (info.kind != HAMI_KIND_DEVICE) {
    EXPECT_NE(info.flags & HAMI_FLAG_CONCURRENT_SAFE, 0u)
        << "policy plugins must accept concurrent calls (HAMI-PLUGIN-8)";
  }

  // Negotiating again, even with no room for a message, gives the same answer.
  hami_plugin_info again{};
  again.struct_size = sizeof again;
  ASSERT_EQ(plugin().negotiate(again, hami_errbuf{nullptr, 0}), HAMI_OK);
  EXPECT_EQ(again.kind, info.kind);
  EXPECT_EQ(again.vtable, info.vtable);
  EXPECT_EQ(RawPlugin::text(again.name), name);
}

TEST_P(PluginConformance, NegotiationNeverWritesPastTheHostsStruct) {
  // Room for the version prefix only: the plugin may report its version but
  // must not write the rest, and must not claim success.
  std::array<unsigned char, sizeof(hami_plugin_info) + 32> storage;
  storage.fill(0x5A);
  auto* tiny = reinterpret_cast<hami_plugin_info*>(storage.data());
  tiny->struct_size = 8;
  ErrBuf err;
  EXPECT_NE(plugin().negotiate(*tiny, err.view()), HAMI_OK);
  for (size_t i = 8; i < storage.size(); ++i) {
    ASSERT_EQ(storage[i], 0x5A) << "byte " << i << " written past struct_size 8";
  }
}

TEST_P(PluginConformance, HostOfAnotherMajorIsNotAccepted) {
  hami_plugin_info out{};
  out.struct_size = sizeof out;
  ErrBuf err;
  const hami_status status = plugin().negotiate(out, err.view(), HAMI_ABI_MAJOR + 1);
  // Either the plugin refuses, or it reports its own major so the host
  // refuses; it never claims to speak the other major.
  if (status == HAMI_OK) {
    EXPECT_EQ(out.abi_major, HAMI_ABI_MAJOR);
  } else {
    EXPECT_FALSE(err.message().empty());
  }
}

TEST_P(PluginConformance, InfoStringsAreNonEmpty) {
  EXPECT_FALSE(plugin().name().empty());
  EXPECT_FALSE(RawPlugin::text(plugin().info().version).empty());
  EXPECT_FALSE(RawPlugin::text(plugin().info().description).empty());
}

TEST_P(PluginConformance, ConfigSchemaParses) {
  const std::string schema = RawPlugin::text(plugin().info().config_schema);
  if (schema.empty()) {
    return;  // "any JSON object" (plugin.h)
  }
  rapidjson::Document doc;
  doc.Parse(schema.data(), schema.size());
  ASSERT_FALSE(doc.HasParseError()) << "config_schema is not JSON: " << schema;
  ASSERT_TRUE(doc.IsObject()) << "config_schema must be a JSON object";
  const rapidjson::SchemaDocument compiled(doc);
  rapidjson::SchemaValidator validator(compiled);
  rapidjson::Document empty;
  empty.Parse("{}");
  (void)empty.Accept(validator);  // must not crash; accepting {} is not required
}

TEST_P(PluginConformance, CreateWithEmptyObjectIsAcceptedOrCleanlyRejected) {
  const CreateResult result = raw_create(plugin(), "{}");
  if (result.status == HAMI_OK) {
    EXPECT_TRUE(result.made_instance) << "create returned HAMI_OK but no instance";
  } else {
    EXPECT_NE(result.status, HAMI_INTERNAL) << result.message;
    EXPECT_FALSE(result.message.empty()) << "a refusal must say why";
  }
}

TEST_P(PluginConformance, LoaderAcceptsOrCleanlyRejectsEmptyConfig) {
  // allow_writable: the build tree's permissions are not under test here.
  host::HostServices services([](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{1'700'000'000}; });
  host::PluginLoader loader(host::LoaderOptions{plugin_directory(), true}, services);
  const host::PluginSpec spec{"conformance", GetParam().file, GetParam().kind, "{}"};
  try {
    switch (GetParam().kind) {
      case HAMI_KIND_DEVICE:
        (void)loader.load_device(spec);
        break;
      case HAMI_KIND_ADMISSION:
        (void)loader.load_admission(spec);
        break;
      default:
        (void)loader.load_scheduling(spec);
        break;
    }
  } catch (const host::PluginLoadError& e) {
    EXPECT_TRUE(e.kind() == host::PluginErrorKind::ConfigRejected ||
                e.kind() == host::PluginErrorKind::CreateFailed)
        << host::to_string(e.kind()) << ": " << e.what();
    EXPECT_THAT(e.what(), HasSubstr(GetParam().file));
  }
}

TEST_P(PluginConformance, ClearlyBadConfigIsRejected) {
  // The host refuses a config that is not a JSON object before create…
  host::HostServices services([](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{0}; });
  host::PluginLoader loader(host::LoaderOptions{plugin_directory(), true}, services);
  const host::PluginSpec spec{"conformance", GetParam().file, GetParam().kind, "[1, 2]"};
  try {
    if (GetParam().kind == HAMI_KIND_DEVICE) {
      (void)loader.load_device(spec);
    } else if (GetParam().kind == HAMI_KIND_ADMISSION) {
      (void)loader.load_admission(spec);
    } else {
      (void)loader.load_scheduling(spec);
    }
    ADD_FAILURE() << "a config of [1, 2] was accepted";
  } catch (const host::PluginLoadError& e) {
    EXPECT_EQ(e.kind(), host::PluginErrorKind::ConfigRejected) << e.what();
  }
  // …and the plugin refuses one too, should a host ever pass it
  // (HAMI-PLUGIN-9).
  for (const std::string bad : {"[]", "not json", "42"}) {
    const CreateResult result = raw_create(plugin(), bad);
    EXPECT_NE(result.status, HAMI_OK) << "create accepted " << bad;
    EXPECT_FALSE(result.message.empty()) << "create refused " << bad << " without a message";
  }
}

TEST_P(PluginConformance, DestroyNullIsSafe) {
  plugin().header().destroy(nullptr);
  plugin().header().destroy(nullptr);
}

TEST_P(PluginConformance, ErrorBufferCapacityZeroAndOne) {
  const hami_host_info host = RawPlugin::host_info();
  const std::string bad = "not json";
  hami_instance* instance = nullptr;

  std::array<char, 4> zero{'#', '#', '#', '#'};
  EXPECT_NE(plugin().header().create(&host, hami_str{bad.data(), bad.size()}, &instance,
                                     hami_errbuf{zero.data(), 0}),
            HAMI_OK);
  EXPECT_EQ(std::string(zero.data(), zero.size()), "####") << "cap 0 must write nothing";
  EXPECT_NE(plugin().header().create(&host, hami_str{bad.data(), bad.size()}, &instance,
                                     hami_errbuf{nullptr, 0}),
            HAMI_OK);

  std::array<char, 4> one{'#', '#', '#', '#'};
  EXPECT_NE(plugin().header().create(&host, hami_str{bad.data(), bad.size()}, &instance,
                                     hami_errbuf{one.data(), 1}),
            HAMI_OK);
  EXPECT_EQ(one[0], '\0') << "cap 1 must write only the terminator";
  EXPECT_EQ(std::string(one.data() + 1, 3), "###");
}

INSTANTIATE_TEST_SUITE_P(Built, PluginConformance, ::testing::ValuesIn(built_plugins()),
                         [](const ::testing::TestParamInfo<BuiltPlugin>& param) {
                           return test_name(param.param);
                         });

}  // namespace
}  // namespace hami::conformance
