#include "backends/session_data.h"

#include <random>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {

// Here rather than in backend.cpp, so the CUDA plugin, which links this file
// but not the back-end registry, has TrainingSession's vtable.
void TrainingSession::load_examples(const float*, const std::int64_t*) {
  throw UsageError("this workload cannot take batches read from disk: use --input memory");
}

void TrainingSession::load_tokens(std::size_t, const std::int64_t*, const std::int64_t*) {
  throw UsageError("this workload does not train on text read from disk: use --input memory");
}

void check_examples(const models::ModelSpec& model, const ClassificationData& data, int batch) {
  if (data.example_shape != model.input_shape())
    throw UsageError(fmt::format("{} expects examples of shape {}, data set {} has {}", model.name,
                                 fmt::join(model.input_shape(), "x"), data.name, fmt::join(data.example_shape, "x")));
  if (data.count < static_cast<std::size_t>(batch))
    throw UsageError(fmt::format("--batch {} is larger than data set {}, which has {} examples", batch, data.name,
                                 data.count));
}

void check_text(const models::ModelSpec& model, const TokenStream& text) {
  const auto& lstm = std::get<models::LstmSpec>(model.architecture);
  if (text.vocabulary > lstm.vocabulary)
    throw UsageError(fmt::format("data set {} has a vocabulary of {} words, more than {}'s {}", text.name,
                                 text.vocabulary, model.name, lstm.vocabulary));
}

std::unique_ptr<TrainingSession> session_for(
    const WorkloadInfo& workload, const TrainingData& data,
    const std::function<std::unique_ptr<TrainingSession>(const TokenStream&)>& language_model,
    const std::function<std::unique_ptr<TrainingSession>(const ClassificationData&)>& classifier) {
  if (std::holds_alternative<models::LstmSpec>(workload.model.architecture)) {
    const auto* text = std::get_if<TokenStream>(&data);
    if (!text) throw UsageError(fmt::format("{} trains on text, not on labelled examples", workload.name));
    check_text(workload.model, *text);
    return language_model(*text);
  }
  const auto* examples = std::get_if<ClassificationData>(&data);
  if (!examples) throw UsageError(fmt::format("{} trains on labelled examples, not on text", workload.name));
  return classifier(*examples);
}

ShuffledExamples::ShuffledExamples(const ClassificationData& data, int batch, std::uint64_t seed)
    : example_size_(data.example_size()),
      batch_(static_cast<std::size_t>(batch)),
      batches_(data.count / static_cast<std::size_t>(batch)) {
  std::vector<std::size_t> order(data.count);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  features_.resize(data.count * example_size_);
  labels_.resize(data.count);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const float* from = data.features.data() + order[i] * example_size_;
    std::copy(from, from + example_size_, features_.data() + i * example_size_);
    labels_[i] = data.labels[order[i]];
  }
}

}  // namespace dlcbench
