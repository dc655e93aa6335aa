#include "core/fingerprint.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_files.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing::write_text;

TEST(ContainerDetection, DockerenvMarksDocker) {
  testing::TempDir root;
  write_text(root / ".dockerenv", "");
  write_text(root / "proc/1/cgroup", "0::/\n");
  auto d = detect_container(root.path());
  EXPECT_TRUE(d.in_container);
  EXPECT_EQ(d.runtime, "docker");
  EXPECT_THAT(d.detected_by, HasSubstr("/.dockerenv"));
}

TEST(ContainerDetection, ContainerenvMarksPodman) {
  testing::TempDir root;
  write_text(root / "run/.containerenv", "");
  auto d = detect_container(root.path());
  EXPECT_TRUE(d.in_container);
  EXPECT_EQ(d.runtime, "podman");
}

TEST(ContainerDetection, CgroupPathIsEvidenceToo) {
  testing::TempDir root;
  write_text(root / "proc/1/cgroup", "4:memory:/docker/0123abcd\n");
  auto d = detect_container(root.path());
  EXPECT_TRUE(d.in_container);
  EXPECT_THAT(d.detected_by, HasSubstr("/proc/1/cgroup"));
}

TEST(ContainerDetection, NoMarksMeansHost) {
  testing::TempDir root;
  write_text(root / "proc/1/cgroup", "0::/init.scope\n");
  auto d = detect_container(root.path());
  EXPECT_FALSE(d.in_container);
  EXPECT_THAT(d.detected_by, HasSubstr("no container marks"));
}

TEST(CgroupLimits, ReadsV1QuotaAndMemoryOfOwnGroup) {
  testing::TempDir root;
  write_text(root / "proc/self/cgroup", "2:cpu,cpuacct:/job\n4:memory:/job\n");
  write_text(root / "sys/fs/cgroup/cpu/job/cpu.cfs_quota_us", "150000\n");
  write_text(root / "sys/fs/cgroup/cpu/job/cpu.cfs_period_us", "100000\n");
  write_text(root / "sys/fs/cgroup/memory/job/memory.limit_in_bytes", "4294967296\n");
  auto l = read_cgroup_limits(root.path());
  EXPECT_EQ(l.version, "v1");
  ASSERT_TRUE(l.cpu_quota);
  EXPECT_DOUBLE_EQ(*l.cpu_quota, 1.5);
  ASSERT_TRUE(l.memory_limit_bytes);
  EXPECT_EQ(*l.memory_limit_bytes, 4294967296u);
}

TEST(CgroupLimits, V1UnlimitedIsNone) {
  testing::TempDir root;
  write_text(root / "proc/self/cgroup", "2:cpu:/\n4:memory:/\n");
  write_text(root / "sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  write_text(root / "sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  write_text(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  auto l = read_cgroup_limits(root.path());
  EXPECT_FALSE(l.cpu_quota);
  EXPECT_FALSE(l.memory_limit_bytes);
}

TEST(CgroupLimits, ReadsV2) {
  testing::TempDir root;
  write_text(root / "proc/self/cgroup", "0::/\n");
  write_text(root / "sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  write_text(root / "sys/fs/cgroup/cpu.max", "50000 100000\n");
  write_text(root / "sys/fs/cgroup/memory.max", "max\n");
  auto l = read_cgroup_limits(root.path());
  EXPECT_EQ(l.version, "v2");
  EXPECT_DOUBLE_EQ(*l.cpu_quota, 0.5);
  EXPECT_FALSE(l.memory_limit_bytes);
}

TEST(Fingerprint, HasTheFieldsTheComparisonNeeds) {
  auto f = environment_fingerprint();
  for (const char* key : {"hostname", "container", "cpu", "cgroup", "kernel", "machine", "binary_sha256", "blas",
                          "variables", "mount_namespace"})
    EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_EQ(f["binary_sha256"].get<std::string>().size(), 64u);
  EXPECT_GE(f["cpu"]["affinity_count"].get<int>(), 1);
}

TEST(Fingerprint, MachineKindSaysWhetherTheHostIsAGuest) {
  // A micro-VM without DMI (Firecracker), a KVM guest with it, bare metal.
  auto firecracker = machine_kind("Linux version 6.1.0", true, "", "");
  EXPECT_EQ(firecracker["kind"], "virtual machine");
  EXPECT_THAT(firecracker["detected_by"].get<std::string>(), HasSubstr("no DMI vendor"));
  auto kvm = machine_kind("Linux version 6.1.0", true, "QEMU\n", "Standard PC (Q35 + ICH9, 2009)\n");
  EXPECT_EQ(kvm["kind"], "virtual machine");
  EXPECT_THAT(kvm["detected_by"].get<std::string>(), HasSubstr("DMI: QEMU Standard PC (Q35 + ICH9, 2009)"));
  EXPECT_EQ(machine_kind("Linux version 6.1.0", false, "Dell Inc.\n", "PowerEdge R750\n")["kind"],
            "bare metal");
  // gVisor's own kernel, whatever the CPU flags say.
  EXPECT_EQ(machine_kind("Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016\n", true, "", "")["kind"],
            "gVisor sandbox");
}

}  // namespace
}  // namespace dlcbench
