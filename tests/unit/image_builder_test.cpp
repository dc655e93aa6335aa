#include "runtimes/image_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/process.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

TEST(ImageBuilder, ParsesLddOutput) {
  const std::string ldd =
      "\tlinux-vdso.so.1 (0x00007ffd)\n"
      "\tlibtorch.so.1 => /lib/x86_64-linux-gnu/libtorch.so.1 (0x00007f00)\n"
      "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f01)\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007f02)\n";
  auto libs = parse_ldd_output(ldd);
  ASSERT_EQ(libs.size(), 3u);
  EXPECT_EQ(libs[0], "/lib/x86_64-linux-gnu/libtorch.so.1");
  EXPECT_EQ(libs[2], "/lib64/ld-linux-x86-64.so.2");
}

TEST(ImageBuilder, AMissingLibraryIsAnError) {
  EXPECT_THROW(parse_ldd_output("\tlibgone.so.3 => not found\n"), EnvironmentUnavailable);
}

TEST(ImageBuilder, OnlyFilesChangingUnderTarIsToleratedNotTarsOtherErrors) {
  // What GNU tar prints when another run hard-links the same library.
  EXPECT_TRUE(tar_only_saw_files_change("tar: ./usr/lib/x86_64-linux-gnu/libc.so.6: file changed as we read it\n"));
  EXPECT_TRUE(tar_only_saw_files_change("tar: ./a: file changed as we read it\ntar: ./b: file changed as we read it"));
  EXPECT_FALSE(tar_only_saw_files_change(""));
  EXPECT_FALSE(tar_only_saw_files_change("tar: ./a: file changed as we read it\ntar: ./b: Cannot open: Permission denied\n"));
  EXPECT_FALSE(tar_only_saw_files_change("tar: /out.tar: Wrote only 4096 of 10240 bytes\n"));
}

TEST(ImageBuilder, ContentOfARealBinaryIncludesItsLoader) {
  auto ls = find_program("ls");
  ASSERT_TRUE(ls);
  ImageContent c = worker_image_content(*ls);
  ASSERT_GE(c.files.size(), 2u);
  EXPECT_EQ(c.files[0].in_image, kImageWorkerPath);
  bool has_libc = false;
  for (const auto& f : c.files) has_libc |= f.in_image.filename().string().rfind("libc.so", 0) == 0;
  EXPECT_TRUE(has_libc);
  EXPECT_EQ(c.content_id.size(), 64u);
  EXPECT_EQ(worker_image_content(*ls).content_id, c.content_id);
}

TEST(ImageBuilder, ExtrasComeWithTheirLibrariesAndChangeTheContent) {
  auto ls = find_program("ls");
  auto cat = find_program("cat");
  ASSERT_TRUE(ls && cat);
  const ImageContent plain = worker_image_content(*ls);
  const ImageContent with_cat = worker_image_content(*ls, {{*cat, false, {}}});
  EXPECT_NE(with_cat.content_id, plain.content_id);
  bool has_cat = false;
  for (const auto& f : with_cat.files) has_cat |= f.host == *cat && f.in_image == *cat;
  EXPECT_TRUE(has_cat);
  // An optional extra that cannot be resolved is left out, and says so; a
  // required one fails the build.
  const ImageContent without = worker_image_content(*ls, {{"/nonexistent/mca_gone.so", true, {}}});
  EXPECT_EQ(without.content_id, plain.content_id);
  ASSERT_EQ(without.left_out.size(), 1u);
  EXPECT_THAT(without.left_out[0], HasSubstr("/nonexistent/mca_gone.so: "));
  EXPECT_TRUE(plain.left_out.empty());
  EXPECT_THROW(worker_image_content(*ls, {{"/nonexistent/tool", false, {}}}), EnvironmentUnavailable);
  // An extra placed elsewhere in the image (the CUDA plugin beside the
  // binary) goes there, and where it goes is part of the content.
  const ImageContent moved = worker_image_content(*ls, {{*cat, false, "/opt/dlcbench/bin/cat"}});
  bool placed = false;
  for (const auto& f : moved.files) placed |= f.host == *cat && f.in_image == "/opt/dlcbench/bin/cat";
  EXPECT_TRUE(placed);
  EXPECT_NE(moved.content_id, with_cat.content_id);
}

}  // namespace
}  // namespace dlcbench
