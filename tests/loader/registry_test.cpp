// PluginRegistry: configuration order, summaries, policy lookup, lifetime
// (reverse destruction, libraries outliving instances) and host services.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixture_paths.h"
#include "load_error.hpp"
#include "plugin_test_support.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"
#include "plugins/plugin_registry.hpp"

namespace hami::test {
namespace {

namespace fs = std::filesystem;
using host::PluginRegistry;
using ::testing::ElementsAre;

// Whether the dynamic loader has `file` mapped right now.
bool is_loaded(const fs::path& file) {
  void* handle = ::dlopen(file.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) {
    return false;
  }
  ::dlclose(handle);
  return true;
}

std::string labelled(const char* label) {
  return std::string(R"({"label": ")") + label + "\"}";
}

class Registry : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* fixture :
         {HAMI_FIXTURE_C_DEVICE, HAMI_FIXTURE_C_ADMISSION, HAMI_FIXTURE_C_SCHED_BINPACK,
          HAMI_FIXTURE_C_SCHED_SPREAD, HAMI_FIXTURE_OK_NOOP, HAMI_FIXTURE_KEEP_LOADED}) {
      dir_.add(fixture);
    }
  }

  PluginRegistry load(const std::vector<host::PluginSpec>& specs) {
    return PluginRegistry::load(dir_.options(), specs, recorder_.services());
  }

  std::vector<std::string> destroyed() const { return recorder_.messages_containing("destroyed "); }

  TempPluginDir dir_;
  RecordingServices recorder_;
};

TEST_F(Registry, LoadsEverySlotInConfigurationOrder) {
  const auto registry = load({
      spec("cdev", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE),
      spec("policies", HAMI_FIXTURE_C_SCHED_BINPACK, HAMI_KIND_SCHEDULING),
      spec("webhook", HAMI_FIXTURE_C_ADMISSION, HAMI_KIND_ADMISSION),
      spec("noop", HAMI_FIXTURE_OK_NOOP, HAMI_KIND_DEVICE),
  });
  ASSERT_EQ(registry.devices().size(), 2u);
  EXPECT_EQ(registry.devices()[0].name(), "cdev");
  EXPECT_EQ(registry.devices()[1].name(), "noop");
  ASSERT_NE(registry.admission(), nullptr);
  EXPECT_EQ(registry.admission()->name(), "webhook");
  ASSERT_EQ(registry.scheduling().size(), 1u);
  EXPECT_EQ(registry.device("noop"), &registry.devices()[1]);
  EXPECT_EQ(registry.device("absent"), nullptr);

  ASSERT_EQ(registry.size(), 4u);
  const auto& first = registry.summary()[0];
  EXPECT_EQ(first.name, "cdev");
  EXPECT_EQ(first.plugin_name, "c_device");
  EXPECT_EQ(first.kind, "device");
  EXPECT_EQ(first.version, "1.0.0");
  EXPECT_EQ(first.abi_version, "1.2");
  EXPECT_EQ(first.file, fs::canonical(dir_.path() / HAMI_FIXTURE_C_DEVICE));
  EXPECT_EQ(registry.summary()[1].kind, "scheduling");
  EXPECT_EQ(registry.summary()[2].kind, "admission");
  EXPECT_EQ(registry.summary()[2].plugin_name, "c_admission");
  EXPECT_EQ(registry.summary()[3].plugin_name, "ok_noop");
}

TEST_F(Registry, EmptyConfigurationIsAnEmptyRegistry) {
  const auto registry = load({});
  EXPECT_TRUE(registry.devices().empty());
  EXPECT_EQ(registry.admission(), nullptr);
  EXPECT_EQ(registry.scheduling_for("binpack", true), nullptr);
}

TEST_F(Registry, SchedulingForPicksThePluginDeclaringTheFirstWord) {
  const auto registry = load({
      spec("binpacker", HAMI_FIXTURE_C_SCHED_BINPACK, HAMI_KIND_SCHEDULING),
      spec("spreader", HAMI_FIXTURE_C_SCHED_SPREAD, HAMI_KIND_SCHEDULING),
  });
  const auto* binpacker = &registry.scheduling()[0];
  const auto* spreader = &registry.scheduling()[1];
  EXPECT_THAT(binpacker->describe().device_policies, ElementsAre("binpack", "spread"));

  EXPECT_EQ(registry.scheduling_for("binpack", true), binpacker);
  EXPECT_EQ(registry.scheduling_for("spread", true), spreader);
  // "spread" as a device policy: both declare it, configuration order wins.
  EXPECT_EQ(registry.scheduling_for("spread", false), binpacker);
  EXPECT_EQ(registry.scheduling_for("numa,topology-aware", false), spreader);
  EXPECT_EQ(registry.scheduling_for(" binpack , numa", true), binpacker);
  EXPECT_EQ(registry.scheduling_for("numa", true), nullptr);
  EXPECT_EQ(registry.scheduling_for("unknown", false), nullptr);
  EXPECT_EQ(registry.scheduling_for("", false), nullptr);
}

TEST_F(Registry, DuplicateNamesAreRejected) {
  EXPECT_THROW(load({spec("x", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE),
                     spec("x", HAMI_FIXTURE_OK_NOOP, HAMI_KIND_DEVICE)}),
               std::invalid_argument);
}

TEST_F(Registry, SecondAdmissionPluginIsRejected) {
  EXPECT_THROW(load({spec("a", HAMI_FIXTURE_C_ADMISSION, HAMI_KIND_ADMISSION),
                     spec("b", HAMI_FIXTURE_C_ADMISSION, HAMI_KIND_ADMISSION)}),
               std::invalid_argument);
}

TEST_F(Registry, UnknownKindIsRejected) {
  EXPECT_THROW(load({spec("a", HAMI_FIXTURE_C_DEVICE, 9)}), std::invalid_argument);
}

TEST_F(Registry, InstancesAreDestroyedInReverseCreationOrder) {
  {
    const auto registry = load({
        spec("a", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("a")),
        spec("policies", HAMI_FIXTURE_C_SCHED_BINPACK, HAMI_KIND_SCHEDULING),
        spec("b", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("b")),
        spec("c", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("c")),
    });
    EXPECT_TRUE(destroyed().empty());
  }
  EXPECT_THAT(destroyed(), ElementsAre("destroyed c", "destroyed b", "destroyed a"));
  // Each line is attributed to the configured name of its instance.
  std::vector<std::string> sources;
  for (const auto& line : recorder_.lines()) {
    if (line.message.rfind("destroyed ", 0) == 0) {
      sources.push_back(line.source);
    }
  }
  EXPECT_THAT(sources, ElementsAre("c", "b", "a"));
}

TEST_F(Registry, FailedLoadDestroysEarlierInstancesInReverseOrder) {
  const auto e = load_error([&] {
    (void)load({
        spec("a", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("a")),
        spec("b", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("b")),
        spec("ghost", "ghost.so", HAMI_KIND_DEVICE),
    });
  });
  EXPECT_EQ(e.kind(), host::PluginErrorKind::CannotOpen);
  EXPECT_THAT(destroyed(), ElementsAre("destroyed b", "destroyed a"));
}

TEST_F(Registry, MoveAssignmentDestroysThePreviousPlugins) {
  auto registry = load({spec("a", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("old"))});
  registry = load({spec("a", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("new"))});
  EXPECT_THAT(destroyed(), ElementsAre("destroyed old"));
  PluginRegistry moved(std::move(registry));
  EXPECT_EQ(moved.devices().size(), 1u);
  EXPECT_THAT(destroyed(), ElementsAre("destroyed old"));
}

TEST_F(Registry, LibraryOutlivesItsInstancesAndIsUnloadedAfterTheLast) {
  const fs::path file = fs::canonical(dir_.path() / HAMI_FIXTURE_C_DEVICE);
  ASSERT_FALSE(is_loaded(file));
  {
    std::optional<host::DevicePluginHandle> kept;
    {
      auto registry = load({spec("a", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("a")),
                            spec("b", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("b"))});
      EXPECT_TRUE(is_loaded(file));
      EXPECT_EQ(registry.devices()[0].info().library, registry.devices()[1].info().library);
    }
    EXPECT_FALSE(is_loaded(file));

    auto handle = host::load_device_plugin(
        dir_.options(), spec("solo", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE, labelled("solo")),
        recorder_.services());
    // The loader that made it is gone; the handle alone keeps the code mapped.
    EXPECT_TRUE(is_loaded(file));
    kept.emplace(std::move(handle));
    EXPECT_EQ(kept->description().vendor, "CDEV");
  }
  EXPECT_FALSE(is_loaded(file));
  EXPECT_THAT(destroyed(), ElementsAre("destroyed b", "destroyed a", "destroyed solo"));
}

TEST_F(Registry, KeepLoadedLibraryStaysMapped) {
  const fs::path file = fs::canonical(dir_.path() / HAMI_FIXTURE_KEEP_LOADED);
  { (void)load({spec("k", HAMI_FIXTURE_KEEP_LOADED, HAMI_KIND_DEVICE)}); }
  EXPECT_TRUE(is_loaded(file));
}

TEST_F(Registry, PluginsReadTheHostClockAndItCanBeMoved) {
  const auto registry = load({spec("cdev", HAMI_FIXTURE_C_DEVICE, HAMI_KIND_DEVICE)});
  const hami_kv annotation{{"example.com/cdev-register", 25}, {"GPU-0,CDEV-1,1024,100", 21}};
  hami_node_view node{};
  node.struct_size = sizeof node;
  node.annotations = &annotation;
  node.annotations_len = 1;

  recorder_.set_now(1234);
  auto health = registry.devices()[0].node_health(node, /*now=*/99);
  ASSERT_EQ(health.writes.size(), 2u);
  EXPECT_EQ(health.writes[0].key, "example.com/cdev-handshake");
  EXPECT_EQ(health.writes[0].value, "Reported 99");
  EXPECT_EQ(health.writes[1].key, "example.com/cdev-checked-at");
  EXPECT_EQ(health.writes[1].value, "1234");
  EXPECT_TRUE(health.healthy);
  EXPECT_FALSE(health.needs_update);

  recorder_.set_now(2000);
  health = registry.devices()[0].node_health(node, 99);
  ASSERT_EQ(health.writes.size(), 2u);
  EXPECT_EQ(health.writes[1].value, "2000");
}

}  // namespace
}  // namespace hami::test
