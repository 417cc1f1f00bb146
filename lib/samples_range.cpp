// SampleRange: the reader walks the capture on a producer thread and hands
// decoded samples over in batches through a queue of at most two, so that
// the iterating thread pulls lazily and memory stays bounded. A batch
// holds its samples' call chains too: each sample's chain views the
// batch's frames, so a capture without chains pays nothing for them.

#include <tagop/samples_range.hpp>

#include <condition_variable>  // std::condition_variable
#include <deque>               // std::deque
#include <exception>           // std::exception_ptr
#include <mutex>               // std::mutex
#include <thread>              // std::thread
#include <utility>             // std::move
#include <vector>              // std::vector

#include <tagop/call_chain.hpp>  // append_call_chain
#include <tagop/error.hpp>       // Error

namespace tagop {

namespace detail {

class SampleSource {
 public:
  SampleSource(perf_data::PerfDataReader& reader, RecordDecoder decode) : reader_(&reader), decode_(std::move(decode)) {
    for (const perf_data::EventAttr& a : reader.info().attrs)
      chains_ = chains_ || (a.attr.sample_type & PERF_SAMPLE_CALLCHAIN);
  }
  ~SampleSource() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    moved_.notify_all();
    if (producer_.joinable()) producer_.join();
  }
  SampleSource(const SampleSource&) = delete;
  SampleSource& operator=(const SampleSource&) = delete;

  void start() {
    if (started_) throw Error(ErrorCode::internal, "SampleRange: begin() called twice on a single-pass range");
    started_ = true;
    producer_ = std::thread([this] { produce(); });
    take_batch();
  }
  const Sample& current() const { return batch_.samples[at_]; }
  void next() {
    if (++at_ >= batch_.samples.size()) take_batch();
  }
  bool at_end() const { return at_ >= batch_.samples.size(); }
  const perf_data::ReadSummary& summary() const { return summary_; }
  std::size_t undecoded() const { return undecoded_; }

 private:
  static constexpr std::size_t batch_size = 4096;
  static constexpr std::size_t queue_limit = 2;
  struct Stopped {};  // thrown through read() when the range is destroyed early

  // Samples and the frames of their chains. While the producer fills it,
  // chain_ends[i] is where sample i's frames end in `frames` (which may
  // still move as it grows); the spans are set when it is handed over.
  struct Batch {
    std::vector<Sample> samples;
    std::vector<ChainFrame> frames;
    std::vector<std::size_t> chain_ends;  // only for a capture with chains
    void reserve() { samples.reserve(batch_size); }
    void set_chains() {
      for (std::size_t i = 0, begin = 0; i < chain_ends.size(); begin = chain_ends[i++])
        samples[i].chain = std::span<const ChainFrame>(frames).subspan(begin, chain_ends[i] - begin);
    }
  };

  struct Handler : perf_data::RecordHandler {
    SampleSource* source = nullptr;
    Batch batch;
    void sample(const perf_data::SampleRecord& record) override {
      Sample s{};
      if (!source->decode_(record, s)) {
        ++source->undecoded_;
        return;
      }
      batch.samples.push_back(s);
      if (source->chains_) {
        append_call_chain(record.callchain, record.misc, batch.frames);
        batch.chain_ends.push_back(batch.frames.size());
      }
      if (batch.samples.size() >= batch_size) source->hand_over(batch);
    }
  };

  void produce() {
    Handler h;
    h.source = this;
    h.batch.reserve();
    try {
      perf_data::ReadSummary summary = reader_->read(h);
      hand_over(h.batch);
      std::lock_guard lock(mutex_);
      summary_ = std::move(summary);
    } catch (const Stopped&) {
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    moved_.notify_all();
  }

  // Producer: queues a batch, waiting while the queue is full.
  void hand_over(Batch& batch) {
    if (batch.samples.empty()) return;
    batch.set_chains();
    std::unique_lock lock(mutex_);
    moved_.wait(lock, [&] { return stop_ || queue_.size() < queue_limit; });
    if (stop_) throw Stopped{};
    queue_.push_back(std::move(batch));
    batch = {};
    batch.reserve();
    lock.unlock();
    moved_.notify_all();
  }

  // Consumer: the next batch, or an empty one at the end.
  void take_batch() {
    std::unique_lock lock(mutex_);
    moved_.wait(lock, [&] { return !queue_.empty() || done_; });
    at_ = 0;
    batch_ = {};
    if (!queue_.empty()) {
      batch_ = std::move(queue_.front());
      queue_.pop_front();
    } else if (error_) {
      std::rethrow_exception(error_);
    }
    lock.unlock();
    moved_.notify_all();
  }

  perf_data::PerfDataReader* reader_;
  RecordDecoder decode_;
  std::thread producer_;
  bool started_ = false;  // the consumer's own

  std::mutex mutex_;
  std::condition_variable moved_;
  std::deque<Batch> queue_;
  bool stop_ = false, done_ = false;
  std::exception_ptr error_;
  perf_data::ReadSummary summary_;
  std::size_t undecoded_ = 0;  // the producer's until done_

  bool chains_ = false;  // some event records PERF_SAMPLE_CALLCHAIN

  Batch batch_;  // the consumer's
  std::size_t at_ = 0;
};

}  // namespace detail

SampleRange::SampleRange(perf_data::PerfDataReader& reader, RecordDecoder decode)
    : source_(std::make_shared<detail::SampleSource>(reader, std::move(decode))) {}

const perf_data::ReadSummary& SampleRange::summary() const { return source_->summary(); }
std::size_t SampleRange::undecoded() const { return source_->undecoded(); }

SampleRange::cursor SampleRange::begin_cursor() const {
  if (!source_) throw Error(ErrorCode::internal, "SampleRange: default-constructed range iterated");
  source_->start();
  return cursor{source_.get()};
}

const Sample& SampleRange::cursor::read() const { return source->current(); }
void SampleRange::cursor::next() { source->next(); }
bool SampleRange::cursor::equal(ranges::default_sentinel_t) const { return source->at_end(); }

SampleRange samples(perf_data::PerfDataReader& reader, RecordDecoder decode) {
  return SampleRange(reader, std::move(decode));
}

}  // namespace tagop
