// libFuzzer target: any bytes as a predicate. The parser must refuse them
// with tagop::Error (in bounded time and stack: 4096 characters, 64
// parentheses deep, 256 terms) or return a predicate whose canonical text
// parses back to it, and that is the same as itself.

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t
#include <string>   // std::string
#include <string_view>

#include <tagop/error.hpp>               // Error
#include <tagop/predicate.hpp>           // Predicate
#include <tagop/predicate_relation.hpp>  // relation

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tagop::Predicate p;
  try {
    p = tagop::Predicate::parse(text);
  } catch (const tagop::Error&) {
    return 0;  // refused with a message: what bad input gets
  }
  const std::string canonical = p.to_string();
  // The canonical text of a wide predicate may pass the length bound.
  if (canonical.size() <= 4096 && !(tagop::Predicate::parse(canonical) == p)) __builtin_trap();
  if (!p.never_matches() && tagop::relation(p, p) != tagop::Relation::same) __builtin_trap();
  return 0;
}
