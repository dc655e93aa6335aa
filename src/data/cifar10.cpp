#include "data/cifar10.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

constexpr std::uint8_t kMaxLabel = 9;
constexpr std::size_t kTrainingBatches = 5;

}  // namespace

Cifar10Split parse_cifar10_records(std::span<const std::uint8_t> bytes, const std::string& name) {
  const std::size_t size = bytes.size();
  if (size == 0)
    throw DataError(fmt::format(
        "{}: the file is empty; a CIFAR-10 binary batch is a sequence of {}-byte records (1 label "
        "byte, then {} pixel bytes): fetch it again with `dlcbench data fetch cifar10`",
        name, kCifar10RecordBytes, kCifar10ImageBytes));
  if (size % kCifar10RecordBytes != 0)
    throw DataError(fmt::format(
        "{}: file size is {} bytes, not a multiple of the {}-byte record (1 label byte + {} pixel "
        "bytes): {} whole records and {} bytes left over; the file is truncated, or not from the "
        "binary version of CIFAR-10 (the Python and MATLAB versions are other formats)",
        name, size, kCifar10RecordBytes, kCifar10ImageBytes, size / kCifar10RecordBytes,
        size % kCifar10RecordBytes));

  Cifar10Split s;
  s.count = size / kCifar10RecordBytes;
  s.images.resize(s.count * kCifar10ImageBytes);
  s.labels.resize(s.count);
  for (std::size_t i = 0; i < s.count; ++i) {
    const std::uint8_t* record = bytes.data() + i * kCifar10RecordBytes;
    s.labels[i] = record[0];
    std::copy(record + 1, record + kCifar10RecordBytes, s.images.begin() + static_cast<std::ptrdiff_t>(i * kCifar10ImageBytes));
    if (s.labels[i] > kMaxLabel)
      throw DataError(fmt::format(
          "{}: record {} (byte offset {}) has label {}, CIFAR-10 labels are 0..9: the file is "
          "corrupt, or not CIFAR-10 (CIFAR-100's binary records have two label bytes)",
          name, i, i * kCifar10RecordBytes, s.labels[i]));
  }
  return s;
}

Cifar10Split read_cifar10_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot open the file", file.string()));
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) throw DataError(fmt::format("{}: cannot read its size: {}", file.string(), ec.message()));
  std::vector<std::uint8_t> bytes(size);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw DataError(fmt::format("{}: truncated while reading it (the file shrank while it was read?)", file.string()));
  return parse_cifar10_records(bytes, file.string());
}

Cifar10Split load_cifar10(const fs::path& dir, std::string_view split) {
  std::vector<std::string_view> names;
  if (split == "train")
    names.assign(std::begin(kCifar10Files), std::begin(kCifar10Files) + kTrainingBatches);
  else if (split == "test")
    names.push_back(kCifar10Files[kTrainingBatches]);
  else
    throw UsageError(fmt::format("unknown CIFAR-10 split '{}': the splits are train and test", split));

  std::vector<std::string_view> missing;
  for (const auto name : names)
    if (!fs::exists(dir / name)) missing.push_back(name);
  if (!missing.empty())
    throw DataError(fmt::format(
        "CIFAR-10 file{} {} {} missing in {}: run `dlcbench data fetch cifar10` to download the set, "
        "or point --data at a folder holding its six binary batch files ({})",
        missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), missing.size() == 1 ? "is" : "are",
        dir.string(), fmt::join(kCifar10Files, ", ")));

  Cifar10Split all;
  for (const auto name : names) {
    Cifar10Split part = read_cifar10_file(dir / name);
    if (all.count == 0) {
      all = std::move(part);
      continue;
    }
    all.count += part.count;
    all.images.insert(all.images.end(), part.images.begin(), part.images.end());
    all.labels.insert(all.labels.end(), part.labels.begin(), part.labels.end());
  }
  return all;
}

fs::path cifar10_folder(const fs::path& location) {
  if (fs::exists(location / kCifar10Files[0])) return location;
  return location / "cifar10";
}

ClassificationData load_cifar10_training(const fs::path& location) {
  const auto dir = cifar10_folder(location);
  Cifar10Split split = load_cifar10(dir, "train");
  ClassificationData d;
  d.name = "cifar10";
  d.source = fs::absolute(dir).string();
  d.count = split.count;
  d.example_shape = {static_cast<std::int64_t>(kCifar10Channels), static_cast<std::int64_t>(kCifar10Side),
                     static_cast<std::int64_t>(kCifar10Side)};
  d.num_classes = 10;

  // One table per channel: the normalised value of each of the 256 bytes.
  std::array<std::array<float, 256>, kCifar10Channels> table{};
  for (std::size_t c = 0; c < kCifar10Channels; ++c)
    for (std::size_t v = 0; v < 256; ++v)
      table[c][v] = (static_cast<float>(v) / 255.0f - kCifar10Mean[c]) / kCifar10Std[c];

  constexpr std::size_t kPlane = kCifar10Side * kCifar10Side;
  d.features.resize(split.images.size());
  for (std::size_t i = 0; i < split.images.size(); ++i)
    d.features[i] = table[(i / kPlane) % kCifar10Channels][split.images[i]];
  d.labels.assign(split.labels.begin(), split.labels.end());
  return d;
}

}  // namespace dlcbench
