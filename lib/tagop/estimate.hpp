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

#include <tagop/api.hpp>  // TAGOP_API

namespace tagop TAGOP_API {

struct Estimate {
  double value = 0;
  double low = 0;
  double high = 0;
};

/// z for a two-sided 95% interval.
inline constexpr double z_95 = 1.959963984540054;

/// The estimate of how many operations `samples` samples taken every
/// `period` operations stand for, with its interval at `z`.
Estimate estimate_from_samples(std::uint64_t samples, double period, double z = z_95);

}  // namespace tagop
