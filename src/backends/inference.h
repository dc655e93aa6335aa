// One network of src/workloads/models answering one example at a time, for
// the serving workload's server: batch 1, no gradient, weights as
// initialised (the time of a forward pass does not depend on them).
#pragma once

#include <cstddef>
#include <string>

#include "workloads/models/model_spec.h"
#include "workloads/serve/server.h"

namespace dlcbench {

struct InferenceModel {
  serve::Inference infer;  // callable from several threads at once
  std::size_t input_floats = 0;  // one example; the LSTM's tokens as floats in [0, 1)
  std::string library;           // e.g. "LibTorch 1.13.1"
};

// Throws UsageError where the back end cannot serve (only torch serves).
InferenceModel make_inference_model(const std::string& backend, const models::ModelSpec& spec);

}  // namespace dlcbench
