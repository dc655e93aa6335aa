#include "data/mnist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/dataset.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::TempDir;

using testing::error_of;

TEST(Idx, ReadsAGoodFile) {
  TempDir dir;
  testing::write_bytes(dir / "a", testing::idx_bytes({2, 3}, {1, 2, 3, 4, 5, 6}));
  IdxArray a = read_idx_ubyte(dir / "a", 2);
  EXPECT_EQ(a.dims, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(a.values, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Idx, RejectsWrongMagicAndNamesTheField) {
  TempDir dir;
  auto bytes = testing::idx_bytes({2}, {1, 2});
  bytes[0] = 0x1f;  // what a still-gzipped file starts with
  bytes[1] = 0x8b;
  testing::write_bytes(dir / "gz", bytes);
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "gz", 1); }),
              AllOf(HasSubstr((dir / "gz").string()), HasSubstr("magic number"), HasSubstr("gunzip")));
}

TEST(Idx, RejectsWrongTypeCode) {
  TempDir dir;
  auto bytes = testing::idx_bytes({2}, {1, 2});
  bytes[2] = 0x0D;  // float
  testing::write_bytes(dir / "f", bytes);
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "f", 1); }), HasSubstr("type code is 0x0d"));
}

TEST(Idx, RejectsWrongRank) {
  TempDir dir;
  testing::write_bytes(dir / "r", testing::idx_bytes({2, 1}, {1, 2}));
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "r", 3); }), HasSubstr("says 2 dimensions, expected 3"));
}

TEST(Idx, RejectsTruncatedData) {
  TempDir dir;
  auto bytes = testing::idx_bytes({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  bytes.resize(bytes.size() - 3);
  testing::write_bytes(dir / "t", bytes);
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "t", 2); }),
              AllOf(HasSubstr("need 20 bytes"), HasSubstr("truncated")));
}

TEST(Idx, RejectsTruncatedHeader) {
  TempDir dir;
  testing::write_bytes(dir / "h", {0, 0, 8, 3, 0, 0});
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "h", 3); }), HasSubstr("size of dimension 0"));
  testing::write_bytes(dir / "e", {});
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "e", 1); }), HasSubstr("magic number"));
}

TEST(Idx, RejectsTrailingBytes) {
  TempDir dir;
  auto bytes = testing::idx_bytes({2}, {1, 2});
  bytes.push_back(9);
  testing::write_bytes(dir / "long", bytes);
  EXPECT_THAT(error_of([&] { read_idx_ubyte(dir / "long", 1); }), HasSubstr("longer than its header says"));
}

TEST(Mnist, LoadsASplit) {
  TempDir dir;
  testing::write_mnist_split(dir.path(), "train", 12);
  MnistSplit s = load_mnist(dir.path(), "train");
  EXPECT_EQ(s.count, 12u);
  EXPECT_EQ(s.rows, 28u);
  EXPECT_EQ(s.images.size(), 12u * 784);
  EXPECT_EQ(s.labels[11], 1);
}

TEST(Mnist, RejectsCountMismatchBetweenImagesAndLabels) {
  TempDir dir;
  testing::write_mnist_split(dir.path(), "train", 5);
  testing::write_bytes(dir / "train-labels-idx1-ubyte", testing::idx_bytes({4}, {1, 2, 3, 4}));
  EXPECT_THAT(error_of([&] { load_mnist(dir.path(), "train"); }),
              AllOf(HasSubstr("holds 5 images but"), HasSubstr("4 labels")));
}

TEST(Mnist, RejectsImagesThatAreNot28x28) {
  TempDir dir;
  testing::write_mnist_split(dir.path(), "train", 2);
  testing::write_bytes(dir / "train-images-idx3-ubyte", testing::idx_bytes({2, 2, 2}, std::vector<std::uint8_t>(8)));
  EXPECT_THAT(error_of([&] { load_mnist(dir.path(), "train"); }), HasSubstr("2x2"));
}

TEST(Mnist, RejectsLabelsOutOfRange) {
  TempDir dir;
  testing::write_mnist_split(dir.path(), "train", 2);
  testing::write_bytes(dir / "train-labels-idx1-ubyte", testing::idx_bytes({2}, {3, 10}));
  EXPECT_THAT(error_of([&] { load_mnist(dir.path(), "train"); }), HasSubstr("label 10 at index 1"));
}

TEST(Mnist, MissingFileNamesTheFolderAndTheFetchCommand) {
  TempDir dir;
  EXPECT_THAT(error_of([&] { load_mnist(dir.path(), "train"); }),
              AllOf(HasSubstr("train-images-idx3-ubyte"), HasSubstr(dir.path().string()),
                    HasSubstr("dlcbench data fetch mnist")));
}

TEST(Mnist, TrainingDataIsNormalised) {
  TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 3);
  ClassificationData d = load_mnist_training(dir.path());  // finds the mnist/ subfolder
  EXPECT_EQ(d.count, 3u);
  EXPECT_FALSE(d.synthetic);
  EXPECT_EQ(d.example_shape, (std::vector<std::int64_t>{784}));
  // Pixel 0 of image 0 is 0: (0/255 - 0.1307) / 0.3081.
  EXPECT_NEAR(d.features[0], -0.1307f / 0.3081f, 1e-6);
  EXPECT_EQ(d.labels[2], 2);
}

TEST(Synthetic, IsLabelledAndShapedLikeTheRealSet) {
  ClassificationData d = make_synthetic({784}, 10, 100, 7);
  EXPECT_TRUE(d.synthetic);
  EXPECT_EQ(d.name, "synthetic");
  EXPECT_EQ(d.features.size(), 78400u);
  for (auto l : d.labels) EXPECT_TRUE(l >= 0 && l < 10);
  ClassificationData again = make_synthetic({784}, 10, 100, 7);
  EXPECT_EQ(d.features, again.features);  // seeded
}

}  // namespace
}  // namespace dlcbench
