// The exit codes of dlcbench's commands, one meaning each.
#pragma once

namespace dlcbench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      // something failed while running
inline constexpr int kExitUsage = 2;        // bad input: the message says how to fix it
inline constexpr int kExitNotComparable = 3;  // measured, but not like for like
// `dlcbench gate`: a comparison is slower beyond the margin; or the run
// cannot tell (an interval straddles the margin, or there is none).
inline constexpr int kExitGateFailed = 4;
inline constexpr int kExitGateCannotTell = 5;
inline constexpr int kExitInterrupted = 130;

}  // namespace dlcbench
