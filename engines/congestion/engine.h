// engine.h: the congestion engine: a dynamic congestion graph of flows over the node's links (event loop), and
// the search over the orders in which each source sends its flows.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engines/congestion/plan.h"
#include "ir/engine.h"
#include "ir/ir.h"
#include "ir/topology.h"

namespace gpm::engines::congestion {

// A flow as the app describes it.
struct FlowSpec {
  std::string name;      // its label, or "SRC -> DST"
  int src = -1, dst = -1;  // components
  int after = -1;        // the flow whose end starts this one, or -1
  std::vector<int> also_after;  // further flows, earlier in the block, it waits for: it starts when the last ends
  // Groups (the messages of one step of an MPI operation): a flow of group `group` (-1: none), and a flow that waits
  // for every flow of group `after_group` (all earlier in the block), as if they were all in also_after, at the cost
  // of one wait (the engine's gate for the group) instead of one per flow.
  int group = -1, after_group = -1;
  bool has_start = false;  // its start time is an input (else 0); with `after`, a delay after that flow ends
  int size_input = -1;   // which of the block's size inputs is its size (flows of a pattern share one); -1: its own
  int start_input = -1;  // with has_start: which of the start inputs is its start; -1: its own
  // Max-min only: flows of one queue (a GPU's copy engine) move one at a time, the first issued first (ties by flow
  // order); one issued while another of its queue moves waits for it to end. -1: none.
  int queue = -1;
  // A kernel of a `par`'s stream (StreamsEngine): it crosses no link (src is dst, its GPU), its size input is its
  // time in seconds, and it moves at one unit per second while it runs, so it ends that long after it starts; with
  // `queue` (its GPU's compute), the kernels of one GPU run one at a time, as copies take turns on a copy engine.
  bool timed = false;
  // Max-min only: a rate the flow never exceeds, whatever its links leave it (a pageable copy: the pipeline of staging
  // copies through host memory and DMA transfers, AHEAD eq. 9): which of the cap inputs; -1: none.
  int cap_input = -1;
  // Max-min only: a queue whose moving flow stops this one (it keeps its bytes and goes on when that queue has no
  // flow moving): a pageable copy's DMA transfers wait while a pinned copy holds their copy engine. -1: none.
  int paused_by = -1;
  // A copy that the host enqueued after `turn_after` (an earlier flow of its queue, its GPU's copy engine, which runs
  // its copies in the order enqueued) starts no earlier than that flow's end plus gap input `turn_gap_input`,
  // whatever its other waits and their delay (with none, its own start): LogGP's gap g between back-to-back copies
  // of one direction, or L+o after a copy of the other (van Werkhoven et al. section V). -1: none.
  int turn_after = -1, turn_gap_input = -1;
};

// Which arbitration each link of the topology belongs to (-1: none declared, max-min applies).
struct FabricMap {
  std::vector<int> link_arbitration;  // per ir::Link: int(Arbitration) or -1
};

// What went wrong building a plan, and for which flow (-1: the whole block).
struct BuildError {
  int flow = -1;
  std::string message;
};

// The structure of one `flows` block: built once by the lowering, immutable and thread-safe afterwards.
// Inputs, in order: tau (PCIe only), the bandwidth of each directed link used (link_inputs()), the sizes
// (size_input_count(): one per written flow, one per pattern), and the start times (start_input_count()).
class CongestionEngine : public ir::Engine {
 public:
  // Routes every flow (ir::Router: fewest links, then latency and bandwidth from `cost`, then component order;
  // no flow passes through a GPU) and builds the plan; on failure returns null with `error` set.
  static std::shared_ptr<CongestionEngine> build(const ir::Topology& topology, const FabricMap& fabrics,
                                                 std::vector<FlowSpec> flows, bool unordered, BuildError& error,
                                                 const ir::LinkCostFn& cost = {});
  // The same with each flow's route already found (nullopt: none), by a router shared among many engines, and the
  // topology's component names shared with them (many engines on one large machine: the MPI fabric model).
  using Routes = std::vector<std::optional<std::vector<ir::Hop>>>;
  static std::shared_ptr<CongestionEngine> build(const ir::Topology& topology, const FabricMap& fabrics,
                                                 std::vector<FlowSpec> flows, bool unordered, BuildError& error,
                                                 const Routes& routes,
                                                 std::shared_ptr<const std::vector<std::string>> names);

  // How much of a block `run` lists in its detail: by default every flow up to 10,000, every step and every link
  // (a JSON report). A command that writes only the table (gpmc eval's default) sets the table's counts before
  // evaluating, and the detail then lists those and says how many there are (`flows_total`, `steps_total`,
  // `links_total`): building JSON for thousands of flows the table never shows cost a 4,032-flow block two thirds of
  // its evaluation. Process-wide, set before any evaluation and read only after.
  // `factors`: the factors listed per step (the step's first active flows; `factors_total` says how many it has).
  struct Listing {
    size_t flows = 10'000, steps = SIZE_MAX, links = SIZE_MAX, factors = SIZE_MAX;
  };
  static void set_listing(const Listing& listing);

  std::string name() const override { return "congestion"; }
  double time(std::span<const double> inputs) const override;
  ir::EngineResult run(std::span<const double> inputs) const override;
  std::string describe() const override;

  const Plan& plan() const { return plan_; }
  const std::vector<FlowSpec>& flows() const { return flows_; }
  bool uses_tau() const { return plan_.arbitration == Arbitration::Pcie; }
  // The directed links whose bandwidths are inputs: (link, direction) pairs of the topology.
  const std::vector<std::pair<int, int>>& link_inputs() const { return links_; }
  bool unordered() const { return unordered_; }
  int size_input_count() const { return size_inputs_; }
  int start_input_count() const { return start_inputs_; }
  // Max-min only: directed links whose bandwidth is another while the opposite direction carries flows (a link's
  // `bw_duplex`, [WERK] Table II). After the start times, one input each: link input `link`'s bandwidth while link
  // input `reverse` has a flow in flight (its plain input otherwise). Set by the lowering before the engine is shared.
  struct Duplex {
    int link = -1, reverse = -1;
  };
  void set_duplex(std::vector<Duplex> duplex) { duplex_ = std::move(duplex); }
  const std::vector<Duplex>& duplex() const { return duplex_; }
  // Rate caps (FlowSpec::cap_input): after the duplex bandwidths, one input each.
  int cap_input_count() const { return cap_inputs_; }
  // Turn gaps (FlowSpec::turn_gap_input): after the rate caps, one input each.
  int turn_gap_input_count() const { return turn_gap_inputs_; }
  // Every input: tau, bandwidths, sizes, start times, duplex bandwidths, rate caps, turn gaps.
  size_t input_count() const {
    return (uses_tau() ? 1 : 0) + links_.size() + size_t(size_inputs_) + size_t(start_inputs_) + duplex_.size() +
           size_t(cap_inputs_) + size_t(turn_gap_inputs_);
  }
  // Flow f's route as text: `A -> B -> C`.
  std::string route_text(int f) const;

  // The search over orders: each source's flows may go in any order (the product of the permutations).
  struct SearchResult {
    uint64_t orders = 0;
    double fastest_s = 0, median_s = 0, slowest_s = 0;
    uint64_t fastest_index = 0, slowest_index = 0;
    std::vector<std::vector<int>> fastest_order;  // per source (in order of first appearance): flows in order
    std::vector<std::string> source_names;
    std::vector<double> makespans;  // every order's makespan, by order index (only when asked for)
    std::string error;
  };
  // Orders to evaluate, or UINT64_MAX when the count overflows.
  uint64_t order_count() const;
  // Evaluates every order with `threads` threads; `progress` (may be null) is bumped by orders done.
  // With `keep_makespans`, the result lists every order's makespan.
  SearchResult search(std::span<const double> inputs, int threads, std::atomic<uint64_t>* progress,
                      bool keep_makespans = false) const;
  // The two halves of `search`, for a search split over processes (gpmc search under mpirun): the makespans of
  // orders [begin, end) into makespan[i - begin], returning the first order without one (UINT64_MAX if none); why
  // that order has none; and the result from every order's makespan (`makespan` is reordered for the median).
  uint64_t search_range(std::span<const double> inputs, uint64_t begin, uint64_t end, int threads,
                        std::atomic<uint64_t>* progress, double* makespan) const;
  std::string order_error(std::span<const double> inputs, uint64_t index) const;
  SearchResult summarize(std::vector<double>& makespan, bool keep_makespans) const;
  // The per-source flow lists of order `index` (mixed radix over the sources, each a permutation index).
  std::vector<std::vector<int>> order_of(uint64_t index) const;

  // Full detail of one evaluation with each flow's FCFS rank (flows of one source sent in rank order).
  struct Schedule {
    std::vector<double> issued, start, end;
    double makespan = 0;
    struct Step {
      double start_s, end_s;
      std::vector<std::pair<int, double>> factors;  // active flow, congestion factor (rate / path bandwidth)
    };
    std::vector<Step> steps;
    size_t factor_entries = 0;  // factors listed over all steps
    bool truncated = false;     // steps or factors were left out (Simulator::kMaxSteps, kMaxFactorEntries)
    std::string error;
  };
  Schedule simulate(std::span<const double> inputs, const std::vector<int>& rank) const;

  // Congestion factors of one step with the given flows active (Table I's columns; for tests).
  PcieTrace pcie_step(const std::vector<uint8_t>& active, double tau) const;

  // Max-min events solve again only the part of the problem they can change (default); off, every event solves the
  // whole problem (maxmin_rates), for tests to compare the two. Set before the engine is shared.
  void set_incremental(bool on) { incremental_ = on; }

  // A component's path, for reports.
  const std::string& component_name(int c) const { return (*component_names_)[size_t(c)]; }
  // Each flow's place in its source's list as written.
  std::vector<int> written_rank() const;

 private:
  friend class Simulator;
  Plan plan_;
  std::vector<FlowSpec> flows_;
  std::vector<std::pair<int, int>> links_;
  std::shared_ptr<const std::vector<std::string>> component_names_;
  std::vector<std::vector<int>> by_source_;  // flows of each compact source, in block order
  std::vector<int> queue_begin_;             // source s's flows at [queue_begin_[s], queue_begin_[s + 1]) of a queue
  std::vector<std::string> source_names_;
  std::vector<int> link_near_end_;  // per compact directed link: the component it leaves
  // A compact directed link as `A -> B`, in the direction travelled.
  std::string link_name(int k) const {
    return component_name(link_near_end_[size_t(k)]) + " -> " + component_name(link_far_end_[size_t(k)]);
  }
  std::vector<int> size_input_;   // per flow: index of its size among the size inputs
  std::vector<int> start_input_;  // per flow: index of its start-time input, or -1
  int size_inputs_ = 0, start_inputs_ = 0, cap_inputs_ = 0, turn_gap_inputs_ = 0;
  std::vector<int> link_far_end_;  // per compact directed link: the component it leads to
  // Flows and gates started by flow f's end, or by gate g's opening (index flow_count + g): [begin[i], begin[i + 1]).
  // A gate opens when every flow of its group has ended (FlowSpec::after_group).
  std::vector<int> dependent_begin_, dependents_;
  std::vector<uint8_t> dependent_turn_;  // per entry of dependents_: the wait is the dependent's turn_after
  std::vector<Duplex> duplex_;
  std::vector<int> waits_;  // per flow, then per gate: what it waits for (`after`, `also_after`, a gate, a group's flows)
  bool unordered_ = false;
  bool incremental_ = true;
};

}  // namespace gpm::engines::congestion
