// streams.h: the branches of a `par` as streams: each a sequence of pinned copies, kernels that take turns on their
// GPU (timed flows), fixed delays (other kernels, overheads) and `flows` blocks, the copies, kernels and flows of
// every branch flows of one congestion engine that share the machine's links and queues.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engines/congestion/engine.h"

namespace gpm::engines::congestion {

// A branch runs its items in order, as a CUDA stream does: a copy starts its L+O when the item before it ends, a
// kernel or an overhead takes its time. The lowering folds a branch's delays into the copies' start inputs (the
// delays before a copy, then its L+O: a flow `after` the branch's copy before it) and keeps the delays after the
// branch's last copy as the branch's tail. The par ends when its last branch does.
class StreamsEngine : public ir::Engine {
 public:
  // One item of a branch, for the report's timeline: a copy (its flow) or a delay (which of the delay inputs).
  struct Item {
    int flow = -1, delay = -1;
    std::string name, kind;
    bool own_start = false;  // an offload's operation: drawn from its flow's start, not from the item before it  // the operation as written; h2d, d2h, p2p (copies), flow (a block's), mpi (an MPI message), kernel (a flow where it takes turns on its GPU), overhead, d2d (a delay, or a flow where it takes turns on its GPU)
  };
  struct Branch {
    std::vector<int> flows;  // its copies' flows in the congestion engine, in order, then its block's (may be empty)
    std::vector<Item> items;  // everything it runs, in order
  };
  // Inputs: the congestion engine's (bandwidths, sizes, start inputs), then for each branch its tail (the time after
  // its last copy, or all of it without copies), then for each branch its kernels' time (E2E parts), then each
  // delay's own time (items' `delay`), which only the timeline reads.
  StreamsEngine(std::shared_ptr<const CongestionEngine> flows, std::vector<Branch> branches);

  std::string name() const override { return "streams"; }
  double time(std::span<const double> inputs) const override;
  ir::EngineResult run(std::span<const double> inputs) const override;
  std::string describe() const override;

 private:
  struct Ends {
    std::vector<double> branch_end;
    int critical = 0;  // the first branch that ends last
    double time = 0;
    std::string error;
  };
  size_t flow_inputs() const;
  Ends ends(std::span<const double> inputs, CongestionEngine::Schedule* schedule = nullptr) const;

  std::shared_ptr<const CongestionEngine> flows_;
  std::vector<Branch> branches_;
  size_t delay_inputs_ = 0;  // the delays' own times the timeline reads (one past the largest item `delay`)
};

}  // namespace gpm::engines::congestion
