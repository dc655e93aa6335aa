#include "data/mnist.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

constexpr std::uint8_t kUnsignedByte = 0x08;
constexpr std::size_t kMaxRank = 8;
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 48;

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
         (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

}  // namespace

IdxArray parse_idx_ubyte(std::span<const std::uint8_t> bytes, std::size_t expected_rank, const std::string& name) {
  const std::uint64_t size = bytes.size();
  if (size < 4)
    throw DataError(fmt::format("{}: truncated: shorter than the 4-byte magic number", name));
  const std::uint8_t* magic = bytes.data();
  if (magic[0] != 0 || magic[1] != 0)
    throw DataError(fmt::format(
        "{}: bad magic number {:02x}{:02x}{:02x}{:02x}: an IDX file starts with two zero bytes "
        "(is it still gzip-compressed? then gunzip it)",
        name, magic[0], magic[1], magic[2], magic[3]));
  if (magic[2] != kUnsignedByte)
    throw DataError(fmt::format("{}: magic number type code is 0x{:02x}, expected 0x08 (unsigned byte)", name,
                                magic[2]));
  if (magic[3] != expected_rank || expected_rank > kMaxRank)
    throw DataError(fmt::format("{}: magic number says {} dimensions, expected {}", name, magic[3], expected_rank));

  IdxArray a;
  const std::uint64_t header = 4 + 4 * expected_rank;
  for (std::size_t d = 0; d < expected_rank; ++d) {
    if (size < 8 + 4 * d) throw DataError(fmt::format("{}: truncated in the size of dimension {}", name, d));
    a.dims.push_back(big_endian(bytes.data() + 4 + 4 * d));
  }
  // Dimensions that multiply past 2^64 would wrap round, perhaps to the
  // file's own size; no real file comes near kMaxElements.
  std::uint64_t elements = 1;
  for (const std::uint32_t dim : a.dims) {
    if (dim != 0 && elements > kMaxElements / dim)
      throw DataError(fmt::format("{}: the header's dimensions ({}) multiply to more than 2^48 bytes and the file "
                                  "has {}: the header is corrupt",
                                  name, fmt::join(a.dims, "x"), size));
    elements *= dim;
  }
  if (size != header + elements)
    throw DataError(fmt::format(
        "{}: file size is {} bytes but the header's dimensions ({}) need {} bytes: the file is {}", name, size,
        fmt::join(a.dims, "x"), header + elements,
        size < header + elements ? "truncated" : "longer than its header says"));
  a.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return a;
}

IdxArray read_idx_ubyte(const std::filesystem::path& file, std::size_t expected_rank) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot open the file", file.string()));
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw DataError(fmt::format("{}: cannot read its size: {}", file.string(), ec.message()));
  std::vector<std::uint8_t> bytes(size);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw DataError(fmt::format("{}: truncated while reading the data", file.string()));
  return parse_idx_ubyte(bytes, expected_rank, file.string());
}

MnistSplit load_mnist(const std::filesystem::path& dir, std::string_view split) {
  const auto images_file = dir / fmt::format("{}-images-idx3-ubyte", split);
  const auto labels_file = dir / fmt::format("{}-labels-idx1-ubyte", split);
  for (const auto& f : {images_file, labels_file})
    if (!std::filesystem::exists(f))
      throw DataError(fmt::format(
          "MNIST file {} is missing in {}: run `dlcbench data fetch mnist` to download it, or point "
          "--data at a folder holding the four IDX files",
          f.filename().string(), dir.string()));

  IdxArray images = read_idx_ubyte(images_file, 3);
  IdxArray labels = read_idx_ubyte(labels_file, 1);
  if (images.dims[1] != 28 || images.dims[2] != 28)
    throw DataError(fmt::format("{}: images are {}x{}, MNIST images are 28x28", images_file.string(),
                                images.dims[1], images.dims[2]));
  if (images.dims[0] != labels.dims[0])
    throw DataError(fmt::format("{} holds {} images but {} holds {} labels: dimension 0 must match",
                                images_file.string(), images.dims[0], labels_file.string(),
                                labels.dims[0]));
  for (std::size_t i = 0; i < labels.values.size(); ++i)
    if (labels.values[i] > 9)
      throw DataError(fmt::format("{}: label {} at index {} is not a digit 0..9",
                                  labels_file.string(), labels.values[i], i));
  MnistSplit s;
  s.count = images.dims[0];
  s.rows = images.dims[1];
  s.cols = images.dims[2];
  s.images = std::move(images.values);
  s.labels = std::move(labels.values);
  return s;
}

}  // namespace dlcbench
