// `dlcbench doctor`: which runtimes are here, their versions, whether each
// can start a container on this machine, and the command that fixes what is
// missing. It starts a tiny container (a static program that exits at once)
// in each, and removes what it made. For gVisor it also tries each platform
// (ptrace, kvm) and whether dockerd knows runsc as a runtime.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/doctor_clean.h"
#include "core/blas_check.h"
#include "gpu/gpu_loader.h"
#include "runtimes/gpu_access.h"
#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/fingerprint.h"
#include "core/machine_noise.h"
#include "core/process.h"
#include "core/timer.h"
#include "core/scratch_dir.h"
#include "runtimes/environment.h"
#include "runtimes/image_builder.h"
#include "runtimes/oci_bundle.h"
#include "runtimes/rootless.h"
#include "workloads/micro/gemm.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

struct RuntimeCheck {
  std::string name;
  bool installed = false;
  bool starts = false;
  std::string version;
  double start_seconds = 0;
  std::string problem;  // with the fix, as the environment words it
  nlohmann::json details;
  // Set up on request (rootless Podman): one that is not does not fail doctor.
  bool optional = false;
};

// `name` is an environment as --envs takes it ("docker:runtime=runsc").
RuntimeCheck check_runtime(const std::string& name, const fs::path& self_exe) {
  RuntimeCheck c;
  c.name = name;
  const EnvironmentRequest request = parse_environment_request(name);
  c.installed = request.name == "host" || find_program(runtime_program(request.name)).has_value();
  const EnvironmentContext context{worker_program_beside(self_exe), fmt::format("doctor-{}", getpid()), /*noop_only=*/true,
                                   /*keep_images=*/false, /*image_extras=*/{}};
  auto env = make_environment(request, context);
  try {
    env->prepare();
    c.details = env->describe();
    c.version = c.details.value("version", "");
    WorkerLaunch noop;
    noop.program = WorkerLaunch::Program::noop;
    std::string label = name;  // a valid container name
    std::replace_if(
        label.begin(), label.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '-');
    const std::string instance = fmt::format("dlcbench-doctor-{}-{}", getpid(), label);
    const LaunchCommand command = env->command(noop, instance);
    Stopwatch clock;
    const ProcessSpec spec = command.process(120, nullptr);
    const ProcessResult result = run_process(spec, [](std::string_view) {});
    c.start_seconds = clock.seconds();
    c.starts = result.ok();
    if (!c.starts) {
      env->cleanup(instance);
      c.problem = fmt::format("a container did not start: {}\n{}", result.describe(), result.stderr_tail);
    }
  } catch (const EnvironmentUnavailable& e) {
    c.problem = e.what();
    c.details = env->describe();  // the version, where prepare() got that far
    c.version = c.details.value("version", "");
  }
  env->finish();
  return c;
}

// Rootless Podman, checked as root: dlcbench-rootless where
// scripts/rootless-user.sh made it, else what is missing with each fix. Set
// up on request only, so "not set up" fails nothing.
RuntimeCheck check_rootless_podman(const fs::path& self_exe) {
  const std::string name = fmt::format("podman:rootless={}", kDefaultRootlessUser);
  const auto problems = rootless_problems(kDefaultRootlessUser);
  RuntimeCheck c;
  if (problems.empty()) {
    c = check_runtime(name, self_exe);
  } else {
    c.name = name;
    c.installed = true;
    c.problem = fmt::format("{}", fmt::join(problems, "\n"));
  }
  c.optional = true;
  return c;
}

// Rootless Docker, checked as root where the rootless user is set up: its
// dockerd answers (scripts/with-rootless-docker.sh starts one), or what to
// run. Optional, as rootless Podman.
RuntimeCheck check_rootless_docker(const fs::path& self_exe) {
  const std::string name = fmt::format("docker:rootless={}", kDefaultRootlessUser);
  RuntimeCheck c;
  if (rootless_docker_running(kDefaultRootlessUser)) {
    c = check_runtime(name, self_exe);
  } else {
    c.name = name;
    c.installed = true;
    c.problem = rootless_problems(kDefaultRootlessUser).empty()
                    ? "no rootless dockerd of dlcbench-rootless runs: run dlcbench under "
                      "scripts/with-rootless-docker.sh, which starts one as that user and stops it after"
                    : fmt::format("{}", fmt::join(rootless_problems(kDefaultRootlessUser), "\n"));
  }
  c.optional = true;
  return c;
}

// gVisor's platforms: ptrace works wherever ptrace does; kvm needs /dev/kvm
// and, on a VM, nested virtualisation, without which its sandbox hangs for
// ever. Each is tried with one noop container and a time limit.
constexpr double kGvisorProbeSeconds = 10;

struct GvisorPlatform {
  std::string name;  // "ptrace", "kvm"
  bool tried = false;
  bool starts = false;
  double seconds = 0;
  std::string problem;
};

struct GvisorCheck {
  std::string program, version;
  std::vector<GvisorPlatform> platforms;
  std::string use;      // the --envs value to use: "runsc:platform=ptrace"; empty: none starts
  std::string problem;  // why no platform was tried
  RuntimeCheck docker;  // docker:runtime=runsc
  bool docker_reachable = false;
  bool docker_registered = false;
};

// A sandbox killed before it started leaves no runsc state (`runsc delete`
// finds nothing) but its cgroups, named after the container: they go, with
// any process of that sandbox still in them.
void remove_sandbox_cgroups(const std::string& id) {
  std::error_code ec;
  std::vector<fs::path> dirs = {fs::path("/sys/fs/cgroup") / id};  // cgroup v2
  for (const auto& entry : fs::directory_iterator("/sys/fs/cgroup", ec)) dirs.push_back(entry.path() / id);
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir, ec)) continue;
    std::ifstream procs(dir / "cgroup.procs");
    for (long pid = 0; procs >> pid;)
      if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
    for (int i = 0; i < 100 && ::rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

GvisorPlatform probe_gvisor_platform(const std::string& program, const fs::path& scratch, const std::string& platform) {
  GvisorPlatform p;
  p.name = platform;
  if (platform == "kvm" && !fs::exists("/dev/kvm")) {
    p.problem = "no /dev/kvm";
    return p;
  }
  p.tried = true;
  const std::string id = fmt::format("dlcbench-doctor-{}-runsc-{}", getpid(), platform);
  const fs::path bundle = scratch / id;
  const fs::path state = scratch / "state";
  fs::create_directories(bundle);
  fs::create_directories(state);
  OciBundleRequest request;
  request.rootfs = scratch / "rootfs";
  request.process.args = {kImageNoopPath};
  request.cgroups_path = "/" + id;
  request.container_name = "runsc";
  std::ofstream(bundle / "config.json") << oci_config(request).dump(2) << "\n";
  auto runsc = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv = {program, "--root", state.string(), "--platform=" + platform, "--network=none"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  Stopwatch clock;
  const auto run = capture_output(runsc({"run", "--bundle", bundle.string(), id}), kGvisorProbeSeconds);
  p.seconds = clock.seconds();
  p.starts = run.result.ok();
  // Whatever happened, nothing of it stays: the container by its id, then
  // the cgroups of a sandbox that never started.
  capture_output(runsc({"kill", id, "KILL"}), 10);
  capture_output(runsc({"delete", "--force", id}), 10);
  remove_sandbox_cgroups(id);
  if (p.starts) return p;
  if (run.result.timed_out)
    p.problem = fmt::format("no container within {:g} s: the sandbox hung{}, and was stopped and removed",
                            kGvisorProbeSeconds,
                            platform == "kvm" ? " (gVisor's KVM platform needs working virtualisation: on a VM, "
                                                "nested virtualisation)"
                                              : "");
  else
    p.problem = fmt::format("a container did not start: {}: {}", run.result.describe(),
                            first_line(run.result.stderr_tail));
  return p;
}

GvisorCheck check_gvisor(const fs::path& self_exe) {
  GvisorCheck g;
  const auto program = find_program("runsc");
  if (!program) {
    g.problem = "runsc is not installed: run `apt-get install runsc` (or scripts/install-deps.sh)";
  } else if (geteuid() != 0) {
    g.program = *program;
    g.problem = "runsc runs sandboxes as root here: run `dlcbench doctor` as root to try its platforms";
  } else {
    g.program = *program;
    g.version = first_line(capture_output({g.program, "--version"}, 30).out);
    try {
      ScratchDir scratch(fmt::format("dlcbench-doctor-gvisor-{}", getpid()));
      write_rootfs(noop_image_content(self_exe), scratch.path() / "rootfs");
      for (const char* platform : {"ptrace", "kvm"})
        g.platforms.push_back(probe_gvisor_platform(g.program, scratch.path(), platform));
    } catch (const std::exception& e) {
      g.problem = std::string("the platforms could not be tried: ") + e.what();
    }
    for (const auto& p : g.platforms)
      if (p.starts && g.use.empty()) g.use = "runsc:platform=" + p.name;
  }
  // Docker with gVisor as its runtime: registered with dockerd, and starting.
  g.docker = check_runtime("docker:runtime=runsc", self_exe);
  g.docker_reachable = !g.docker.version.empty();
  const auto registered = g.docker.details.value("runtimes_registered", nlohmann::json::array());
  g.docker_registered = std::find(registered.begin(), registered.end(), "runsc") != registered.end();
  return g;
}

nlohmann::json gvisor_json(const GvisorCheck& g) {
  nlohmann::json platforms = nlohmann::json::object();
  for (const auto& p : g.platforms)
    platforms[p.name] = {{"tried", p.tried},
                         {"starts", p.starts},
                         {"start_seconds", p.starts ? nlohmann::json(p.seconds) : nlohmann::json()},
                         {"problem", p.problem}};
  return {{"program", g.program},
          {"version", g.version},
          {"platforms", platforms},
          {"use", g.use},
          {"problem", g.problem},
          {"docker",
           {{"reachable", g.docker_reachable},
            {"registered", g.docker_registered},
            {"runtime", g.docker.details.value("runtime", nlohmann::json::object())},
            {"starts", g.docker.starts},
            {"start_seconds", g.docker.starts ? nlohmann::json(g.docker.start_seconds) : nlohmann::json()},
            {"problem", g.docker.problem},
            {"use", g.docker.starts ? "docker:runtime=runsc" : ""}}}};
}

// One line of a problem's text, however many lines it had.
std::string one_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void print_gvisor(const GvisorCheck& g) {
  std::cout << "\ngVisor: " << (g.program.empty() ? "runsc not installed" : g.version + " (" + g.program + ")") << "\n";
  if (!g.problem.empty()) std::cout << "      " << g.problem << "\n";
  for (const auto& p : g.platforms) {
    if (p.starts)
      std::cout << fmt::format("      platform {:<7} ok: a noop container in {:.3f} s\n", p.name, p.seconds);
    else
      std::cout << fmt::format("      platform {:<7} {}{}\n", p.name, p.tried ? "cannot start: " : "not tried: ",
                               one_line(p.problem));
  }
  if (!g.platforms.empty())
    std::cout << "      "
              << (g.use.empty() ? std::string("neither platform starts a container here")
                                : fmt::format("use {}{}", g.use, g.use == "runsc:platform=ptrace"
                                                                      ? " (the default: --envs runsc)"
                                                                      : ""))
              << "\n";
  std::string args;
  if (g.docker.details.contains("runtime") && g.docker.details["runtime"].contains("args"))
    for (const auto& a : g.docker.details["runtime"]["args"]) args += " " + a.get<std::string>();
  if (!g.docker_reachable)
    std::cout << "      docker: no Docker daemon answers, so whether it knows runsc is unknown (scripts/with-docker.sh "
                 "starts one that does)\n";
  else if (g.docker.starts)
    std::cout << fmt::format("      docker: runsc registered with dockerd (runtimeArgs:{}): a noop container in "
                             "{:.3f} s; use docker:runtime=runsc\n",
                             args.empty() ? " none" : args, g.docker.start_seconds);
  else
    std::cout << fmt::format("      docker: {}\n      fix: {}\n",
                             g.docker_registered ? "runsc registered with dockerd (runtimeArgs:" +
                                                       (args.empty() ? std::string(" none") : args) +
                                                       ") but a container does not start"
                                                 : "dockerd knows no runtime runsc",
                             one_line(g.docker.problem));
}

struct BlasCheck {
  nlohmann::json info;  // blas_info()
  CpuVectorIsa cpu;
  BlasKernelVerdict verdict;
  int threads = 1;
  double sgemm_gflops = 0;  // best of a few n = 2048 SGEMMs
  double peak_gflops = 0;   // estimated: CPUs x flops per cycle x clock
  std::string problem;      // the probe failed
};

// The kernel OpenBLAS picked against the CPU, and what SGEMM reaches here
// against the CPU's estimated peak: a figure far below it is the first sign
// of the wrong kernel or a busy machine.
BlasCheck check_blas(int cpus) {
  BlasCheck b;
  b.info = blas_info();
  b.cpu = read_cpu_isa();
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  b.verdict = check_blas_kernel(b.info.value("core", std::string()), b.cpu, forced ? forced : "");
  b.threads = cpus;
  b.peak_gflops = cpus * sp_flops_per_cycle(b.cpu) * b.cpu.mhz / 1e3;
  if (b.verdict.would_crash) return b;  // the probe would die with SIGILL
  try {
    MicroParams p;
    p.variant = "sgemm";
    p.size = 2048;
    p.threads = cpus;
    auto gemm = make_gemm(p);
    for (int i = 0; i < 3; ++i) {
      const MicroResult r = gemm->run();
      b.sgemm_gflops = std::max(b.sgemm_gflops, r.work / r.seconds / 1e9);
    }
  } catch (const std::exception& e) {
    b.problem = e.what();
  }
  return b;
}

void print_blas(const BlasCheck& b) {
  std::cout << fmt::format("\nBLAS: {}\n      {}\n", b.info.value("config", b.info.value("library", std::string("?"))),
                           b.verdict.message);
  if (!b.problem.empty()) std::cout << "      SGEMM probe failed: " << b.problem << "\n";
  if (b.sgemm_gflops > 0) {
    std::cout << fmt::format("      SGEMM n=2048, {} threads: {:.1f} GFLOP/s", b.threads, b.sgemm_gflops);
    if (b.peak_gflops > 0)
      std::cout << fmt::format(", {:.0f}% of an estimated peak of {:.0f} ({} CPUs x {} flop/cycle ({}, two FMA "
                               "units) x {:.0f} MHz)",
                               100 * b.sgemm_gflops / b.peak_gflops, b.peak_gflops, b.threads,
                               sp_flops_per_cycle(b.cpu), b.cpu.best(), b.cpu.mhz);
    std::cout << "\n";
    if (b.verdict.ok && b.peak_gflops > 0 && b.sgemm_gflops < 0.5 * b.peak_gflops)
      std::cout << "      below half the estimated peak with the right kernel: another process may be using the "
                   "CPUs, the clock may be lower under load than reported, or the CPU has one FMA unit\n";
  }
  if (!b.verdict.ok) std::cout << "      fix: " << b.verdict.message << "\n";
}

// The GPU: the driver as the host sees it, and how each runtime would give a
// container the GPU (the NVIDIA toolkit, or dlcbench's own device nodes and
// driver libraries). A machine without a GPU is not a failure.
nlohmann::json check_gpu() {
  const GpuDriverReport driver = gpu_driver_report();
  nlohmann::json g = {{"driver", driver.to_json()}, {"containers", nlohmann::json::object()}};
  std::string passthrough_problem;
  std::optional<GpuPassthrough> passthrough;
  try {
    passthrough = host_gpu_passthrough();
  } catch (const EnvironmentUnavailable& e) {
    passthrough_problem = e.what();
  }
  for (const auto& name : environment_names()) {
    if (name == "host" || name == "chroot") continue;
    const bool no_gpu = name == "runsc" || name == "charliecloud";
    std::string method = no_gpu ? "none" : gpu_method(name, "auto", true);
    std::string how;
    if (name == "runsc")
      how = "gVisor (this runsc) has no GPU proxy: its sandboxes reach no GPU, so GPU cases run in the other "
            "runtimes";
    else if (name == "charliecloud")
      how = "dlcbench passes no GPU to ch-run (its image folder holds no driver libraries), so GPU cases run in "
            "the other runtimes";
    else if (method == "toolkit")
      how = name == "docker" ? "the NVIDIA container toolkit: docker run --gpus all"
                             : "the NVIDIA container toolkit's CDI device: podman run --device nvidia.com/gpu=all";
    else if (passthrough)
      how = fmt::format("no NVIDIA container toolkit{}: dlcbench passes {} device nodes ({}) and binds {} driver "
                        "libraries from {} read-only",
                        name == "docker" || name == "podman" ? "" : " (an OCI runtime runs the bundle dlcbench writes)",
                        passthrough->devices.size(), fmt::join([&] {
                          std::vector<std::string> paths;
                          for (const auto& d : passthrough->devices) paths.push_back(d.path);
                          return paths;
                        }(), " "),
                        passthrough->libraries.size(), passthrough->library_dir);
    else
      method = "none", how = passthrough_problem;
    g["containers"][name] = {{"method", method}, {"how", how}};
  }
  if (passthrough) g["passthrough"] = passthrough->to_json();
  return g;
}

void print_gpu(const nlohmann::json& g) {
  const auto& d = g["driver"];
  std::cout << "\nGPU: ";
  if (d["problem"].get<std::string>().empty())
    std::cout << fmt::format("{} GPU(s), driver library {} (CUDA {}), CUDA plugin {}\n", d.value("gpus", 0),
                             d["driver_library"].get<std::string>(), d.value("driver_cuda_version", "?"),
                             d["plugin"].get<std::string>());
  else
    std::cout << "GPU cases cannot run here: " << d["problem"].get<std::string>() << "\n";
  for (const auto& [name, c] : g["containers"].items())
    std::cout << fmt::format("      {:<12} {}\n", name, c["how"].get<std::string>());
}

int doctor(bool json) {
  const fs::path self_exe = fs::read_symlink("/proc/self/exe");
  std::vector<RuntimeCheck> checks;
  for (const auto& name : environment_names())
    if (name != "chroot") checks.push_back(check_runtime(name, self_exe));  // not a runtime: a user's command only
  if (geteuid() == 0 && find_program("podman")) checks.push_back(check_rootless_podman(self_exe));
  if (geteuid() == 0 && find_program("docker")) checks.push_back(check_rootless_docker(self_exe));

  const GvisorCheck gvisor = check_gvisor(self_exe);

  const auto fingerprint = environment_fingerprint();
  const BlasCheck blas = check_blas(fingerprint["cpu"].value("affinity_count", 1));
  const nlohmann::json gpu = check_gpu();
  const MachineNoise noise = check_machine_noise();
  if (json) {
    nlohmann::json out = {{"machine",
                           {{"kernel", fingerprint["kernel"]},
                            {"cgroup", fingerprint["cgroup"]},
                            {"cpu", fingerprint["cpu"]},
                            {"in_container", fingerprint["container"]}}},
                          {"runtimes", nlohmann::json::array()},
                          {"blas",
                           {{"info", blas.info},
                            {"cpu_vector_isa", blas.cpu.best()},
                            {"kernel_ok", blas.verdict.ok},
                            {"message", blas.verdict.message},
                            {"suggested_coretype", blas.verdict.suggested_core},
                            {"sgemm_n2048_gflops", blas.sgemm_gflops},
                            {"estimated_peak_gflops", blas.peak_gflops},
                            {"probe_problem", blas.problem}}},
                          {"gvisor", gvisor_json(gvisor)},
                          {"noise", machine_noise_json(noise)},
                          {"gpu", gpu}};
    for (const auto& c : checks)
      out["runtimes"].push_back({{"name", c.name},
                                 {"installed", c.installed},
                                 {"starts", c.starts},
                                 {"version", c.version},
                                 {"start_seconds", c.starts ? nlohmann::json(c.start_seconds) : nlohmann::json()},
                                 {"problem", c.problem},
                                 {"optional", c.optional},
                                 {"details", c.details}});
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << fmt::format("machine: {}, {} CPUs ({}), cgroup {}{}\n\n", fingerprint["kernel"].get<std::string>(),
                             fingerprint["cpu"]["affinity_count"].get<int>(),
                             fingerprint["cpu"]["model"].get<std::string>(),
                             fingerprint["cgroup"]["version"].get<std::string>(),
                             fingerprint["container"]["in_container"].get<bool>()
                                 ? ", itself inside a container (" +
                                       fingerprint["container"]["detected_by"].get<std::string>() + ")"
                                 : "");
    std::cout << fmt::format("{:<12} {:<14} {:<36} {}\n", "runtime", "status", "version", "start (noop container)");
    for (const auto& c : checks) {
      const std::string status = !c.installed ? "missing" : c.starts ? "ok" : c.optional ? "not set up" : "cannot start";
      std::cout << fmt::format("{:<12} {:<14} {:<36} {}\n", c.name, status, c.version.substr(0, 36),
                               c.starts ? fmt::format("{:.3f} s", c.start_seconds) : "-");
      if (c.details.contains("adjustments"))
        for (const auto& a : c.details["adjustments"]) std::cout << "         uses " << a.get<std::string>() << "\n";
      if (!c.problem.empty()) {
        std::string text = c.problem;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        std::string indented;
        for (char ch : text) indented += ch == '\n' ? std::string("\n           ") : std::string(1, ch);
        std::cout << "         fix: " << indented << "\n";
      }
    }
    print_gvisor(gvisor);
    print_blas(blas);
    print_gpu(gpu);
    std::cout << fmt::format("\nMeasurement noise: {} CPUs online, {} usable here\n", noise.cpus, noise.usable_cpus);
    for (const auto& line : machine_noise_advice(noise)) std::cout << "      " << line << "\n";
  }
  if (!blas.verdict.ok) return kExitFailure;
  // Exit 1 when a runtime that is installed cannot start containers here.
  for (const auto& c : checks)
    if (c.installed && !c.starts && !c.optional) return kExitFailure;
  return kExitOk;
}

}  // namespace

void add_doctor_command(CLI::App& app, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "doctor", "Check each container runtime: installed, version, can it start a container here, how to fix it");
  auto clean = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the findings as JSON");
  cmd->add_flag("--clean", *clean,
                "Remove what runs killed with SIGKILL left (scratch folders, containers, image tags named after "
                "their run id), never a live run's, and say what");
  cmd->callback([json, clean, &exit_code] { exit_code = *clean ? clean_run_leftovers() : doctor(*json); });
}

}  // namespace dlcbench::cli
