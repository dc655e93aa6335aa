// Helpers for tests that write small files in the real formats.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/errors.h"

namespace dlcbench::testing {

// A fresh folder under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dlcbench-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The message of the `Error` that f throws, or "(no error)".
template <class Error = DataError>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Writes a text file, creating its folder.
inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

inline void write_bytes(const std::filesystem::path& file, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// An IDX file of unsigned bytes, as LeCun's format defines it.
inline std::vector<std::uint8_t> idx_bytes(const std::vector<std::uint32_t>& dims,
                                           const std::vector<std::uint8_t>& values) {
  std::vector<std::uint8_t> out = {0, 0, 0x08, static_cast<std::uint8_t>(dims.size())};
  for (auto d : dims) put_be32(out, d);
  out.insert(out.end(), values.begin(), values.end());
  return out;
}

// A complete MNIST-format split of `count` 28x28 images whose pixels encode
// their index, with labels index % 10.
inline void write_mnist_split(const std::filesystem::path& dir, const std::string& split, std::uint32_t count) {
  std::filesystem::create_directories(dir);
  std::vector<std::uint8_t> pixels(count * 28 * 28), labels(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    for (std::uint32_t p = 0; p < 28 * 28; ++p) pixels[i * 784 + p] = static_cast<std::uint8_t>((i * 7 + p) % 256);
    labels[i] = static_cast<std::uint8_t>(i % 10);
  }
  write_bytes(dir / (split + "-images-idx3-ubyte"), idx_bytes({count, 28, 28}, pixels));
  write_bytes(dir / (split + "-labels-idx1-ubyte"), idx_bytes({count}, labels));
}

}  // namespace dlcbench::testing
