// Word-level language-model text in the Penn Treebank format Mikolov
// distributes (simple-examples/data): ptb.train.txt, ptb.valid.txt and
// ptb.test.txt, one sentence a line, words separated by white space, rare
// words already replaced by `<unk>`, numbers by `N`, a 10,000-word vocabulary.
//
// Reading follows the PyTorch word_language_model example: every line's words
// are followed by `<eos>` (a blank line gives a lone `<eos>`), and the
// vocabulary comes from the training file alone. Counted this way the real
// PTB has exactly 10,000 words: 9,999 in the text (`<unk>` among them) plus
// `<eos>`.
//
// A corpus built from the Brown corpus in this format (see brown_corpus.h)
// carries a file DATASET whose first line is `brown-ptb-format`; it is loaded
// under that name and never called PTB.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

inline constexpr std::string_view kEndOfSentence = "<eos>";
inline constexpr std::string_view kUnknownWord = "<unk>";
inline constexpr std::size_t kPtbVocabularyLimit = 10000;
inline constexpr std::string_view kPtbFiles[] = {"ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"};
// The file that labels a corpus, and the label of the one built from Brown.
inline constexpr std::string_view kDatasetLabelFile = "DATASET";
inline constexpr std::string_view kBrownPtbFormatName = "brown-ptb-format";

// Words and their ids. Ids are assigned by descending frequency in the
// training text (`<eos>` counted once per line), ties broken by the words'
// byte order, so the most frequent word has id 0 and the same file always
// gives the same ids.
class Vocabulary {
 public:
  Vocabulary() = default;

  // Counts the words of a training file. More distinct words than `limit`
  // (with `<eos>`) is a DataError naming the file, the count and the limit.
  static Vocabulary from_training_file(const std::filesystem::path& file,
                                       std::size_t limit = kPtbVocabularyLimit);

  // The same from word counts already made; `source` names them in errors.
  static Vocabulary from_counts(const std::unordered_map<std::string, std::size_t>& counts,
                                std::size_t limit, const std::string& source);

  // Throws std::out_of_range for a word not in the vocabulary; see find().
  std::int64_t id(std::string_view word) const;
  std::optional<std::int64_t> find(std::string_view word) const;
  bool contains(std::string_view word) const { return find(word).has_value(); }
  // Throws std::out_of_range for an id outside [0, size()).
  const std::string& word(std::int64_t id) const;
  // How often the word occurred in the training text.
  std::size_t count(std::int64_t id) const;
  std::size_t size() const { return words_.size(); }
  const std::vector<std::string>& words() const { return words_; }

 private:
  // Lets find() look up a string_view without copying it into a string.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> words_;
  std::vector<std::size_t> counts_;
  std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> ids_;
};

// The ids of a file's words, `<eos>` after each line. A word the vocabulary
// lacks becomes `<unk>` if the vocabulary has `<unk>`; otherwise it is a
// DataError naming the file, the line and the word.
std::vector<std::int64_t> tokenize_file(const std::filesystem::path& file, const Vocabulary& vocab);

struct TokenCorpus {
  std::string name;    // "ptb", or "brown-ptb-format" for the corpus built from Brown
  std::string source;  // the folder it was read from
  Vocabulary vocab;
  std::vector<std::int64_t> train, valid, test;
};

// Reads the three files from `location` if it holds ptb.train.txt, else from
// `location`/ptb. The name is "brown-ptb-format" if the folder's DATASET file
// says so on its first line, "ptb" otherwise.
TokenCorpus load_ptb_format(const std::filesystem::path& location,
                            std::size_t vocabulary_limit = kPtbVocabularyLimit);

// The corpus from the contents of the three files in `dir` (named in
// errors), with the checks load_ptb_format() makes; name and source are
// left for the caller. A text without a word is a DataError.
TokenCorpus parse_ptb_texts(const std::string& train_text, const std::string& valid_text,
                            const std::string& test_text, const std::filesystem::path& dir,
                            std::size_t vocabulary_limit = kPtbVocabularyLimit);

// A token stream laid out for truncated back-propagation through time, as
// the PyTorch word_language_model example's batchify() does: the stream is
// cut into `batch` contiguous chunks of `steps` tokens (the tail that does not
// divide evenly is dropped) and chunk b becomes column b.
struct TokenBatches {
  std::vector<std::int64_t> data;  // [steps, batch] row-major: data[t * batch + b]
  std::size_t steps = 0, batch = 0;
};

// UsageError naming --batch when batch is 0 or leaves a column fewer than the
// two tokens that one input and its target need.
TokenBatches batchify(const std::vector<std::int64_t>& ids, std::size_t batch);

// One training step's tokens: input rows t..t+seq_len-1 of the batched
// stream and target rows t+1..t+seq_len, both [seq_len, batch] row-major.
struct TokenWindow {
  std::vector<std::int64_t> input, target;
  std::size_t seq_len = 0, batch = 0;
};

// How many whole windows of `seq_len` steps one pass over the stream holds:
// (steps - 1) / seq_len. UsageError naming the sequence length and --batch when seq_len is 0 or longer
// than steps - 1.
std::size_t windows_per_epoch(const TokenBatches& batches, std::size_t seq_len);

// Window `index` starts at row (index mod windows_per_epoch) * seq_len, so
// indices past the end of the stream wrap around to its start; every window
// has exactly seq_len rows (the part of the stream after the last whole
// window is not used). Same errors as windows_per_epoch().
TokenWindow token_window(const TokenBatches& batches, std::size_t seq_len, std::size_t index);

// Describes the corpus for the fingerprint line: name, source, vocabulary
// size and token counts per split.
nlohmann::json describe(const TokenCorpus& corpus);

}  // namespace dlcbench
