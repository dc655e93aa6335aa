// MNIST in its original IDX format (LeCun et al.), as published:
// train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
// t10k-labels-idx1-ubyte. Every field is validated; errors name the file and
// the field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dlcbench {

struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> values;  // row-major, unsigned bytes
};

// Reads an IDX file of unsigned bytes (type code 0x08) with `expected_rank`
// dimensions.
IdxArray read_idx_ubyte(const std::filesystem::path& file, std::size_t expected_rank);

// The same from the file's bytes; `name` (the file) starts every error.
// The product of the dimensions always equals values.size().
IdxArray parse_idx_ubyte(std::span<const std::uint8_t> bytes, std::size_t expected_rank, const std::string& name);

struct MnistSplit {
  std::size_t count = 0, rows = 0, cols = 0;
  std::vector<std::uint8_t> images;  // count * rows * cols
  std::vector<std::uint8_t> labels;  // count, each 0..9
};

// split: "train" or "t10k". Checks that images and labels agree in count.
MnistSplit load_mnist(const std::filesystem::path& dir, std::string_view split);

// The four file names, for fetching and for error messages.
inline constexpr std::string_view kMnistFiles[] = {
    "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
    "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

}  // namespace dlcbench
