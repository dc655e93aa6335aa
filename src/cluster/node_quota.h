// A node of a cluster run made slow on purpose (`run --slurm
// --node-cpu-quota NODE=CPUS`): its step puts itself into a cgroup with a CFS
// quota, and its containers go under the same cgroup (--cgroup-parent,
// cgroupsPath), so the host's workers and the containers' are throttled
// alike. A report must then show that node as node spread, not as a
// container's overhead. The step's own processes sit in a child cgroup
// without a quota of its own, so the workers' fingerprints (which read their
// own cgroup's limits) stay those of the other nodes.
#pragma once

#include <string>

namespace dlcbench {

// The cgroup (absolute, from each hierarchy's root) of a quota named `name`.
std::string node_quota_cgroup(const std::string& name);

// Creates the cgroup with the quota and moves this process into its child
// "steps". Returns "" or why it could not (no root, no cpu controller).
std::string enter_node_cpu_quota(const std::string& name, double cpus);

// Moves this process back to the root cgroup and removes the quota's cgroup
// in every hierarchy (the runtimes made it in each for their containers).
void leave_node_cpu_quota(const std::string& name);

}  // namespace dlcbench
