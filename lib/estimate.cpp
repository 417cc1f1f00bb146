#include <tagop/estimate.hpp>

#include <algorithm>  // std::max
#include <cmath>      // std::sqrt, std::isfinite

#include <fmt/format.h>  // fmt::format

#include <tagop/error.hpp>  // Error

namespace tagop {

namespace {

// The score interval of a Poisson count k (not necessarily whole: an
// effective count), times the period.
Estimate score_interval(double k, double period, double z) {
  const double half = z * std::sqrt(k + z * z / 4);
  const double centre = k + z * z / 2;
  // At k = 0 the low end is 0 exactly; rounding must not make it negative.
  return {k * period, std::max(0.0, centre - half) * period, (centre + half) * period};
}

}  // namespace

Estimate estimate_from_samples(std::uint64_t samples, double period, double z) {
  return score_interval(static_cast<double>(samples), period, z);
}

Estimate estimate_from_parts(std::span<const SampledPart> parts, double z) {
  if (parts.empty()) return {};
  std::uint64_t samples = 0;
  bool one_period = true;
  double largest = 0, mean = 0, variance = 0;
  for (const SampledPart& part : parts) {
    if (!(part.period > 0) || !std::isfinite(part.period))
      throw Error(fmt::format("estimate_from_parts: a part's period is {}: periods are positive", part.period));
    one_period = one_period && part.period == parts.front().period;
    largest = std::max(largest, part.period);
    samples += part.samples;
    const double k = static_cast<double>(part.samples);
    mean += part.period * k;
    variance += part.period * part.period * k;
  }
  if (one_period) return estimate_from_samples(samples, parts.front().period, z);
  if (samples == 0) return score_interval(0, largest, z);
  const double period = variance / mean;  // the effective period
  Estimate out = score_interval(mean / period, period, z);
  out.value = mean;  // exactly the sum, not its rounding through k x p
  return out;
}

}  // namespace tagop
