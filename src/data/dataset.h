// A training set held in memory, in the form every back end consumes:
// float features (already normalised) and integer class labels.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dlcbench {

struct ClassificationData {
  std::string name;      // "mnist", or "synthetic" for random data
  bool synthetic = false;
  std::string source;    // folder it was read from, or how it was generated
  std::size_t count = 0;
  std::vector<std::int64_t> example_shape;  // e.g. {784}
  int num_classes = 0;
  std::vector<float> features;  // count * prod(example_shape)
  std::vector<std::int64_t> labels;

  std::size_t example_size() const {
    std::size_t size = 1;
    for (const auto extent : example_shape) size *= static_cast<std::size_t>(extent);
    return size;
  }
};

// A language-model training text as one stream of word ids (sentences
// joined, each ended by <eos>).
struct TokenStream {
  std::string name;  // "ptb", "brown-ptb-format", or "synthetic"
  bool synthetic = false;
  std::string source;
  std::int64_t vocabulary = 0;
  std::vector<std::int64_t> tokens;
};

using TrainingData = std::variant<ClassificationData, TokenStream>;

// Describes the data for the fingerprint line, so every result says what it
// trained on.
nlohmann::json describe(const ClassificationData& d);
nlohmann::json describe(const TokenStream& t);
nlohmann::json describe(const TrainingData& d);

// The folder of one data set under a data location given by the user: the
// folder itself if it holds the data set's files, else <location>/<name>.
std::filesystem::path dataset_folder(const std::filesystem::path& location, const std::string& name);

// MNIST training images flattened to 784 floats, normalised with the usual
// MNIST mean 0.1307 and standard deviation 0.3081.
ClassificationData load_mnist_training(const std::filesystem::path& location);

// Random data of the given shape: standard normal features, uniform labels.
ClassificationData make_synthetic(std::vector<std::int64_t> example_shape, int num_classes,
                                  std::size_t count, std::uint64_t seed);

// Random word ids, uniform over the vocabulary.
TokenStream make_synthetic_tokens(std::int64_t vocabulary, std::size_t count, std::uint64_t seed);

// Where `dlcbench data fetch` puts data sets and where --data points by
// default: $DLCBENCH_DATA, else $XDG_CACHE_HOME/dlcbench, else ~/.cache/dlcbench.
std::filesystem::path default_data_root();

}  // namespace dlcbench
