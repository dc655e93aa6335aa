// Labelled examples read straight from a data set's original files, one
// pread(2) per example, for `--input disk`: every training step then pays
// the file system's cost (a container's overlay or bind mount included),
// the way a data loader that does not cache would.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace dlcbench {

class ExampleReader {
 public:
  virtual ~ExampleReader() = default;
  virtual std::size_t count() const = 0;
  virtual std::size_t example_size() const = 0;  // floats per example
  // Reads training example `index`, normalised exactly as the in-memory
  // loader does, into out[0 .. example_size()), and returns its label.
  // Throws DataError naming the file if the read fails or comes up short.
  virtual std::int64_t read(std::size_t index, float* out) = 0;
};

// dataset: "mnist" or "cifar10"; location as for the in-memory loaders.
// Throws UsageError for a data set that cannot be read per example.
std::unique_ptr<ExampleReader> open_example_reader(const std::string& dataset,
                                                   const std::filesystem::path& location);

}  // namespace dlcbench
