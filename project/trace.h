// trace.h: the copies and kernels a profiled run recorded on one node, read from a CSV file or an Nsight Systems
// SQLite export (AHEAD section V: the Analyzer and the Filter).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "support/diagnostics.h"
#include "support/source_manager.h"

namespace gpm::project {

// The copies gpmc prices (stdlib/project/): host to device and device to host from pinned or pageable memory,
// device to device on one GPU, and peer to peer between two GPUs.
enum class CopyKind { H2D, D2H, D2D, P2P };
enum class HostMemory { Pinned, Pageable, None };  // None: a d2d or p2p copy

const char* copy_kind_name(CopyKind kind);    // "h2d", "d2h", "d2d", "p2p"
const char* host_memory_name(HostMemory mem);  // "pinned", "pageable", "device"

struct TraceCopy {
  CopyKind kind = CopyKind::H2D;
  HostMemory memory = HostMemory::Pinned;
  double bytes = 0;       // a whole number
  int64_t stream = 0;
  int64_t gpu = -1;                    // an h2d, d2h or d2d copy's CUDA device (ordinal); -1: not recorded
  int64_t src_gpu = -1, dst_gpu = -1;  // a p2p copy's CUDA devices (device ordinals), else -1
  double start_s = 0;     // from the trace's own origin
  double duration_s = 0;  // > 0
  std::string where;      // for messages: `trace.csv:12` or `trace.sqlite: CUPTI_ACTIVITY_KIND_MEMCPY row 7`
};

struct TraceKernel {
  std::string name;
  int64_t stream = 0;
  double start_s = 0, duration_s = 0;
};

// Operations the trace holds that gpmc cannot price (peer-to-peer copies, copies to or from CUDA arrays or
// managed memory, host-to-host copies): counted by description, never dropped silently.
struct SkippedCopies {
  std::string what;  // "p2p", "h2d from managed memory", ...
  uint64_t count = 0;
  double bytes = 0, time_s = 0;
};

struct Trace {
  std::string path;
  std::string format;  // "csv" or "nsight-sqlite"
  std::vector<TraceCopy> copies;     // in start order (file order among equal starts)
  std::vector<TraceKernel> kernels;  // in start order
  std::vector<SkippedCopies> skipped;  // sorted by `what`
};

// Reads `path`: an SQLite database when its first 16 bytes are the SQLite header ("SQLite format 3" and a NUL),
// a CSV file otherwise. `what` names the trace in messages ("trace", "trace measured on B"). Reports
// FileNotFound, MalformedCsv and MalformedTrace; false after reporting.
bool read_trace(const std::string& path, const std::string& what, support::SourceManager& sources,
                support::DiagnosticEngine& diags, Trace& out);

// The two readers (trace_csv.cpp, trace_sqlite.cpp); read_trace chooses between them.
bool read_csv_trace(const std::string& path, const std::string& what, support::SourceManager& sources,
                    support::DiagnosticEngine& diags, Trace& out);
bool read_nsight_sqlite_trace(const std::string& path, const std::string& what, support::DiagnosticEngine& diags,
                              Trace& out);

// Adds one unpriceable copy to `skipped` (kept sorted by description).
void count_skipped(std::vector<SkippedCopies>& skipped, const std::string& what, double bytes, double time_s);

}  // namespace gpm::project
