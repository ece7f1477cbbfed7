// limits.h: the size limits on the inputs, one set per process: the defaults below, or the command line's
// --max-source-bytes and --max-flows (docs/language.md, section 1).
#pragma once
#include <cstddef>
#include <cstdint>

namespace gpm::support {

// The default size limit of one source or data file (FileTooLarge beyond it).
inline constexpr size_t kMaxSourceBytes = 8u << 20;
// The most --max-source-bytes may raise it to: source offsets are 32-bit.
inline constexpr uint64_t kMaxSourceBytesLimit = uint64_t(1) << 31;
// The default and the greatest limit of flows in one `flows` block: flows and the hops of their routes are numbered
// with 32-bit integers, which 2^27 flows keep within range.
inline constexpr uint64_t kMaxFlowsPerBlock = uint64_t(1) << 27;

struct Limits {
  uint64_t source_bytes = kMaxSourceBytes;        // --max-source-bytes
  uint64_t flows_per_block = kMaxFlowsPerBlock;   // --max-flows
};

// The process's limits; the command line sets them before anything is read.
inline Limits& limits() {
  static Limits process_limits;
  return process_limits;
}

}  // namespace gpm::support
