// The fuzz targets without libFuzzer: runs a target's entry point on each
// file named, or on each file of each folder named, once. libFuzzer and its
// coverage are clang's; this lets every build (GCC's sanitized build in CI
// among them) replay the targets' corpora and seeds as tests, so that an
// input that once failed stays fixed and the targets keep compiling.
// Fuzzing itself is scripts/run-fuzz.sh.

#include <algorithm>   // std::sort
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint8_t
#include <cstdio>      // std::fprintf
#include <filesystem>  // directory_iterator
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <vector>      // std::vector

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// The files a path names: itself, or a folder's regular files in name order.
std::vector<fs::path> inputs_of(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const fs::path& file : inputs_of(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return 2;
      }
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  // A replay of nothing proves nothing: a moved corpus must fail here.
  if (replayed == 0) {
    std::fprintf(stderr, "replay: no inputs in the paths given\n");
    return 2;
  }
  std::printf("%zu inputs replayed\n", replayed);
  return 0;
}
