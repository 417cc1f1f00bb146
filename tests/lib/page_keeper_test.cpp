// PageKeeper: a file mapping read front to back keeps only the pages near
// its reader (RSS from the kernel's own count, /proc/self/smaps), the
// pages given back read as before, and a short file gets no helper thread.

#include <catch2/catch.hpp>

#include <fcntl.h>     // open
#include <sys/mman.h>  // mmap
#include <unistd.h>    // write, close

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tagop/page_keeper.hpp>

namespace {

namespace fs = std::filesystem;

// The resident KiB of the mapping that starts at `base` (its smaps entry).
std::uint64_t resident_kib(const void* base) {
  std::ifstream smaps("/proc/self/smaps");
  std::ostringstream start;
  start << std::hex << reinterpret_cast<std::uintptr_t>(base) << '-';
  std::string line;
  bool in_mapping = false;
  while (std::getline(smaps, line)) {
    if (line.find('-') != std::string::npos && line.find(' ') > line.find('-') && !line.starts_with("Rss"))
      in_mapping = line.starts_with(start.str());
    if (in_mapping && line.starts_with("Rss:")) return std::stoull(line.substr(4));
  }
  FAIL("no mapping at the address in /proc/self/smaps");
  return 0;
}

std::size_t threads_now() {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator("/proc/self/task"), fs::directory_iterator{}));
}

// A file of `size` bytes, each 8-byte word its own offset, mapped as the
// reader maps a capture; removed and unmapped when done.
struct MappedOffsets {
  std::string path = (fs::temp_directory_path() / "tagop-page-keeper.bin").string();
  std::size_t size;
  void* map = MAP_FAILED;

  explicit MappedOffsets(std::size_t bytes) : size(bytes) {
    std::vector<std::uint64_t> words(size / 8);
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = i * 8;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(size));
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    REQUIRE(map != MAP_FAILED);
  }
  ~MappedOffsets() {
    if (map != MAP_FAILED) ::munmap(map, size);
    fs::remove(path);
  }
  const std::byte* bytes() const { return static_cast<const std::byte*>(map); }
  const std::uint64_t* words() const { return static_cast<const std::uint64_t*>(map); }
};

}  // namespace

TEST_CASE("page keeper: a mapping read front to back keeps only the pages near its reader", "[perfdata][pages]") {
  constexpr std::size_t size = 24u << 20;  // past 2 behind, short of the helper's 4 windows
  const MappedOffsets file(size);
  const void* const map = file.map;
  const std::byte* const bytes = file.bytes();
  const std::uint64_t* const words = file.words();

  const std::size_t threads_before = threads_now();
  std::uint64_t sum = 0, expected = 0, most_resident = 0;
  {
    tagop::PageKeeper pages(bytes, size, 0, false);
    CHECK(threads_now() == threads_before);  // no helper for a file this short
    for (std::size_t at = 0; at < size; at += 8) {
      if (at % tagop::PageKeeper::step == 0) {
        pages.reached(at);
        most_resident = std::max(most_resident, resident_kib(map));
      }
      sum += words[at / 8];
      expected += at;
    }
  }
  CHECK(sum == expected);
  // What is kept: the pages `behind` the reader and the step it reads next
  // (the kernel maps in a few pages around each fault too).
  CHECK(most_resident * 1024 <= tagop::PageKeeper::behind + 2 * tagop::PageKeeper::step);
  CHECK(most_resident > 0);
  // The pages given back read as they did: from the file.
  for (std::size_t at = 0; at < size; at += 4096) CHECK(words[at / 8] == at);
}

TEST_CASE("page keeper: a long file's pages ahead are mapped in by a helper thread", "[perfdata][pages]") {
  constexpr std::size_t size = 4 * tagop::PageKeeper::window + (1u << 20);
  const MappedOffsets file(size);
  const std::size_t threads_before = threads_now();
  {
    tagop::PageKeeper pages(file.bytes(), size, 0, true);
    CHECK(threads_now() == threads_before + 1);
    pages.reached(0);
  }
  // Joined; a thread that has ended may stay listed a moment longer.
  for (int i = 0; i < 200 && threads_now() != threads_before; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(threads_now() == threads_before);
}

TEST_CASE("page keeper: pages that other threads still read, behind the reader, stay until they pass",
          "[perfdata][pages]") {
  // A reader and one that reads the same words `lag` behind it, as a
  // report's workers read the records its reading thread handed on. Told
  // where the one behind is, the keeper keeps its pages; told only where
  // the reader is, it gives them back under the other, which reads them
  // in again, and they stay: the mapping ends up whole.
  constexpr std::size_t size = 40u << 20, lag = 6u << 20;
  const auto most_resident = [&](bool told) {
    const MappedOffsets file(size);
    const std::uint64_t* const words = file.words();
    std::uint64_t most = 0, sum = 0, expected = 0;
    tagop::PageKeeper pages(file.bytes(), size, 0, false);
    for (std::size_t at = 0; at < size + lag; at += 8) {
      if (at % tagop::PageKeeper::step == 0) {
        const std::uint64_t behind = at > lag ? at - lag : 0;
        if (told) pages.reached(std::min(at, size), behind);
        else pages.reached(std::min(at, size));
        most = std::max(most, resident_kib(file.map) * 1024);
      }
      if (at < size) sum += words[at / 8];
      if (at >= lag) expected += words[(at - lag) / 8];  // the one behind
    }
    CHECK(sum == expected);
    return most;
  };
  const std::uint64_t told = most_resident(true), untold = most_resident(false);
  INFO("told " << told << " bytes, untold " << untold);
  CHECK(told <= lag + tagop::PageKeeper::behind + 3 * tagop::PageKeeper::step);
  CHECK(untold > size / 2);
}
