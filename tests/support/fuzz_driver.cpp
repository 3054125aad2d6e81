// Runs a libFuzzer entry point once over every file of the given corpus
// folders (or files), so fuzz targets double as regression tests in ctest
// on compilers without libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
int run_file(const std::filesystem::path& file) {
  // Named before the run: a crash report does not say which input it was.
  std::fprintf(stderr, "fuzz driver: %s\n", file.c_str());
  std::ifstream in(file, std::ios::binary);
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  // Copy into an exactly-sized heap buffer so ASan catches reads past the end.
  std::vector<uint8_t> exact(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  int runs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file())
          runs += run_file(entry.path());
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      runs += run_file(arg);
    } else {
      std::fprintf(stderr, "fuzz driver: no such corpus %s\n", argv[i]);
      return 2;
    }
  }
  // Empty input is always worth one run.
  LLVMFuzzerTestOneInput(nullptr, 0);
  std::printf("fuzz driver: %d corpus inputs ran clean\n", runs);
  return runs > 0 ? 0 : 3;
}
