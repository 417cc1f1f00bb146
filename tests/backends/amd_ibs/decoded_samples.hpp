#pragma once
// A RecordHandler that decodes a capture's IBS samples through IbsCapture,
// keeping them, their engine tallies and the problems of damaged ones.

#include <string>
#include <vector>

#include <tagop/amd_ibs/perf_capture.hpp>
#include <tagop/engine.hpp>
#include <tagop/perf_data_reader.hpp>

struct DecodedSamples : tagop::perf_data::RecordHandler {
  const tagop::amd_ibs::IbsCapture& capture;
  std::vector<tagop::Sample> samples;
  tagop::Aggregator aggregator;
  std::vector<std::string> problems;
  explicit DecodedSamples(const tagop::amd_ibs::IbsCapture& c) : capture(c) {}
  void sample(const tagop::perf_data::SampleRecord& r) override {
    tagop::Sample s;
    tagop::amd_ibs::IbsSampleInfo info;
    std::string problem;
    if (capture.decode(r, s, info, problem) != tagop::amd_ibs::IbsCapture::Result::ok) {
      problems.push_back(problem);
      return;
    }
    aggregator.add(s);
    samples.push_back(s);
  }
};
