// What every back end's training session does with its data before the
// first step: the checks (examples of the network's shape, a batch the data
// set can fill, a vocabulary the network covers), the choice of session for
// the data's kind, and, for engines that keep batches in host memory, the
// examples shuffled once with a seed of our own.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backends/backend.h"

namespace dlcbench {

// Throw UsageError naming the data set, the network and the fix.
void check_examples(const models::ModelSpec& model, const ClassificationData& data, int batch);
void check_text(const models::ModelSpec& model, const TokenStream& text);

// prepare()'s dispatch: a language model trains on text, a classifier on
// labelled examples; the other pairing is a UsageError.
std::unique_ptr<TrainingSession> session_for(
    const WorkloadInfo& workload, const TrainingData& data,
    const std::function<std::unique_ptr<TrainingSession>(const TokenStream&)>& language_model,
    const std::function<std::unique_ptr<TrainingSession>(const ClassificationData&)>& classifier);

// The same for a back end whose sessions are constructed as
// LanguageModel(extra..., model, text, spec) and Classifier(extra..., model,
// examples, spec).
template <class LanguageModel, class Classifier, class... Extra>
std::unique_ptr<TrainingSession> make_session(const WorkloadInfo& workload, const TrainingData& data,
                                              const CaseSpec& spec, const Extra&... extra) {
  return session_for(
      workload, data,
      [&](const TokenStream& text) { return std::make_unique<LanguageModel>(extra..., workload.model, text, spec); },
      [&](const ClassificationData& examples) {
        return std::make_unique<Classifier>(extra..., workload.model, examples, spec);
      });
}

// The examples in a seeded order (Fisher-Yates on std::mt19937_64, the same
// on every machine), so consecutive batches mix the classes; batch `index`
// wraps around the data set.
class ShuffledExamples {
 public:
  ShuffledExamples(const ClassificationData& data, int batch, std::uint64_t seed);
  const float* features(std::size_t index) const { return features_.data() + first(index) * example_size_; }
  const std::int64_t* labels(std::size_t index) const { return labels_.data() + first(index); }
  std::size_t example_size() const { return example_size_; }

 private:
  std::size_t first(std::size_t index) const { return (index % batches_) * batch_; }
  std::size_t example_size_, batch_, batches_;
  std::vector<float> features_;
  std::vector<std::int64_t> labels_;
};

}  // namespace dlcbench
