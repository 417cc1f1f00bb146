// walk-records FILE: the floor of any perf.data reader. Maps the file and
// walks its data section record by record, reading each record's header
// (type and size) and nothing else; prints the records by type. Any report
// reads at least this much.

#include <fcntl.h>     // open
#include <sys/mman.h>  // mmap
#include <sys/stat.h>  // fstat
#include <unistd.h>    // close

#include <cstdint>  // std::uint64_t
#include <cstdio>   // std::printf
#include <cstring>  // std::memcpy

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: walk-records FILE\n");
    return 2;
  }
  const int fd = ::open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 104) {
    std::fprintf(stderr, "walk-records: cannot read %s\n", argv[1]);
    return 1;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return 1;
  madvise(map, size, MADV_SEQUENTIAL);
  const auto* bytes = static_cast<const unsigned char*>(map);
  std::uint64_t offset = 0, data_size = 0;  // the header's data section: at 40, size at 48
  std::memcpy(&offset, bytes + 40, 8);
  std::memcpy(&data_size, bytes + 48, 8);
  const std::uint64_t end = offset + data_size <= size ? offset + data_size : size;
  std::uint64_t by_type[128] = {}, records = 0;
  for (std::uint64_t at = offset; at + 8 <= end;) {
    std::uint32_t type;
    std::uint16_t record_size;
    std::memcpy(&type, bytes + at, 4);
    std::memcpy(&record_size, bytes + at + 6, 2);
    if (record_size < 8) break;
    ++by_type[type & 127];
    ++records;
    at += record_size;
  }
  std::printf("%llu records: %llu samples\n", static_cast<unsigned long long>(records),
              static_cast<unsigned long long>(by_type[9]));
  munmap(map, size);
  ::close(fd);
  return 0;
}
