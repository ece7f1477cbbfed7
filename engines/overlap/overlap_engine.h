// overlap_engine.h: the stream-overlap engine: h2d copies, kernels and d2h copies of CUDA streams scheduled on one GPU.
#pragma once
#include <string>
#include <vector>

#include "ir/engine.h"

namespace gpm::engines {

// The device class of van Werkhoven et al. section IV (Table III): copy engines and implicit synchronisation.
struct OverlapDevice {
  int copy_engines = 1;        // 1: both directions share one DMA engine; 2: one per direction
  bool implicit_sync = false;  // a d2h copy waits until every kernel issued before it has ended
};

// What an operation is. A MappedKernel reads its input and writes its output over the link while it runs
// (device-mapped host memory, eq. 6); a MappedD2H is a kernel's output written through mapped memory, which
// uses no copy engine and is not held back by implicit synchronisation (the Hybrid strategy).
enum class OverlapOpKind { H2D, Kernel, D2H, MappedKernel, MappedD2H };

// One operation. Values are indices into the engine's inputs; -1 for none.
struct OverlapOp {
  OverlapOpKind kind = OverlapOpKind::Kernel;
  int stream = 0;
  std::string label;
  int bytes = -1;    // H2D, D2H, MappedD2H: bytes; MappedKernel: bytes read
  int bytes_out = -1;  // MappedKernel: bytes written
  int time = -1;     // Kernel, MappedKernel: compute time
  std::vector<int> after;  // operations (earlier in issue order) this one waits for, besides its stream's previous one
};

// The link parameters per direction, as indices into the inputs: L+o, bandwidth (1 / G) and gap g.
struct OverlapLink {
  int lo = -1, bw = -1, gap = -1;
};

// One interval of the schedule: which engine ran which operation of which stream, when.
struct OverlapInterval {
  std::string engine;  // "h2d copy engine", "copy engine", "d2h copy engine", "compute", "mapped d2h"
  int stream = 0;
  int op = 0;
  double start_s = 0, end_s = 0;
};

struct OverlapSchedule {
  double makespan_s = 0;
  std::vector<OverlapInterval> intervals;  // in issue order
  std::string error;
};

// The engine. Operations are listed in issue order (the order the host enqueues them). Each engine (copy
// engine(s), compute, mapped d2h channel) runs its operations in issue order, one at a time. An operation
// starts when its stream's previous operation and everything in `after` have ended and its engine is free.
// A copy costs its bytes / bandwidth plus L+o, or only the gap g when it follows a copy of the same direction
// on the same engine without idling (LogGP, section V): end = max(prev_end + g, ready + L+o) + bytes / bw,
// with L+o in place of g after a copy of the other direction. A mapped kernel takes eq. 6:
// max(L+o_hd + B_hd / bw_hd + L+o_dh, L+o_hd + t + L+o_dh, L+o_hd + L+o_dh + B_dh / bw_dh).
class OverlapEngine : public ir::Engine {
 public:
  OverlapEngine(OverlapDevice device, OverlapLink h2d, OverlapLink d2h, OverlapLink mapped_d2h,
                std::vector<OverlapOp> ops, size_t input_count,
                std::vector<std::pair<std::string, int>> reported = {});
  std::string name() const override { return "overlap"; }
  double time(std::span<const double> inputs) const override;
  ir::EngineResult run(std::span<const double> inputs) const override;
  std::string describe() const override;
  OverlapSchedule schedule(std::span<const double> inputs) const;
  const std::vector<OverlapOp>& ops() const { return ops_; }
  int streams() const;

 private:
  OverlapDevice device_;
  OverlapLink h2d_, d2h_, mapped_d2h_;
  std::vector<OverlapOp> ops_;
  size_t input_count_;
  std::vector<std::pair<std::string, int>> reported_;  // times shown beside the result (bounds), by input index
};

}  // namespace gpm::engines
