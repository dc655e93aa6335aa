#include "data/ptb.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// A text of white space alone has no line to learn from: DataError.
void require_words(const std::string& text, const fs::path& file) {
  if (std::all_of(text.begin(), text.end(), is_space))
    throw DataError(fmt::format("{}: the file is empty: it holds no words ({} bytes of white space)",
                                file.string(), text.size()));
}

// The whole file as text. Missing, a directory, unreadable or holding no word
// at all: DataError naming the file.
std::string read_text_file(const fs::path& file) {
  std::error_code ec;
  const auto st = fs::status(file, ec);
  if (!fs::exists(st))
    throw DataError(fmt::format("{}: the file does not exist", file.string()));
  if (fs::is_directory(st))
    throw DataError(fmt::format("{}: cannot read it: it is a directory, not a text file", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw DataError(fmt::format("{}: cannot open the file: {}", file.string(), std::strerror(errno)));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad())
    throw DataError(fmt::format("{}: reading the file failed: {}", file.string(), std::strerror(errno)));
  require_words(text, file);
  return text;
}

// Calls f(line_number, words) for every line (1-based; a final newline does
// not start another line), words split at white space.
template <class F>
void for_each_line(const std::string& text, F&& f) {
  std::vector<std::string_view> words;
  std::size_t line_number = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    words.clear();
    std::size_t i = pos;
    while (i < end) {
      while (i < end && is_space(text[i])) ++i;
      const std::size_t start = i;
      while (i < end && !is_space(text[i])) ++i;
      if (i > start) words.emplace_back(text.data() + start, i - start);
    }
    f(line_number, words);
    pos = end + 1;
  }
}

std::unordered_map<std::string, std::size_t> count_words(const std::string& text) {
  std::unordered_map<std::string, std::size_t> counts;
  for_each_line(text, [&](std::size_t, const std::vector<std::string_view>& words) {
    for (auto w : words) ++counts[std::string(w)];
    ++counts[std::string(kEndOfSentence)];
  });
  return counts;
}

std::vector<std::int64_t> tokenize_text(const std::string& text, const fs::path& file, const Vocabulary& vocab) {
  const std::optional<std::int64_t> unk = vocab.find(kUnknownWord);
  const std::int64_t eos = vocab.id(kEndOfSentence);
  std::vector<std::int64_t> ids;
  ids.reserve(text.size() / 5);
  for_each_line(text, [&](std::size_t line, const std::vector<std::string_view>& words) {
    for (auto w : words) {
      if (auto id = vocab.find(w)) {
        ids.push_back(*id);
      } else if (unk) {
        ids.push_back(*unk);
      } else {
        throw DataError(fmt::format(
            "{}:{}: the word '{}' is not in the training file's vocabulary, and that vocabulary has no "
            "{} to stand for unknown words: rebuild the corpus so that rare words are {} in every split",
            file.string(), line, w, kUnknownWord, kUnknownWord));
      }
    }
    ids.push_back(eos);
  });
  return ids;
}

std::string dataset_label(const fs::path& dir) {
  const fs::path file = dir / kDatasetLabelFile;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return "";
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto first = std::find_if_not(line.begin(), line.end(), is_space);
  const auto last = std::find_if_not(line.rbegin(), line.rend(), is_space).base();
  return first < last ? std::string(first, last) : std::string();
}

}  // namespace

Vocabulary Vocabulary::from_training_file(const fs::path& file, std::size_t limit) {
  return from_counts(count_words(read_text_file(file)), limit, file.string());
}

Vocabulary Vocabulary::from_counts(const std::unordered_map<std::string, std::size_t>& counts,
                                   std::size_t limit, const std::string& source) {
  if (counts.size() > limit)
    throw DataError(fmt::format(
        "{}: holds {} distinct words counting {}, more than the vocabulary limit of {}: PTB-format "
        "text has its rare words already replaced by {} (the real PTB training file has exactly "
        "10000 counting {}); check that this is PTB-format text",
        source, counts.size(), kEndOfSentence, limit, kUnknownWord, kEndOfSentence));
  std::vector<std::pair<std::string, std::size_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  Vocabulary v;
  v.words_.reserve(sorted.size());
  v.counts_.reserve(sorted.size());
  v.ids_.reserve(sorted.size());
  for (auto& [word, count] : sorted) {
    v.ids_.emplace(word, static_cast<std::int64_t>(v.words_.size()));
    v.words_.push_back(word);
    v.counts_.push_back(count);
  }
  return v;
}

std::optional<std::int64_t> Vocabulary::find(std::string_view word) const {
  auto it = ids_.find(word);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::int64_t Vocabulary::id(std::string_view word) const {
  if (auto found = find(word)) return *found;
  throw std::out_of_range(fmt::format("the word '{}' is not in the vocabulary", word));
}

const std::string& Vocabulary::word(std::int64_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= words_.size())
    throw std::out_of_range(fmt::format("word id {} is outside the vocabulary's 0..{}", id, words_.size()));
  return words_[static_cast<std::size_t>(id)];
}

std::size_t Vocabulary::count(std::int64_t id) const {
  word(id);  // range check
  return counts_[static_cast<std::size_t>(id)];
}

std::vector<std::int64_t> tokenize_file(const fs::path& file, const Vocabulary& vocab) {
  return tokenize_text(read_text_file(file), file, vocab);
}

TokenCorpus load_ptb_format(const fs::path& location, std::size_t vocabulary_limit) {
  const fs::path dir = fs::exists(location / kPtbFiles[0]) ? location : location / "ptb";
  for (auto name : kPtbFiles)
    if (!fs::exists(dir / name))
      throw DataError(fmt::format(
          "PTB-format file {} is missing in {}: run `dlcbench data fetch ptb` to build it, or point "
          "--data at a folder holding {}, {} and {}",
          name, dir.string(), kPtbFiles[0], kPtbFiles[1], kPtbFiles[2]));

  const std::string train_text = read_text_file(dir / kPtbFiles[0]);
  const std::string valid_text = read_text_file(dir / kPtbFiles[1]);
  const std::string test_text = read_text_file(dir / kPtbFiles[2]);
  TokenCorpus c = parse_ptb_texts(train_text, valid_text, test_text, dir, vocabulary_limit);
  c.name = dataset_label(dir) == kBrownPtbFormatName ? std::string(kBrownPtbFormatName) : "ptb";
  c.source = fs::absolute(dir).string();
  return c;
}

TokenCorpus parse_ptb_texts(const std::string& train_text, const std::string& valid_text,
                            const std::string& test_text, const fs::path& dir, std::size_t vocabulary_limit) {
  const fs::path train_file = dir / kPtbFiles[0], valid_file = dir / kPtbFiles[1], test_file = dir / kPtbFiles[2];
  require_words(train_text, train_file);
  require_words(valid_text, valid_file);
  require_words(test_text, test_file);
  TokenCorpus c;
  c.vocab = Vocabulary::from_counts(count_words(train_text), vocabulary_limit, train_file.string());
  c.train = tokenize_text(train_text, train_file, c.vocab);
  c.valid = tokenize_text(valid_text, valid_file, c.vocab);
  c.test = tokenize_text(test_text, test_file, c.vocab);
  return c;
}

TokenBatches batchify(const std::vector<std::int64_t>& ids, std::size_t batch) {
  if (batch == 0) throw UsageError("--batch 0: the batch size must be at least 1");
  const std::size_t steps = ids.size() / batch;
  if (steps < 2) {
    if (ids.size() < 2)
      throw UsageError(fmt::format("--batch {}: the token stream holds only {} tokens, too few to train "
                                   "on (one input and its target need 2)",
                                   batch, ids.size()));
    throw UsageError(fmt::format(
        "--batch {}: too large for a stream of {} tokens: each of the {} columns needs at least 2 "
        "tokens (an input and its target), so the batch size can be at most {}",
        batch, ids.size(), batch, ids.size() / 2));
  }
  TokenBatches b;
  b.steps = steps;
  b.batch = batch;
  b.data.resize(steps * batch);
  for (std::size_t col = 0; col < batch; ++col)
    for (std::size_t t = 0; t < steps; ++t) b.data[t * batch + col] = ids[col * steps + t];
  return b;
}

std::size_t windows_per_epoch(const TokenBatches& batches, std::size_t seq_len) {
  if (seq_len == 0) throw UsageError("sequence length 0: it must be at least 1");
  if (batches.steps < 2 || seq_len > batches.steps - 1)
    throw UsageError(fmt::format(
        "sequence length {} is longer than the text allows: with --batch {} each column holds {} tokens, "
        "so the sequence can be at most {} (the last input token needs a target after it); use a smaller "
        "--batch or a longer text",
        seq_len, batches.batch, batches.steps, batches.steps < 1 ? 0 : batches.steps - 1));
  return (batches.steps - 1) / seq_len;
}

TokenWindow token_window(const TokenBatches& batches, std::size_t seq_len, std::size_t index) {
  const std::size_t start = (index % windows_per_epoch(batches, seq_len)) * seq_len;
  const auto row = [&](std::size_t t) {
    return batches.data.begin() + static_cast<std::ptrdiff_t>(t * batches.batch);
  };
  TokenWindow w;
  w.seq_len = seq_len;
  w.batch = batches.batch;
  w.input.assign(row(start), row(start + seq_len));
  w.target.assign(row(start + 1), row(start + seq_len + 1));
  return w;
}

nlohmann::json describe(const TokenCorpus& corpus) {
  return {{"name", corpus.name},
          {"source", corpus.source},
          {"vocabulary", corpus.vocab.size()},
          {"tokens", {{"train", corpus.train.size()}, {"valid", corpus.valid.size()}, {"test", corpus.test.size()}}}};
}

}  // namespace dlcbench
