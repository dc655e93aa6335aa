#include "workloads/loader/loader.h"

#include <cblas.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <csignal>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/timer.h"
#include "workloads/loader/augment.h"
#include "workloads/loader/linear_classifier.h"
#include "workloads/loader/worker_pool.h"

namespace dlcbench {
namespace {

constexpr int kClasses = 10;
// Labels first, padded so the images start on a cache line.
constexpr std::size_t kImageAlignment = 64;

loader::ImageShape shape_of(const std::string& dataset) {
  if (dataset == "mnist") return {1, 28, 28};
  if (dataset == "cifar10") return {3, 32, 32};
  throw UsageError(fmt::format("loader/{}: valid data sets are mnist and cifar10", dataset));
}

std::size_t labels_bytes(std::int64_t batch) {
  const std::size_t bytes = static_cast<std::size_t>(batch) * sizeof(std::int32_t);
  return (bytes + kImageAlignment - 1) / kImageAlignment * kImageAlignment;
}

struct SharedMemoryRoom {
  std::optional<std::uint64_t> total, free;
};

SharedMemoryRoom dev_shm_room() {
  struct statvfs s {};
  if (statvfs("/dev/shm", &s) != 0) return {};
  return {static_cast<std::uint64_t>(s.f_blocks) * s.f_frsize, static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize};
}

std::string bytes_words(std::optional<std::uint64_t> bytes) {
  return bytes ? format_memory_bytes(static_cast<double>(*bytes)) : std::string("an unknown size");
}

class LoaderBenchmark final : public MicroBenchmark {
 public:
  explicit LoaderBenchmark(const MicroParams& p)
      : dataset_(p.variant),
        shape_(shape_of(p.variant)),
        augmentation_{4, p.variant == "cifar10", static_cast<int>(p.size)},
        batch_(p.batch),
        examples_(p.examples),
        batch_bytes_(static_cast<std::size_t>(loader_batch_bytes(p.variant, p.batch, p.size))),
        classifier_(std::int64_t{shape_.channels} * p.size * p.size, kClasses) {
    if (!examples_) throw UsageError("loader reads the data set's files: give --data (see `dlcbench data fetch`)");
    if (examples_->example_size() != static_cast<std::size_t>(shape_.floats()))
      throw DataError(fmt::format("loader/{}: the data set's examples have {} values, not the {} of {}", dataset_,
                                  examples_->example_size(), shape_.floats(), dataset_));
    // One shuffled order for the run, seeded: every environment sees the
    // same batches in the same order.
    order_.resize(examples_->count());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::mt19937_64 shuffle(p.seed);
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[shuffle() % i]);
    seed_ = p.seed;
    room_before_ = dev_shm_room();
    // The workers start before the BLAS has a reason to start its threads.
    pool_ = std::make_unique<loader::WorkerPool>(
        loader::PoolSettings{p.workers, p.prefetch, batch_bytes_,
                             getenv(kLoaderTokenVariable) ? getenv(kLoaderTokenVariable) : ""},
        [this](std::uint64_t index, std::byte* out) { fill(index, out); });
    openblas_set_num_threads(p.threads);
  }

  nlohmann::json describe() const override {
    const auto& s = pool_->settings();
    nlohmann::json j = {{"benchmark", kLoaderWorkload},
                        {"dataset", dataset_},
                        {"examples", examples_->count()},
                        {"workers", s.workers},
                        {"prefetch", s.prefetch},
                        {"batch", batch_},
                        {"edge", augmentation_.edge},
                        {"channels", shape_.channels},
                        {"batch_bytes", batch_bytes_},
                        {"in_flight_bytes", pool_->in_flight_bytes()},
                        {"batches_per_operation", kLoaderBatchesPerOperation},
                        {"augmentation", fmt::format("random crop with {}-pixel zero padding{}, bilinear resize to "
                                                     "{}x{}",
                                                     augmentation_.pad, augmentation_.flip ? ", horizontal flip" : "",
                                                     augmentation_.edge, augmentation_.edge)},
                        {"training_step", "linear softmax classifier, cross-entropy, SGD with momentum 0.9 (BLAS)"},
                        {"handover", "one POSIX shared-memory segment per batch (shm_open in /dev/shm)"}};
    j["dev_shm_bytes"] = room_before_.total ? nlohmann::json(*room_before_.total) : nlohmann::json();
    j["dev_shm_free_bytes"] = room_before_.free ? nlohmann::json(*room_before_.free) : nlohmann::json();
    return j;
  }

  MicroResult run() override {
    double wait = 0, step = 0, loss = 0;
    Stopwatch clock;
    for (int b = 0; b < kLoaderBatchesPerOperation; ++b) {
      const loader::BatchView view = next_batch();
      wait += view.wait_seconds;
      Stopwatch step_clock;
      const auto* labels = reinterpret_cast<const std::int32_t*>(view.data);
      const auto* images = reinterpret_cast<const float*>(view.data + labels_bytes(batch_));
      loss += classifier_.train_step(images, labels, batch_);
      step += step_clock.seconds();
    }
    MicroResult result;
    result.seconds = clock.seconds();
    result.work = static_cast<double>(kLoaderBatchesPerOperation) * batch_;
    result.detail = {{"data_wait_seconds", wait},
                     {"step_seconds", step},
                     {"loss", loss / kLoaderBatchesPerOperation},
                     {"batches", kLoaderBatchesPerOperation}};
    return result;
  }

 private:
  // In a worker process: batch `index`'s labels and augmented images.
  void fill(std::uint64_t index, std::byte* out) const {
    auto* labels = reinterpret_cast<std::int32_t*>(out);
    auto* images = reinterpret_cast<float*>(out + labels_bytes(batch_));
    const std::int64_t image_floats = std::int64_t{shape_.channels} * augmentation_.edge * augmentation_.edge;
    std::mt19937_64 rng(seed_ ^ (0x9e3779b97f4a7c15ull * (index + 1)));
    std::vector<float> example(static_cast<std::size_t>(shape_.floats()));
    const auto first = index * static_cast<std::uint64_t>(batch_);
    for (std::int64_t k = 0; k < batch_; ++k) {
      const std::size_t position = (first + static_cast<std::uint64_t>(k)) % order_.size();
      labels[k] = static_cast<std::int32_t>(examples_->read(order_[position], example.data()));
      loader::augment_example(example.data(), shape_, augmentation_, rng, images + k * image_floats);
    }
  }

  // The next batch, or the loss of a worker explained: what a user of
  // DataLoader sees as "bus error", with the room /dev/shm had and the fix.
  loader::BatchView next_batch() {
    try {
      return pool_->next();
    } catch (const loader::WorkerLost& lost) {
      const SharedMemoryRoom room = dev_shm_room();
      const bool bus_error = WIFSIGNALED(lost.status) && WTERMSIG(lost.status) == SIGBUS;
      const bool too_small = room_before_.total && pool_->in_flight_bytes() + batch_bytes_ > *room_before_.total;
      if (!bus_error && !too_small) throw IoError(lost.what());
      throw IoError(fmt::format(
          "{}: the batches it writes to shared memory did not fit. /dev/shm holds {} here ({} free now) and this "
          "loader keeps up to {} batches of {} in flight ({}), as a DataLoader with {} workers and prefetch {} "
          "does. Give the container a larger /dev/shm with shm=SIZE (e.g. docker:shm=1g), or the host's with "
          "ipc=host; or ask for fewer workers= or prefetch=",
          lost.what(), bytes_words(room_before_.total), bytes_words(room.free),
          pool_->settings().workers * pool_->settings().prefetch, format_memory_bytes(static_cast<double>(batch_bytes_)),
          format_memory_bytes(static_cast<double>(pool_->in_flight_bytes())), pool_->settings().workers,
          pool_->settings().prefetch));
    } catch (const loader::BatchFailed& failed) {
      throw IoError(failed.what());
    }
  }

  std::string dataset_;
  loader::ImageShape shape_;
  loader::Augmentation augmentation_;
  int batch_;
  std::shared_ptr<ExampleReader> examples_;
  std::size_t batch_bytes_;
  loader::LinearClassifier classifier_;
  std::vector<std::size_t> order_;
  std::uint64_t seed_ = 0;
  SharedMemoryRoom room_before_;
  std::unique_ptr<loader::WorkerPool> pool_;
};

}  // namespace

DataNeed loader_data_need(const std::string& dataset) {
  const loader::ImageShape shape = shape_of(dataset);
  return {kLoaderWorkload, dataset, {shape.channels, shape.height, shape.width}, kClasses, 0};
}

std::uint64_t loader_batch_bytes(const std::string& dataset, std::int64_t batch, std::int64_t edge) {
  const loader::ImageShape shape = shape_of(dataset);
  return labels_bytes(batch) +
         static_cast<std::uint64_t>(batch) * static_cast<std::uint64_t>(shape.channels) *
             static_cast<std::uint64_t>(edge) * static_cast<std::uint64_t>(edge) * sizeof(float);
}

std::unique_ptr<MicroBenchmark> make_loader(const MicroParams& params) {
  return std::make_unique<LoaderBenchmark>(params);
}

}  // namespace dlcbench
