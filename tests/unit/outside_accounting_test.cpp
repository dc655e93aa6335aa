// The environment's processes read from outside: /proc as the kernel
// writes it (a fake one under a temporary folder), which processes belong to
// a launch, and which of them run the worker's own code.
#include "orchestrator/outside_accounting.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <string>

#include "core/scratch_dir.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::UnorderedElementsAre;

void fake_process(const fs::path& proc, pid_t pid, pid_t ppid, const std::string& comm, long utime, long stime,
                  const std::string& argv0) {
  const fs::path dir = proc / std::to_string(pid);
  fs::create_directories(dir);
  // Fields after the comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  std::ofstream(dir / "stat") << pid << " (" << comm << ") S " << ppid << " 1 1 0 -1 4194560 10 0 0 0 " << utime
                              << " " << stime << " 0 0 20 0 1 0 100 0 0\n";
  std::ofstream(dir / "cmdline", std::ios::binary) << argv0 << std::string(1, '\0') << "--flag" << std::string(1, '\0');
}

TEST(OutsideAccounting, ReadsEveryProcessWithItsCpuTimeAndName) {
  ScratchDir tmp("dlcbench-outside-test");
  const fs::path proc = tmp.path() / "proc";
  fake_process(proc, 10, 1, "dlcbench", 300, 50, "/opt/dlcbench/bin/dlcbench");
  fake_process(proc, 11, 10, "exe", 7, 3, "runsc-sandbox");  // runsc re-executes itself
  fake_process(proc, 12, 11, "we (ird) name", 1, 0, "");     // a comm with spaces and parentheses
  fs::create_directories(proc / "self");
  const auto all = read_processes(proc);
  ASSERT_EQ(all.size(), 3u);
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  for (const auto& p : all) {
    if (p.pid == 10) {
      EXPECT_EQ(p.name, "dlcbench");
      EXPECT_EQ(p.ppid, 1);
      EXPECT_NEAR(p.cpu_seconds, 350 * tick, 1e-12);
    } else if (p.pid == 11) {
      EXPECT_EQ(p.name, "runsc-sandbox");
    } else {
      EXPECT_EQ(p.name, "we (ird) name");
      EXPECT_EQ(p.ppid, 11);
    }
  }
}

TEST(OutsideAccounting, AnEnvironmentIsTheOrchestratorsDescendantsAndItsEnginesHelpers) {
  const pid_t me = 100;
  const std::vector<ProcessCpu> all = {
      {1, 0, "init", 0},          {100, 1, "dlcbench", 0},   {101, 100, "docker", 0},
      {50, 1, "dockerd", 0},      {51, 50, "containerd", 0}, {60, 1, "containerd-shim", 0},
      {61, 60, "dlcbench", 0},    {70, 1, "conmon", 0},      {71, 70, "dlcbench", 0},
      {80, 1, "sshd", 0},
  };
  EXPECT_THAT(environment_processes(all, me, "docker"), UnorderedElementsAre(101, 50, 51, 60, 61));
  EXPECT_THAT(environment_processes(all, me, "podman"), UnorderedElementsAre(101, 70, 71));
  // The host and the OCI runtimes: only what the orchestrator started.
  EXPECT_THAT(environment_processes(all, me, "host"), UnorderedElementsAre(101));
  EXPECT_THAT(environment_processes(all, me, "runsc"), UnorderedElementsAre(101));
}

TEST(OutsideAccounting, GvisorsStubsRunTheWorkersCodeAndItsSentryIsAHelper) {
  std::map<pid_t, ProcessCpu> all;
  for (const ProcessCpu& p : std::vector<ProcessCpu>{{100, 1, "dlcbench", 0},
                                                     {101, 100, "runsc", 0},
                                                     {102, 101, "runsc-gofer", 0},
                                                     {103, 101, "runsc-sandbox", 0},
                                                     {104, 103, "exe", 0},
                                                     {105, 104, "exe", 0},
                                                     {106, 1, "exe", 0},
                                                     {107, 101, "dlcbench-worker", 0}})
    all[p.pid] = p;
  EXPECT_TRUE(runs_worker_code(all.at(104), all));
  EXPECT_TRUE(runs_worker_code(all.at(105), all));   // a stub cloned from a stub
  EXPECT_FALSE(runs_worker_code(all.at(106), all));  // an "exe" outside any sandbox
  EXPECT_FALSE(runs_worker_code(all.at(103), all));
  EXPECT_FALSE(runs_worker_code(all.at(102), all));
  EXPECT_TRUE(runs_worker_code(all.at(100), all));
  EXPECT_TRUE(runs_worker_code(all.at(107), all));  // the worker program
}

TEST(OutsideAccounting, ASandboxWhoseArgumentsCannotBeReadAtTheEndKeepsItsNameFromTheStart) {
  const std::map<pid_t, ProcessCpu> begin = {{103, {103, 101, "runsc-sandbox", 1.0}},
                                             {104, {104, 103, "exe", 2.0}},
                                             {110, {110, 101, "runsc-gofer", 0.1}}};
  std::vector<ProcessCpu> now = {{103, 101, "exe", 1.5},   // its arguments unreadable now
                                 {104, 103, "exe", 3.0},   // a stub stays a stub
                                 {110, 1, "exe", 0.0}};    // pid reused by another process
  keep_names_read_at_start(now, begin);
  EXPECT_EQ(now[0].name, "runsc-sandbox");
  EXPECT_EQ(now[1].name, "exe");
  EXPECT_EQ(now[2].name, "exe");
}

// CI once found neither reading able to name the sandbox (a phase of 4 ms
// under load): its place in the tree still does.
TEST(OutsideAccounting, ASandboxNeitherReadingCouldNameIsKnownByItsPlaceInTheTree) {
  std::vector<ProcessCpu> all = {{100, 1, "dlcbench", 0},   {101, 100, "runsc", 0}, {102, 101, "runsc-gofer", 0},
                                 {103, 101, "exe", 0},      {104, 103, "exe", 0},   {105, 104, "exe", 0},
                                 {106, 101, "exe", 0},      {107, 1, "exe", 0},     {108, 107, "exe", 0}};
  name_sandboxes_by_their_place(all);
  std::map<pid_t, std::string> names;
  for (const auto& p : all) names[p.pid] = p.name;
  EXPECT_EQ(names[103], "runsc-sandbox");
  EXPECT_EQ(names[104], "exe");  // its stubs stay stubs
  EXPECT_EQ(names[105], "exe");
  EXPECT_EQ(names[106], "exe");  // started by runsc, but no stubs of its own
  EXPECT_EQ(names[107], "exe");  // stubs of its own, but not started by runsc
  std::map<pid_t, ProcessCpu> by_pid;
  for (const auto& p : all) by_pid[p.pid] = p;
  EXPECT_TRUE(runs_worker_code(by_pid.at(105), by_pid));
}

TEST(OutsideAccounting, APhaseNeverStartedSaysSo) {
  OutsideAccounting outside("runc");
  EXPECT_FALSE(outside.started());
  EXPECT_EQ(outside.finish().value("unavailable", ""), "the worker did not say when its measured phase began");
  outside.start();
  const auto j = outside.finish();
  EXPECT_FALSE(j.contains("unavailable"));
  EXPECT_GE(j.at("environment_cpu_seconds").get<double>(), 0);
  EXPECT_NEAR(j.at("helpers_cpu_seconds").get<double>() + j.at("worker_cpu_seconds").get<double>(),
              j.at("environment_cpu_seconds").get<double>(), 1e-9);
}

}  // namespace
}  // namespace dlcbench
