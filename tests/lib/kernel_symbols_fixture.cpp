// Functions with aliases at their addresses, for the [kernel] tests of the
// rules by which perf keeps one symbol of those sharing an address: each
// alias has its function's address and size, so only the other rules
// (binding, leading underscores, name length, SyS_) decide.

extern "C" {

__attribute__((noinline, used)) int global_one(int x) { return x + 1; }
static int local_alias(int) noexcept __attribute__((alias("global_one"), used));

__attribute__((noinline, used)) int strong_one(int x) { return x + 2; }
int weak_one(int) noexcept __attribute__((weak, alias("strong_one")));

__attribute__((noinline, used)) int single_under(int x) { return x + 3; }
int __double_under(int) noexcept __attribute__((alias("single_under")));

__attribute__((noinline, used)) int longer_name(int x) { return x + 4; }
int brief(int) noexcept __attribute__((alias("longer_name")));

__attribute__((noinline, used)) int SyS_read(int x) { return x + 5; }
int sys_read(int) noexcept __attribute__((alias("SyS_read")));

}  // extern "C"

int main(int argc, char**) {
  return global_one(argc) + local_alias(argc) + strong_one(argc) + single_under(argc) + longer_name(argc) +
         sys_read(argc) > 1000;
}
