// CIFAR-10's binary batch parser: any bytes give whole 3073-byte records with
// labels 0..9, or a DataError.
#include "core/errors.h"
#include "data/cifar10.h"
#include "fuzz_targets.h"

namespace dlcbench::fuzz {

void cifar10(Input input) {
  try {
    const Cifar10Split s = parse_cifar10_records(input, "fuzz-batch.bin");
    expect(s.count > 0, "a parsed batch holds at least one record");
    expect(s.count * kCifar10RecordBytes == input.size(), "a batch is a whole number of records");
    expect(s.images.size() == s.count * kCifar10ImageBytes, "every record has its 3072 pixels");
    expect(s.labels.size() == s.count, "every record has its label");
    for (std::size_t i = 0; i < s.count; ++i) {
      expect(s.labels[i] <= 9, "labels are 0..9");
      expect(s.labels[i] == input[i * kCifar10RecordBytes], "a label is its record's first byte");
    }
  } catch (const DataError&) {
  }
}

}  // namespace dlcbench::fuzz

DLCBENCH_FUZZ_ENTRY(dlcbench::fuzz::cifar10)
