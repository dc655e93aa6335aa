#include "data/mnist.h"

#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

constexpr std::uint8_t kUnsignedByte = 0x08;
constexpr std::size_t kMaxRank = 8;

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
         (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

}  // namespace

IdxArray read_idx_ubyte(const std::filesystem::path& file, std::size_t expected_rank) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot open the file", file.string()));
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw DataError(fmt::format("{}: cannot read its size: {}", file.string(), ec.message()));

  unsigned char magic[4];
  if (!in.read(reinterpret_cast<char*>(magic), 4))
    throw DataError(fmt::format("{}: truncated: shorter than the 4-byte magic number", file.string()));
  if (magic[0] != 0 || magic[1] != 0)
    throw DataError(fmt::format(
        "{}: bad magic number {:02x}{:02x}{:02x}{:02x}: an IDX file starts with two zero bytes "
        "(is it still gzip-compressed? then gunzip it)",
        file.string(), magic[0], magic[1], magic[2], magic[3]));
  if (magic[2] != kUnsignedByte)
    throw DataError(fmt::format("{}: magic number type code is 0x{:02x}, expected 0x08 (unsigned byte)",
                                file.string(), magic[2]));
  if (magic[3] != expected_rank)
    throw DataError(fmt::format("{}: magic number says {} dimensions, expected {}", file.string(),
                                magic[3], expected_rank));

  IdxArray a;
  std::uint64_t elements = 1;
  for (std::size_t d = 0; d < expected_rank && d < kMaxRank; ++d) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4))
      throw DataError(fmt::format("{}: truncated in the size of dimension {}", file.string(), d));
    a.dims.push_back(big_endian(b));
    elements *= a.dims.back();
  }
  const std::uint64_t header = 4 + 4 * expected_rank;
  if (size != header + elements)
    throw DataError(fmt::format(
        "{}: file size is {} bytes but the header's dimensions ({}) need {} bytes: the file is {}",
        file.string(), size, fmt::join(a.dims, "x"), header + elements,
        size < header + elements ? "truncated" : "longer than its header says"));
  a.values.resize(elements);
  if (!in.read(reinterpret_cast<char*>(a.values.data()), static_cast<std::streamsize>(elements)))
    throw DataError(fmt::format("{}: truncated while reading the data", file.string()));
  return a;
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
