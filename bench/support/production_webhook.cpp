#include "production_webhook.hpp"

#include <fstream>
#include <stdexcept>

#include "config/device_config.hpp"

namespace hami::bench {

ProductionWebhook::ProductionWebhook(const std::string& plugin_dir, const std::string& source_dir)
    : services_([](int32_t, std::string_view, std::string_view) {}, [] { return int64_t{0}; }) {
  const auto config =
      config::DeviceConfigFile::load(source_dir + "/config/device-config.yaml", "deviceConfigFile");
  const host::LoaderOptions options{plugin_dir, false};
  host::PluginLoader loader(options, services_);
  for (const std::string name : {"nvidia", "amd"}) {
    devices_.push_back(loader.load_device(
        {name, name + ".so", HAMI_KIND_DEVICE, config.section_json(name).value_or("{}")}));
  }
  policy_.emplace(loader.load_admission({"vgpu", "vgpu.so", HAMI_KIND_ADMISSION, "{}"}));
  service_.emplace(devices_, *policy_, nullptr, admission::AdmissionSettings{});
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::string text(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

}  // namespace hami::bench
