#include <tagop/estimate.hpp>

#include <algorithm>  // std::max
#include <cmath>      // std::sqrt

namespace tagop {

Estimate estimate_from_samples(std::uint64_t samples, double period, double z) {
  const double k = static_cast<double>(samples);
  const double half = z * std::sqrt(k + z * z / 4);
  const double centre = k + z * z / 2;
  // At k = 0 the low end is 0 exactly; rounding must not make it negative.
  return {k * period, std::max(0.0, centre - half) * period, (centre + half) * period};
}

}  // namespace tagop
