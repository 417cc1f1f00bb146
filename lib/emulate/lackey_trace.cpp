#include <tagop/emulate/lackey_trace.hpp>

namespace tagop::emulate {

namespace detail {
const std::int8_t hex_value[256] = {
#define X16 -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1
    X16, X16, X16,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1, -1, -1, -1, -1,       // '0'-'9'
    -1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,  // 'A'-'F'
    X16,
    -1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,  // 'a'-'f'
    X16, X16, X16, X16, X16, X16, X16, X16, X16,  // 0x70-0xFF
#undef X16
};
}  // namespace detail

void LackeyTraceParser::message(const char* p, const char* end) {
  if (end - p >= 2 && ((p[0] == '=' && p[1] == '=') || (p[0] == '-' && p[1] == '-'))) {
    if (messages_.size() == 20) messages_.erase(messages_.begin());
    messages_.emplace_back(p, end);
    return;
  }
  if (p != end) ++bad_lines_;
}

}  // namespace tagop::emulate
