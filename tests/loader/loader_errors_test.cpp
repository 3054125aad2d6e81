// One test per loader failure mode: the exact PluginErrorKind, and a message
// that names the file and what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fixture_paths.h"
#include "load_error.hpp"
#include "plugin_test_support.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::test {
namespace {

using host::PluginErrorKind;
using ::testing::HasSubstr;

class LoaderErrors : public ::testing::Test {
 protected:
  host::PluginLoadError device_error(std::string_view fixture, std::string config = "{}") {
    dir_.add(fixture);
    return load_error([&] {
      (void)host::load_device_plugin(
          dir_.options(),
          spec("under-test", std::string(fixture), HAMI_KIND_DEVICE, std::move(config)),
          recorder_.services());
    });
  }

  host::DevicePluginHandle device(std::string_view fixture, std::string config = "{}") {
    dir_.add(fixture);
    return host::load_device_plugin(
        dir_.options(),
        spec("under-test", std::string(fixture), HAMI_KIND_DEVICE, std::move(config)),
        recorder_.services());
  }

  TempPluginDir dir_;
  RecordingServices recorder_;
};

TEST_F(LoaderErrors, MissingFileIsCannotOpen) {
  const auto e = load_error([&] {
    (void)host::load_device_plugin(dir_.options(), spec("ghost", "ghost.so", HAMI_KIND_DEVICE),
                                   recorder_.services());
  });
  EXPECT_EQ(e.kind(), PluginErrorKind::CannotOpen);
  EXPECT_THAT(e.what(), HasSubstr("ghost.so"));
  EXPECT_THAT(e.what(), HasSubstr("cannot open"));
}

TEST_F(LoaderErrors, MissingDirectoryIsCannotOpen) {
  const auto e = load_error([&] {
    (void)host::load_device_plugin(host::LoaderOptions{dir_.path() / "absent", false},
                                   spec("p", "ok_noop.so", HAMI_KIND_DEVICE), recorder_.services());
  });
  EXPECT_EQ(e.kind(), PluginErrorKind::CannotOpen);
  EXPECT_THAT(e.what(), HasSubstr("plugin directory"));
  EXPECT_THAT(e.what(), HasSubstr("absent"));
}

TEST_F(LoaderErrors, FileThatIsNotASharedObjectIsCannotOpen) {
  { std::ofstream(dir_.path() / "garbage.so") << "this is not an ELF file\n"; }
  const auto e = load_error([&] {
    (void)host::load_device_plugin(dir_.options(), spec("g", "garbage.so", HAMI_KIND_DEVICE),
                                   recorder_.services());
  });
  EXPECT_EQ(e.kind(), PluginErrorKind::CannotOpen);
  EXPECT_THAT(e.what(), HasSubstr("garbage.so"));
  // The dynamic loader's own reason reaches the message.
  EXPECT_THAT(e.what(), HasSubstr("cannot load: "));
  EXPECT_THAT(e.what(), ::testing::AnyOf(HasSubstr("ELF"), HasSubstr("too short")));
}

TEST_F(LoaderErrors, DirectoryAsLibraryIsCannotOpen) {
  std::filesystem::create_directory(dir_.path() / "sub.so");
  const auto e = load_error([&] {
    (void)host::load_device_plugin(dir_.options(), spec("d", "sub.so", HAMI_KIND_DEVICE),
                                   recorder_.services());
  });
  EXPECT_EQ(e.kind(), PluginErrorKind::CannotOpen);
  EXPECT_THAT(e.what(), HasSubstr("not a regular file"));
}

TEST_F(LoaderErrors, MissingEntryPoint) {
  const auto e = device_error(HAMI_FIXTURE_MISSING_ENTRY);
  EXPECT_EQ(e.kind(), PluginErrorKind::MissingEntryPoint);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_MISSING_ENTRY));
  EXPECT_THAT(e.what(), HasSubstr("does not export hami_plugin_negotiate"));
}

TEST_F(LoaderErrors, NegotiationRefused) {
  const auto e = device_error(HAMI_FIXTURE_NEGOTIATE_FAILS);
  EXPECT_EQ(e.kind(), PluginErrorKind::NegotiationRefused);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_NEGOTIATE_FAILS));
  EXPECT_THAT(e.what(), HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(e.what(), HasSubstr("plugin ABI 1.2, host ABI 1.2"));
  EXPECT_THAT(e.what(), HasSubstr("negotiate_fails: needs host ABI minor 9"));
}

TEST_F(LoaderErrors, AbiMajorMismatchNamesBothVersions) {
  const auto e = device_error(HAMI_FIXTURE_ABI_MAJOR_MISMATCH);
  EXPECT_EQ(e.kind(), PluginErrorKind::AbiMajorMismatch);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_ABI_MAJOR_MISMATCH));
  EXPECT_THAT(e.what(), HasSubstr("plugin ABI 2.2 is incompatible with host ABI 1.2"));
}

TEST_F(LoaderErrors, AbiMinorOlderLoads) {
  const auto handle = device(HAMI_FIXTURE_ABI_MINOR_OLDER);
  EXPECT_EQ(handle.info().abi_major, 1);
  EXPECT_EQ(handle.info().abi_minor, 0);
  EXPECT_EQ(handle.description().vendor, "NOOP");
  // node_cleanup is not in this plugin's vtable: absent, not a crash.
  EXPECT_TRUE(handle.node_cleanup(hami_node_view{}).empty());
}

TEST_F(LoaderErrors, AbiMinorNewerLoads) {
  const auto handle = device(HAMI_FIXTURE_ABI_MINOR_NEWER);
  EXPECT_EQ(handle.info().abi_major, 1);
  EXPECT_EQ(handle.info().abi_minor, HAMI_ABI_MINOR + 1);
  EXPECT_EQ(handle.description().count_resource, "example.com/noop");
  EXPECT_EQ(recorder_.messages_containing("plugin ABI 1.3, host ABI 1.2").size(), 1u);
}

TEST_F(LoaderErrors, WrongKind) {
  const auto e = device_error(HAMI_FIXTURE_WRONG_KIND);
  EXPECT_EQ(e.kind(), PluginErrorKind::WrongKind);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_WRONG_KIND));
  EXPECT_THAT(e.what(), HasSubstr("declares kind 'admission' but is configured as a device"));
}

TEST_F(LoaderErrors, NullVtable) {
  const auto e = device_error(HAMI_FIXTURE_NULL_VTABLE);
  EXPECT_EQ(e.kind(), PluginErrorKind::InvalidVtable);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_NULL_VTABLE));
  EXPECT_THAT(e.what(), HasSubstr("returned no vtable"));
}

TEST_F(LoaderErrors, ShortVtable) {
  const auto e = device_error(HAMI_FIXTURE_SHORT_VTABLE);
  EXPECT_EQ(e.kind(), PluginErrorKind::InvalidVtable);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_SHORT_VTABLE));
  EXPECT_THAT(e.what(),
              HasSubstr("vtable struct_size " + std::to_string(sizeof(hami_vtable_header)) +
                        " is smaller than the ABI 1.0 hami_device_vtable"));
}

TEST_F(LoaderErrors, MissingRequiredFunctionIsNamed) {
  const auto e = device_error(HAMI_FIXTURE_MISSING_REQUIRED_FN);
  EXPECT_EQ(e.kind(), PluginErrorKind::InvalidVtable);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_MISSING_REQUIRED_FN));
  EXPECT_THAT(e.what(), HasSubstr("lacks required function 'fit'"));
}

TEST_F(LoaderErrors, CreateFails) {
  const auto e = device_error(HAMI_FIXTURE_CREATE_FAILS);
  EXPECT_EQ(e.kind(), PluginErrorKind::CreateFailed);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_CREATE_FAILS));
  EXPECT_THAT(e.what(), HasSubstr("create failed with INVALID_ARGUMENT: create_fails: this "
                                  "fixture never creates an instance"));
}

TEST_F(LoaderErrors, BadSchema) {
  const auto e = device_error(HAMI_FIXTURE_BAD_SCHEMA);
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_BAD_SCHEMA));
  EXPECT_THAT(e.what(), HasSubstr("config schema is not valid JSON"));
}

TEST_F(LoaderErrors, ConfigRejectedBySchemaNamesPointerAndKeyword) {
  const auto e = device_error(HAMI_FIXTURE_SCHEMA_CHECKED,
                              R"({"resourceName": "x", "defaultMemory": "lots"})");
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_SCHEMA_CHECKED));
  EXPECT_THAT(e.what(), HasSubstr("config rejected by schema at /defaultMemory: keyword 'type'"));
}

TEST_F(LoaderErrors, ConfigRejectedByMinimum) {
  const auto e =
      device_error(HAMI_FIXTURE_SCHEMA_CHECKED, R"({"resourceName": "x", "defaultMemory": -1})");
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(),
              HasSubstr("config rejected by schema at /defaultMemory: keyword 'minimum'"));
}

TEST_F(LoaderErrors, ConfigRejectedForMissingRequiredMember) {
  const auto e = device_error(HAMI_FIXTURE_SCHEMA_CHECKED, R"({"defaultMemory": 1})");
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(), HasSubstr("keyword 'required'"));
}

TEST_F(LoaderErrors, ConfigRejectedForUnknownMember) {
  const auto e = device_error(HAMI_FIXTURE_SCHEMA_CHECKED, R"({"resourceName": "x", "bogus": 1})");
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(), HasSubstr("keyword 'additionalProperties'"));
}

TEST_F(LoaderErrors, ConfigThatIsNotJson) {
  const auto e = device_error(HAMI_FIXTURE_OK_NOOP, R"({"a": )");
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_OK_NOOP));
  EXPECT_THAT(e.what(), HasSubstr("config is not valid JSON (offset"));
}

TEST_F(LoaderErrors, ConfigThatIsNotAnObject) {
  const auto e = device_error(HAMI_FIXTURE_OK_NOOP, "[1, 2]");
  EXPECT_EQ(e.kind(), PluginErrorKind::ConfigRejected);
  EXPECT_THAT(e.what(), HasSubstr("config must be a JSON object, got an array"));
}

TEST_F(LoaderErrors, ValidConfigIsAccepted) {
  const auto handle =
      device(HAMI_FIXTURE_SCHEMA_CHECKED, R"({"resourceName": "x", "defaultMemory": 5})");
  EXPECT_EQ(handle.info().name, "schema_checked");
}

TEST_F(LoaderErrors, EmptyConfigMeansEmptyObject) {
  const auto handle = device(HAMI_FIXTURE_OK_NOOP, "");
  EXPECT_EQ(handle.name(), "under-test");
  EXPECT_EQ(handle.info().name, "ok_noop");
}

TEST_F(LoaderErrors, ExceptionEscapingCreateIsPluginThrew) {
  const auto e = device_error(HAMI_FIXTURE_THROWS_RAW);
  EXPECT_EQ(e.kind(), PluginErrorKind::PluginThrew);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_THROWS_RAW));
  EXPECT_THAT(e.what(), HasSubstr("create threw an exception across the ABI: throws_raw: create "
                                  "let an exception escape"));
}

TEST_F(LoaderErrors, ExceptionEscapingNegotiateIsPluginThrew) {
  const auto e = device_error(HAMI_FIXTURE_THROWS_RAW_NEGOTIATE);
  EXPECT_EQ(e.kind(), PluginErrorKind::PluginThrew);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_THROWS_RAW_NEGOTIATE));
  EXPECT_THAT(e.what(), HasSubstr("hami_plugin_negotiate threw"));
  EXPECT_THAT(e.what(), HasSubstr("negotiate let an exception escape"));
}

TEST_F(LoaderErrors, ThrowingConstructorIsCaughtByTheBarrier) {
  // The SDK barrier turns the exception into HAMI_INTERNAL + what().
  const auto e = device_error(HAMI_FIXTURE_THROWS_DEVICE, R"({"throwIn": "create"})");
  EXPECT_EQ(e.kind(), PluginErrorKind::CreateFailed);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_THROWS_DEVICE));
  EXPECT_THAT(e.what(), HasSubstr("create failed with INTERNAL: throws_everywhere: create threw"));
}

TEST_F(LoaderErrors, ThrowingDescribeFailsTheLoad) {
  const auto e = device_error(HAMI_FIXTURE_THROWS_DEVICE, R"({"throwIn": "all"})");
  EXPECT_EQ(e.kind(), PluginErrorKind::CreateFailed);
  EXPECT_THAT(e.what(), HasSubstr("under-test.describe: throws_everywhere: describe threw"));
}

TEST_F(LoaderErrors, UnusableDescriptionFailsTheLoad) {
  const auto e = device_error(HAMI_FIXTURE_LIAR_DEVICE, R"({"lie": "bad_describe"})");
  EXPECT_EQ(e.kind(), PluginErrorKind::CreateFailed);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_LIAR_DEVICE));
  EXPECT_THAT(e.what(), HasSubstr("memory_factor 0 is below 1"));
}

TEST_F(LoaderErrors, DeclaredNodePolicyWithoutScoreNode) {
  dir_.add(HAMI_FIXTURE_LIAR_NO_SCORE);
  const auto e = load_error([&] {
    (void)host::load_scheduling_plugin(
        dir_.options(), spec("policies", HAMI_FIXTURE_LIAR_NO_SCORE, HAMI_KIND_SCHEDULING),
        recorder_.services());
  });
  EXPECT_EQ(e.kind(), PluginErrorKind::InvalidVtable);
  EXPECT_THAT(e.what(), HasSubstr(HAMI_FIXTURE_LIAR_NO_SCORE));
  EXPECT_THAT(e.what(), HasSubstr("declares node policies 'lying' but its vtable lacks "
                                  "'score_node'"));
}

TEST_F(LoaderErrors, KindOfSpecMustMatchTheSlot) {
  dir_.add(HAMI_FIXTURE_OK_NOOP);
  EXPECT_THROW(
      (void)host::load_admission_plugin(
          dir_.options(), spec("p", HAMI_FIXTURE_OK_NOOP, HAMI_KIND_DEVICE), recorder_.services()),
      std::invalid_argument);
}

TEST(PluginErrorKindNames, EveryKindHasItsName) {
  EXPECT_EQ(host::to_string(PluginErrorKind::CannotOpen), "CannotOpen");
  EXPECT_EQ(host::to_string(PluginErrorKind::MissingEntryPoint), "MissingEntryPoint");
  EXPECT_EQ(host::to_string(PluginErrorKind::NegotiationRefused), "NegotiationRefused");
  EXPECT_EQ(host::to_string(PluginErrorKind::AbiMajorMismatch), "AbiMajorMismatch");
  EXPECT_EQ(host::to_string(PluginErrorKind::WrongKind), "WrongKind");
  EXPECT_EQ(host::to_string(PluginErrorKind::InvalidVtable), "InvalidVtable");
  EXPECT_EQ(host::to_string(PluginErrorKind::ConfigRejected), "ConfigRejected");
  EXPECT_EQ(host::to_string(PluginErrorKind::CreateFailed), "CreateFailed");
  EXPECT_EQ(host::to_string(PluginErrorKind::PluginThrew), "PluginThrew");
  EXPECT_EQ(host::to_string(PluginErrorKind::InsecureFile), "InsecureFile");
  EXPECT_EQ(host::to_string(PluginErrorKind::OutsideDirectory), "OutsideDirectory");
}

}  // namespace
}  // namespace hami::test
