// MNIST's IDX parser: any bytes give an array whose dimensions multiply to
// its number of values, or a DataError.
#include <cstdint>

#include "core/errors.h"
#include "data/mnist.h"
#include "fuzz_targets.h"

namespace dlcbench::fuzz {

void mnist_idx(Input input) {
  // Images are rank 3 and labels rank 1; one input is tried as both, so a
  // header mutated for one shape still meets the other's checks.
  for (const std::size_t rank : {std::size_t{1}, std::size_t{3}}) {
    try {
      const IdxArray a = parse_idx_ubyte(input, rank, "fuzz-idx");
      expect(a.dims.size() == rank, "an IDX array has the rank asked for");
      // The dimensions' true product, or "too many" if it passes 2^64.
      bool too_many = false;
      std::uint64_t elements = 1;
      for (const std::uint64_t d : a.dims) {
        if (d == 0) {  // a zero anywhere makes the product 0
          elements = 0;
          too_many = false;
          break;
        }
        if (elements > UINT64_MAX / d) too_many = true;
        elements *= d;
      }
      expect(!too_many && elements == a.values.size(), "an IDX array's dimensions multiply to its number of values");
      expect(4 + 4 * rank + a.values.size() == input.size(), "an IDX array holds every byte after the header");
    } catch (const DataError&) {
    }
  }
}

}  // namespace dlcbench::fuzz

DLCBENCH_FUZZ_ENTRY(dlcbench::fuzz::mnist_idx)
