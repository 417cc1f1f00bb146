#pragma once
// How many operations a sample count stands for, with a confidence
// interval.
//
// IBS tags one op in every `period` (dispatched ops, or cycles, or
// fetches). If N ops meet a predicate, the number k of their samples is
// binomial(N, 1/period), which for large period is Poisson with mean
// lambda = N / period. The interval on lambda is the Poisson score
// interval: the lambdas with (k - lambda)^2 / lambda <= z^2, that is
//   lambda = k + z^2/2 +- z * sqrt(k + z^2/4),
// which stays sensible for small k (for k = 0 it is [0, z^2]). The
// estimate of N is period * k, its interval period times that of lambda.
// The period is the one the samples were taken with (attr.sample_period,
// or MaxCnt * 16 from the samples' control registers).
//
// Thread safety: no hidden state: const member functions and free functions here are safe from several
// threads at once; anything that modifies needs one thread at a time (the standard library's rule).

#include <cstdint>  // std::uint64_t
#include <span>     // std::span

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

/// How many operations some samples stand for, with a confidence interval.
struct Estimate {
  double value = 0;  ///< samples x period
  double low = 0;    ///< the interval's low end
  double high = 0;   ///< the interval's high end
};

/// z for a two-sided 95% interval.
inline constexpr double z_95 = 1.959963984540054;

/// The estimate of how many operations `samples` samples taken every
/// `period` operations stand for, with its interval at `z`.
Estimate estimate_from_samples(std::uint64_t samples, double period, double z = z_95);

/// Samples taken every `period` operations: one part of a sum of parts
/// sampled at different periods (captures of a fleet's store, each with
/// its own).
struct SampledPart {
  std::uint64_t samples = 0;  ///< the samples of the part
  double period = 0;          ///< the period they were taken at (> 0)
};

/// The estimate of how many operations the parts' samples stand for
/// together: sum of samples x period, with an interval at `z`.
///
/// Parts of one period are one Poisson count: exactly
/// estimate_from_samples(their samples' sum, the period), so a sum of
/// captures taken at one period is estimated as one capture of all their
/// samples. Parts of different periods are a weighted sum of Poisson
/// counts, sum(p_i k_i), whose variance is estimated by sum(p_i^2 k_i);
/// its interval is the score interval of the Poisson count of the same
/// mean and variance (moment matching, as Satterthwaite's effective
/// degrees of freedom): an effective period p = sum(p_i^2 k_i) /
/// sum(p_i k_i) and count k = sum(p_i k_i) / p, the interval that of k
/// samples taken every p. Parts without samples add nothing to the mean
/// or the variance; when no part has any, the interval is [0, z^2 x the
/// largest period] (the upper end of the least sampled part, so that no
/// part's unseen operations are ruled out). No parts: all zero.
/// Throws tagop::Error for a period that is not positive.
Estimate estimate_from_parts(std::span<const SampledPart> parts, double z = z_95);

}  // namespace tagop
