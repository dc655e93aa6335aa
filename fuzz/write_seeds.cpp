// Writes the seed corpus of every fuzz target: a few small valid inputs
// (each under 4 KiB) in <folder>/<target>/, so the fuzzer starts from files
// the parsers accept and mutates inward. Generated at fuzz time rather than
// committed, as most are binary. Usage: write_seeds FOLDER
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using Bytes = std::string;

void write(const fs::path& folder, const std::string& target, const std::string& name, const Bytes& bytes) {
  fs::create_directories(folder / target);
  std::ofstream(folder / target / name, std::ios::binary) << bytes;
}

void put_big_endian(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

// An IDX file of unsigned bytes with the given dimensions, values i % 10
// (digits, so a rank-1 file is also a valid label file).
Bytes idx(const std::vector<std::uint32_t>& dims) {
  Bytes out = {0, 0, 0x08, static_cast<char>(dims.size())};
  std::size_t count = 1;
  for (auto d : dims) {
    put_big_endian(out, d);
    count *= d;
  }
  for (std::size_t i = 0; i < count; ++i) out.push_back(static_cast<char>(i % 10));
  return out;
}

// One CIFAR-10 record: label, then 3072 pixels.
Bytes cifar_record(char label) {
  Bytes out(1, label);
  for (int i = 0; i < 3072; ++i) out.push_back(static_cast<char>(i * 7 % 256));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_seeds FOLDER\n";
    return 2;
  }
  const fs::path folder = argv[1];

  write(folder, "mnist_idx", "images-2x28x28", idx({2, 28, 28}));
  write(folder, "mnist_idx", "labels-12", idx({12}));
  write(folder, "mnist_idx", "images-3x2x2", idx({3, 2, 2}));

  write(folder, "cifar10", "one-record", cifar_record(3));

  const std::string nul(1, '\0');
  write(folder, "ptb", "three-splits",
        " the cat sat on the mat \n the dog sat <unk> N N \n\n a cat \n" + nul + " the dog \n" + nul + " <unk> cat N");
  write(folder, "ptb", "no-final-newline", "a b c\nb c a\nc" + nul + "a" + nul + "b c");

  write(folder, "results_jsonl", "launch",
        R"({"case":"fcn5/torch/cpu/b8","env":"host","round":1,"type":"fingerprint","binary_sha256":"ab",)"
        R"("blas":{"core":"Zen","threads":2},"cpu":{"affinity":"0-1"},"dataset":{"name":"synthetic"},)"
        R"("container":{"in_container":false},"micro":{"fs_type":"ext4"}})"
        "\n"
        R"({"case":"fcn5/torch/cpu/b8","env":"host","round":1,"type":"sample","phase":"warmup","seconds":0.5,"loss":2.3})"
        "\n"
        R"({"case":"fcn5/torch/cpu/b8","env":"host","round":1,"type":"sample","phase":"measured","iter":0,"seconds":0.25,"loss":2.1,"work":1e6})"
        "\n"
        R"({"case":"fcn5/torch/cpu/b8","env":"host","round":1,"type":"launch","ok":true,"cause":""})"
        "\n"
        R"({"case":"fcn5/torch/cpu/b8","env":"docker","round":1,"type":"fingerprint","binary_sha256":"ab",)"
        R"("blas":{"core":"Haswell","threads":2},"cpu":{"affinity":"0"},"dataset":{"name":"synthetic"}})"
        "\n"
        R"({"type":"environment_unavailable","env":"podman","reason":"podman is not installed"})"
        "\n"
        R"({"order":["host","docker"],"round":2,"type":"round"})"
        "\n"
        R"({"case":"fcn5/torch/cpu/b8","env":"host","round":2,"type":"launch","ok":false,"cause":"killed by signal 9"})"
        "\n{\"torn\":");

  write(folder, "manifest", "plan",
        R"({"schema_version":1,"run_id":"20261130-000000-abcd","status":"completed",)"
        R"("plan":{"baseline":"host","allow_mismatch":false,"runs":2,"seed":42,"data":"synthetic",)"
        R"("case_timeout_seconds":600,"environments":["host","docker:cpus=1,memory=4g","host#2"],)"
        R"("cases":[{"id":"fcn5/torch/cpu/b8","workload":"fcn5","backend":"torch","device":"cpu","batch":8,)"
        R"("warmup":5,"iters":20,"threads":1,"seed":42,"input":"memory"},)"
        R"({"id":"io-seq/read/direct/bs1M/256M@rootfs","workload":"io-seq","backend":"none","device":"cpu",)"
        R"("batch":0,"warmup":1,"iters":3,"threads":1,"seed":42,"input":"memory","variant":"read",)"
        R"("size":268435456,"block":1048576,"io_mode":"direct","io_target":"rootfs"},)"
        R"({"id":"startup","workload":"startup"}]}})");

  write(folder, "environment_options", "list", "host,docker:cpus=1,memory=4g,podman:runtime=crun");
  write(folder, "environment_options", "cpuset", "docker:cpuset=0-3,6,memory=512m,runc:rootfs=/srv/root,network=host");
  write(folder, "environment_options", "repeat", "host,host,crun:shm=1g,ipc=private,gpus=nodes");
  write(folder, "environment_options", "size", "1.5g");
  write(folder, "environment_options", "cpu-list", "0-3,6,8-9");
  write(folder, "environment_options", "option", "docker" + nul + "memory" + nul + "4gb");
  return 0;
}
