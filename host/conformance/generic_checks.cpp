// The ABI contract every plugin keeps, whatever its kind (plugin.h and
// sdk/docs/ABI.md): sane negotiation, non-empty info, a schema that parses,
// `create` accepting `{}` or refusing it cleanly, clearly bad configs
// refused, destroy(NULL) safe, error buffers of capacity 0 and 1 respected,
// and the host's own loader accepting the file.
#include <rapidjson/document.h>
// GCC 12 at -O2 reports a null dereference inside RapidJSON's schema
// validator teardown after inlining (a false positive in the library).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <rapidjson/schema.h>
#pragma GCC diagnostic pop

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "conformance/check_context.hpp"
#include "hami/struct_sizes.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::conformance {
namespace {

std::size_t vtable_floor(uint32_t kind) {
  switch (kind) {
    case HAMI_KIND_DEVICE:
      return v1_0_size<hami_device_vtable>;
    case HAMI_KIND_ADMISSION:
      return v1_0_size<hami_admission_vtable>;
    default:
      return v1_0_size<hami_scheduling_vtable>;
  }
}

std::vector<std::string> missing_required(const PluginUnderTest& p) {
  std::vector<std::string> missing;
  const auto need = [&](bool present, const char* name) {
    if (!present) {
      missing.emplace_back(name);
    }
  };
  switch (p.kind()) {
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

bool known_kind(uint32_t kind) {
  return kind == HAMI_KIND_DEVICE || kind == HAMI_KIND_ADMISSION || kind == HAMI_KIND_SCHEDULING;
}

// The vtable may be read only when the kind is known and create/destroy are
// there; checks that call them stop early otherwise (negotiation reports it).
bool callable(const PluginUnderTest& p, CheckContext& c) {
  if (!known_kind(p.kind()) || p.header().create == nullptr || p.header().destroy == nullptr) {
    c.fail("the vtable has no create/destroy for a known kind (see the negotiation check)");
    return false;
  }
  return true;
}

struct ErrBuf {
  std::array<char, 1024> buf{};
  hami_errbuf view() { return hami_errbuf{buf.data(), buf.size()}; }
  std::string message() const { return std::string(buf.data(), ::strnlen(buf.data(), buf.size())); }
};

struct CreateResult {
  hami_status status;
  bool made_instance;
  std::string message;
};

CreateResult raw_create(const PluginUnderTest& p, const std::string& config) {
  hami_instance* instance = nullptr;
  ErrBuf err;
  const hami_status status = p.header().create(
      &PluginUnderTest::host_info(), hami_str{config.data(), config.size()}, &instance, err.view());
  if (status == HAMI_OK && instance != nullptr) {
    p.header().destroy(instance);
  }
  return CreateResult{status, status == HAMI_OK && instance != nullptr, err.message()};
}

void negotiation(const PluginUnderTest& p, CheckContext& c) {
  const hami_plugin_info& info = p.info();
  c.expect(info.abi_major == HAMI_ABI_MAJOR, "reports ABI major " + std::to_string(info.abi_major) +
                                                 " to a major " + std::to_string(HAMI_ABI_MAJOR) +
                                                 " host");
  if (!c.expect(known_kind(info.kind), "unknown kind " + std::to_string(info.kind))) {
    return;
  }
  const std::string name = p.name();
  c.expect(!name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") ==
                                std::string::npos,
           "name '" + name + "' is not [a-z0-9_-]+");
  c.expect(p.header().struct_size >= vtable_floor(info.kind),
           "vtable struct_size " + std::to_string(p.header().struct_size) +
               " is smaller than the 1.0 " + kind_word(info.kind) + " vtable (" +
               std::to_string(vtable_floor(info.kind)) + " bytes)");
  for (const std::string& fn : missing_required(p)) {
    c.fail("required function " + fn + " is NULL");
  }
  if (info.kind != HAMI_KIND_DEVICE) {
    c.expect((info.flags & HAMI_FLAG_CONCURRENT_SAFE) != 0,
             "policy plugins must declare HAMI_FLAG_CONCURRENT_SAFE (HAMI-PLUGIN-8)");
  }
  hami_plugin_info again{};
  again.struct_size = sizeof again;
  if (c.expect(p.negotiate(again, hami_errbuf{nullptr, 0}) == HAMI_OK,
               "negotiating again with no error buffer failed")) {
    c.expect(again.kind == info.kind && again.vtable == info.vtable &&
                 PluginUnderTest::text(again.name) == name,
             "negotiating again gave a different kind, vtable or name");
  }
}

void negotiation_struct_bound(const PluginUnderTest& p, CheckContext& c) {
  // Room for the version prefix only: the plugin may report its version but
  // must not write the rest, and must not claim success.
  std::array<unsigned char, sizeof(hami_plugin_info) + 32> storage;
  storage.fill(0x5A);
  hami_plugin_info* tiny = reinterpret_cast<hami_plugin_info*>(storage.data());
  tiny->struct_size = 8;
  ErrBuf err;
  c.expect(p.negotiate(*tiny, err.view()) != HAMI_OK,
           "accepted a hami_plugin_info of struct_size 8 (too small for the 1.0 members)");
  for (std::size_t i = 8; i < storage.size(); ++i) {
    if (storage[i] != 0x5A) {
      c.fail("wrote byte " + std::to_string(i) + " past a struct_size of 8");
      return;
    }
  }
}

void other_major(const PluginUnderTest& p, CheckContext& c) {
  hami_plugin_info out{};
  out.struct_size = sizeof out;
  ErrBuf err;
  const auto major = static_cast<uint16_t>(HAMI_ABI_MAJOR + 1);
  if (p.negotiate(out, err.view(), major) == HAMI_OK) {
    c.expect(out.abi_major == HAMI_ABI_MAJOR, "claims to speak ABI major " +
                                                  std::to_string(out.abi_major) +
                                                  " to a host of another major");
  } else {
    c.expect(!err.message().empty(),
             "refused a host of major " + std::to_string(major) + " without saying why");
  }
}

void info_strings(const PluginUnderTest& p, CheckContext& c) {
  c.expect(!p.name().empty(), "empty name");
  c.expect(!PluginUnderTest::text(p.info().version).empty(), "empty version");
  c.expect(!PluginUnderTest::text(p.info().description).empty(), "empty description");
}

void config_schema(const PluginUnderTest& p, CheckContext& c) {
  const std::string schema = PluginUnderTest::text(p.info().config_schema);
  if (schema.empty()) {
    c.skip("no config_schema (any JSON object is accepted)");
    return;
  }
  rapidjson::Document doc;
  doc.Parse(schema.data(), schema.size());
  if (!c.expect(!doc.HasParseError(), "config_schema is not JSON") ||
      !c.expect(doc.IsObject(), "config_schema is not a JSON object")) {
    return;
  }
  const rapidjson::SchemaDocument compiled(doc);
  rapidjson::SchemaValidator validator(compiled);
  rapidjson::Document empty;
  empty.Parse("{}");
  (void)empty.Accept(validator);  // must not crash; accepting {} is not required here
}

void create_empty_config(const PluginUnderTest& p, CheckContext& c) {
  if (!callable(p, c)) {
    return;
  }
  const CreateResult result = raw_create(p, "{}");
  if (result.status == HAMI_OK) {
    c.expect(result.made_instance, "create returned HAMI_OK but no instance");
  } else {
    c.expect(result.status != HAMI_INTERNAL,
             "create({}) failed with HAMI_INTERNAL: " + result.message);
    c.expect(!result.message.empty(), "create({}) was refused without a message");
  }
}

void bad_config_rejected(const PluginUnderTest& p, CheckContext& c) {
  if (!callable(p, c)) {
    return;
  }
  for (const std::string bad : {"[]", "not json", "42"}) {
    const CreateResult result = raw_create(p, bad);
    c.expect(result.status != HAMI_OK, "create accepted the config " + bad + " (HAMI-PLUGIN-9)");
    if (result.status != HAMI_OK) {
      c.expect(!result.message.empty(), "create refused " + bad + " without a message");
    }
  }
}

void destroy_null(const PluginUnderTest& p, CheckContext& c) {
  if (!callable(p, c)) {
    return;
  }
  p.header().destroy(nullptr);  // a crash is reported by the runner
  p.header().destroy(nullptr);
}

void error_buffer_capacity(const PluginUnderTest& p, CheckContext& c) {
  if (!callable(p, c)) {
    return;
  }
  const std::string bad = "not json";
  hami_instance* instance = nullptr;
  const hami_host_info& host = PluginUnderTest::host_info();
  std::array<char, 4> zero{'#', '#', '#', '#'};
  c.expect(p.header().create(&host, hami_str{bad.data(), bad.size()}, &instance,
                             hami_errbuf{zero.data(), 0}) != HAMI_OK,
           "create accepted 'not json'");
  c.expect(std::string(zero.data(), zero.size()) == "####",
           "wrote into an error buffer of capacity 0");
  c.expect(p.header().create(&host, hami_str{bad.data(), bad.size()}, &instance,
                             hami_errbuf{nullptr, 0}) != HAMI_OK,
           "create with a NULL error buffer accepted 'not json'");
  std::array<char, 4> one{'#', '#', '#', '#'};
  c.expect(p.header().create(&host, hami_str{bad.data(), bad.size()}, &instance,
                             hami_errbuf{one.data(), 1}) != HAMI_OK,
           "create accepted 'not json'");
  c.expect(one[0] == '\0' && std::string(one.data() + 1, 3) == "###",
           "an error buffer of capacity 1 must get only the terminating NUL");
}

void host_loader(const PluginUnderTest& p, CheckContext& c) {
  host::HostServices services([](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{1'767'225'600}; });
  const std::filesystem::path file = std::filesystem::absolute(p.file());
  // The file's permissions are the installer's business, not the plugin's.
  host::PluginLoader loader(host::LoaderOptions{file.parent_path(), true}, services);
  const auto load = [&](const std::string& config) {
    const host::PluginSpec spec{"check", file.filename().string(), p.kind(), config};
    switch (p.kind()) {
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
  };
  try {
    load("{}");
  } catch (const host::PluginLoadError& e) {
    c.expect(e.kind() == host::PluginErrorKind::ConfigRejected ||
                 e.kind() == host::PluginErrorKind::CreateFailed,
             "the host's loader refuses it: " + std::string(host::to_string(e.kind())) + ": " +
                 e.what());
  }
  try {
    load("[1, 2]");
    c.fail("the host's loader accepted the config [1, 2]");
  } catch (const host::PluginLoadError& e) {
    c.expect(e.kind() == host::PluginErrorKind::ConfigRejected,
             "a config of [1, 2] failed as " + std::string(host::to_string(e.kind())) +
                 " instead of ConfigRejected: " + e.what());
  }
}

const Check kGeneric[] = {
    {"negotiation", "negotiates as ABI 1, a known kind, a valid name, a complete vtable", 0,
     &negotiation},
    {"negotiation-struct-bound", "never writes past the host's hami_plugin_info", 0,
     &negotiation_struct_bound},
    {"other-major", "does not claim to speak another ABI major", 0, &other_major},
    {"info-strings", "has a name, a version and a description", 0, &info_strings},
    {"config-schema", "declares a config schema that is a JSON object", 0, &config_schema},
    {"create-empty-config", "create({}) makes an instance or refuses cleanly", 0,
     &create_empty_config},
    {"bad-config-rejected", "create refuses configs that are not JSON objects, with a message", 0,
     &bad_config_rejected},
    {"destroy-null", "destroy(NULL) is harmless", 0, &destroy_null},
    {"error-buffer-capacity", "error buffers of capacity 0 and 1 are respected", 0,
     &error_buffer_capacity},
    {"host-loader", "the host's loader accepts it with {} and refuses [1, 2]", 0, &host_loader},
};

}  // namespace

std::span<const Check> generic_checks() {
  return kGeneric;
}

}  // namespace hami::conformance
