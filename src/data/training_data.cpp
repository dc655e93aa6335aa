#include "data/training_data.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/case_spec.h"
#include "core/errors.h"
#include "core/sha.h"
#include "data/cifar10.h"
#include "data/mnist.h"
#include "data/ptb.h"

namespace dlcbench {
namespace {

TokenStream from_corpus(TokenCorpus corpus) {
  TokenStream t;
  t.name = corpus.name;
  t.source = corpus.source;
  t.vocabulary = static_cast<std::int64_t>(corpus.vocab.size());
  t.tokens = std::move(corpus.train);
  return t;
}

void require_known(const DataNeed& need) {
  if (need.dataset != "mnist" && need.dataset != "cifar10" && need.dataset != "ptb")
    throw UsageError(fmt::format("workload {} needs data set {}, which has no loader", need.workload, need.dataset));
}

}  // namespace

TrainingData load_training_data(const DataNeed& need, const std::string& location, int batch,
                                std::uint64_t seed) {
  require_known(need);
  if (location == kSyntheticData) {
    if (need.sequence > 0) {
      // About as many words as PTB's training text, and always many windows.
      const auto words = std::max<std::size_t>(
          929589, 8 * static_cast<std::size_t>(batch) * static_cast<std::size_t>(need.sequence + 1));
      return make_synthetic_tokens(need.outputs, words, seed);
    }
    const std::size_t count = std::max<std::size_t>(8192, 4 * static_cast<std::size_t>(batch));
    return make_synthetic(need.example_shape, static_cast<int>(need.outputs), count, seed);
  }
  if (need.dataset == "mnist") return load_mnist_training(location);
  if (need.dataset == "cifar10") return load_cifar10_training(location);
  return from_corpus(load_ptb_format(location));
}

std::filesystem::path training_data_folder(const DataNeed& need, const std::string& location) {
  if (need.dataset == "mnist") return dataset_folder(location, "mnist");
  if (need.dataset == "cifar10") return cifar10_folder(location);
  const std::filesystem::path root = location;
  return std::filesystem::exists(root / kPtbFiles[0]) ? root : root / "ptb";
}

std::string data_files_digest(const std::string& dataset, const std::filesystem::path& folder) {
  std::vector<std::string_view> files;
  if (dataset == "mnist") files.assign(std::begin(kMnistFiles), std::end(kMnistFiles));
  if (dataset == "cifar10") files.assign(std::begin(kCifar10Files), std::end(kCifar10Files));
  if (dataset == "ptb") files.assign(std::begin(kPtbFiles), std::end(kPtbFiles));
  std::string listing;
  for (const auto name : files)
    if (std::filesystem::exists(folder / name))
      listing += fmt::format("{}  {}\n", file_digest(folder / name, "sha256"), name);
  return listing.empty() ? "" : string_digest(listing, "sha256");
}

void check_training_data(const DataNeed& need, const std::string& location) {
  require_known(need);
  if (location == kSyntheticData) return;
  if (!std::filesystem::is_directory(location))
    throw DataError(fmt::format("data folder {} does not exist: run `dlcbench data fetch {}` (it downloads to {} "
                                "by default), point --data at the folder, or pass --data synthetic",
                                location, need.dataset, default_data_root().string()));
  if (need.dataset == "mnist") load_mnist(dataset_folder(location, "mnist"), "train");
  if (need.dataset == "cifar10") load_cifar10_training(location);
  if (need.dataset == "ptb") load_ptb_format(location);
}

}  // namespace dlcbench
