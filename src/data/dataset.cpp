#include "data/dataset.h"

#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "data/mnist.h"

namespace dlcbench {

nlohmann::json describe(const ClassificationData& d) {
  return {{"name", d.name},
          {"synthetic", d.synthetic},
          {"source", d.source},
          {"examples", d.count},
          {"example_shape", d.example_shape},
          {"classes", d.num_classes}};
}

nlohmann::json describe(const TokenStream& t) {
  return {{"name", t.name},          {"synthetic", t.synthetic},  {"source", t.source},
          {"examples", t.tokens.size()}, {"vocabulary", t.vocabulary}};
}

nlohmann::json describe(const TrainingData& d) {
  return std::visit([](const auto& data) { return describe(data); }, d);
}

TokenStream make_synthetic_tokens(std::int64_t vocabulary, std::size_t count, std::uint64_t seed) {
  TokenStream t;
  t.name = "synthetic";
  t.synthetic = true;
  t.source = "random: word ids uniform over the vocabulary";
  t.vocabulary = vocabulary;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> word(0, vocabulary - 1);
  t.tokens.resize(count);
  for (auto& w : t.tokens) w = word(rng);
  return t;
}

std::filesystem::path dataset_folder(const std::filesystem::path& location, const std::string& name) {
  if (name == "mnist" && std::filesystem::exists(location / kMnistFiles[0])) return location;
  return location / name;
}

ClassificationData load_mnist_training(const std::filesystem::path& location) {
  const auto dir = dataset_folder(location, "mnist");
  MnistSplit split = load_mnist(dir, "train");
  ClassificationData d;
  d.name = "mnist";
  d.source = std::filesystem::absolute(dir).string();
  d.count = split.count;
  d.example_shape = {static_cast<std::int64_t>(split.rows * split.cols)};
  d.num_classes = 10;
  d.features.resize(split.images.size());
  constexpr float kMean = 0.1307f, kStd = 0.3081f;
  for (std::size_t i = 0; i < split.images.size(); ++i)
    d.features[i] = (static_cast<float>(split.images[i]) / 255.0f - kMean) / kStd;
  d.labels.assign(split.labels.begin(), split.labels.end());
  return d;
}

ClassificationData make_synthetic(std::vector<std::int64_t> example_shape, int num_classes,
                                  std::size_t count, std::uint64_t seed) {
  ClassificationData d;
  d.name = "synthetic";
  d.synthetic = true;
  d.source = "random: standard normal features, uniform labels";
  d.count = count;
  d.example_shape = std::move(example_shape);
  d.num_classes = num_classes;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> feature;
  std::uniform_int_distribution<std::int64_t> label(0, num_classes - 1);
  d.features.resize(count * d.example_size());
  for (auto& f : d.features) f = feature(rng);
  d.labels.resize(count);
  for (auto& l : d.labels) l = label(rng);
  return d;
}

std::filesystem::path default_data_root() {
  if (const char* p = std::getenv("DLCBENCH_DATA"); p && *p) return p;
  if (const char* p = std::getenv("XDG_CACHE_HOME"); p && *p)
    return std::filesystem::path(p) / "dlcbench";
  if (const char* p = std::getenv("HOME"); p && *p)
    return std::filesystem::path(p) / ".cache" / "dlcbench";
  return std::filesystem::current_path() / "dlcbench-data";
}

}  // namespace dlcbench
