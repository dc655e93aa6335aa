// CIFAR-10 in its original binary version (Krizhevsky, 2009), as published
// in cifar-10-binary.tar.gz: data_batch_1.bin .. data_batch_5.bin (the
// training set, 10000 images each) and test_batch.bin. Each file is a
// sequence of 3073-byte records: one label byte (0..9), then the 32x32
// image as 1024 red, 1024 green and 1024 blue bytes, each plane row-major.
// Every record is validated; errors name the file and the field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset.h"

namespace dlcbench {

inline constexpr std::size_t kCifar10Side = 32;
inline constexpr std::size_t kCifar10Channels = 3;
inline constexpr std::size_t kCifar10ImageBytes = kCifar10Channels * kCifar10Side * kCifar10Side;  // 3072
inline constexpr std::size_t kCifar10RecordBytes = 1 + kCifar10ImageBytes;                         // 3073

// The per-channel (red, green, blue) mean and standard deviation of the
// 50000 training images, pixels scaled to [0, 1], over all pixels of the
// training set: the widely used CIFAR-10 normalisation (e.g. in the PyTorch
// CIFAR-10 examples). Recomputed from data_batch_1..5.bin, they agree to the
// four digits given. (The std 0.2023/0.1994/0.2010 that also circulates is a
// mean of per-image deviations, not the set's.)
inline constexpr float kCifar10Mean[kCifar10Channels] = {0.4914f, 0.4822f, 0.4465f};
inline constexpr float kCifar10Std[kCifar10Channels] = {0.2470f, 0.2435f, 0.2616f};

// The six file names, for fetching and for error messages: the five
// training batches in order, then the test batch.
inline constexpr std::string_view kCifar10Files[] = {
    "data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
    "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"};

struct Cifar10Split {
  std::size_t count = 0;
  std::vector<std::uint8_t> images;  // count * 3072, each image CHW: red plane, green, blue
  std::vector<std::uint8_t> labels;  // count, each 0..9
};

// Reads one binary batch file. Checks that it is readable, not empty, a
// whole number of 3073-byte records, and that every label is 0..9.
Cifar10Split read_cifar10_file(const std::filesystem::path& file);

// The same checks on a batch file's bytes; `name` (the file) starts every
// error.
Cifar10Split parse_cifar10_records(std::span<const std::uint8_t> bytes, const std::string& name);

// split: "train" (data_batch_1..5.bin, concatenated in that order) or "test"
// (test_batch.bin). A missing file is reported with the folder and the
// command that fetches the set.
Cifar10Split load_cifar10(const std::filesystem::path& dir, std::string_view split);

// The CIFAR-10 folder under a data location given by the user: the location
// itself if it holds data_batch_1.bin, else <location>/cifar10.
std::filesystem::path cifar10_folder(const std::filesystem::path& location);

// The training images (50000 in the real set) as floats of shape {3, 32, 32} (CHW), each
// channel normalised as (x / 255 - kCifar10Mean[c]) / kCifar10Std[c].
ClassificationData load_cifar10_training(const std::filesystem::path& location);

}  // namespace dlcbench
