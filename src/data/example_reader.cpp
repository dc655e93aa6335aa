#include "data/example_reader.h"

#include <array>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/file_reader.h"
#include "data/cifar10.h"
#include "data/dataset.h"
#include "data/mnist.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

class MnistReader : public ExampleReader {
 public:
  explicit MnistReader(const fs::path& dir)
      : images_(dir / "train-images-idx3-ubyte"), labels_(dir / "train-labels-idx1-ubyte") {
    // The loader's checks once, so every later read is of a valid file.
    count_ = load_mnist(dir, "train").count;
  }
  std::size_t count() const override { return count_; }
  std::size_t example_size() const override { return 784; }
  std::int64_t read(std::size_t index, float* out) override {
    std::array<std::uint8_t, 784> pixels{};
    images_.read_at(16 + std::uint64_t{784} * index, pixels.data(), pixels.size());
    std::uint8_t label = 0;
    labels_.read_at(8 + index, &label, 1);
    constexpr float kMean = 0.1307f, kStd = 0.3081f;  // as load_mnist_training
    for (std::size_t i = 0; i < pixels.size(); ++i) out[i] = (static_cast<float>(pixels[i]) / 255.0f - kMean) / kStd;
    return label;
  }

 private:
  FileReader images_, labels_;
  std::size_t count_ = 0;
};

class Cifar10Reader : public ExampleReader {
 public:
  explicit Cifar10Reader(const fs::path& dir) {
    for (std::size_t i = 0; i < 5; ++i) {
      const auto path = dir / kCifar10Files[i];
      const auto records = read_cifar10_file(path).count;  // validates sizes and labels
      files_.push_back(std::make_unique<FileReader>(path));
      first_.push_back(count_);
      count_ += records;
    }
  }
  std::size_t count() const override { return count_; }
  std::size_t example_size() const override { return kCifar10ImageBytes; }
  std::int64_t read(std::size_t index, float* out) override {
    std::size_t file = first_.size() - 1;
    while (first_[file] > index) --file;
    std::array<std::uint8_t, kCifar10RecordBytes> record{};
    files_[file]->read_at(std::uint64_t{kCifar10RecordBytes} * (index - first_[file]), record.data(), record.size());
    const std::size_t plane = kCifar10Side * kCifar10Side;
    for (std::size_t c = 0; c < kCifar10Channels; ++c)
      for (std::size_t p = 0; p < plane; ++p)
        out[c * plane + p] =
            (static_cast<float>(record[1 + c * plane + p]) / 255.0f - kCifar10Mean[c]) / kCifar10Std[c];
    return record[0];
  }

 private:
  std::vector<std::unique_ptr<FileReader>> files_;
  std::vector<std::size_t> first_;  // index of each file's first example
  std::size_t count_ = 0;
};

}  // namespace

std::unique_ptr<ExampleReader> open_example_reader(const std::string& dataset, const fs::path& location) {
  if (dataset == "mnist") return std::make_unique<MnistReader>(dataset_folder(location, "mnist"));
  if (dataset == "cifar10") return std::make_unique<Cifar10Reader>(cifar10_folder(location));
  throw UsageError(fmt::format("--input disk reads examples from MNIST or CIFAR-10 files; data set {} has no "
                               "examples to read one by one",
                               dataset));
}

}  // namespace dlcbench
