// The library's version, compiled in: the headers' version as this library
// was built, which a program built against other headers can compare.

#include <tagop/version.hpp>

namespace tagop {

Version version() { return header_version(); }

}  // namespace tagop
