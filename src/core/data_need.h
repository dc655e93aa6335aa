// What a network needs of its training data, as the data loaders take it:
// the data set's name, and the shape synthetic data of the same kind has.
// A plain struct in the core so the loaders (data/) need not know the
// networks (workloads/), which describe themselves with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlcbench {

struct DataNeed {
  std::string workload;                     // for messages: "fcn5"
  std::string dataset;                      // "mnist", "cifar10", "ptb"
  std::vector<std::int64_t> example_shape;  // one example, e.g. {784} or {3, 32, 32}
  std::int64_t outputs = 0;                 // classes, or a language model's vocabulary
  std::int64_t sequence = 0;                // a language model's window in tokens; 0: a classifier
};

}  // namespace dlcbench
