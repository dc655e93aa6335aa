// One labelled example at a time from a data set's files: the interface the
// data readers (data/example_reader.h opens them) give the code that only
// consumes examples, a worker's disk batches or the loader's worker
// processes, which need not know the file formats.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlcbench {

class ExampleReader {
 public:
  virtual ~ExampleReader() = default;
  virtual std::size_t count() const = 0;
  virtual std::size_t example_size() const = 0;  // floats per example
  // Reads training example `index`, normalised exactly as the in-memory
  // loader does, into out[0 .. example_size()), and returns its label.
  // Throws DataError naming the file if the read fails or comes up short.
  // Positioned reads only, so processes forked from the opener share it.
  virtual std::int64_t read(std::size_t index, float* out) = 0;
};

}  // namespace dlcbench
