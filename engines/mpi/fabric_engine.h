// fabric_engine.h: MPI operations priced on the machine's fabric (`comm_model = fabric`): every message of a step is
// a flow routed over the declared links and the step's flows share them (the congestion engine), so the GPUs'
// links, the switches, the NICs and the cluster's network set the time instead of fitted constants.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engines/congestion/engine.h"
#include "engines/mpi/pattern.h"
#include "ir/engine.h"
#include "ir/topology.h"

namespace gpm::mpi {

struct NodeTranslation;

// Where each rank's bytes start and end: its GPU, and with host staging the host memory nearest to that GPU.
struct FabricPlacement {
  std::vector<int> gpu;     // per rank: a component
  std::vector<int> memory;  // per rank (staged transport only): a component
};

// What the fabric engines of one lowering may share (FabricCommEngine::build): one router, made with the lowering's
// link costs, and the topology's component names (null: each engine makes its own).
struct FabricShared {
  ir::Router* router = nullptr;
  std::shared_ptr<const std::vector<std::string>> names;
  // Whether `flows` flows may be built (false with `why` set: more than memory allows); null: no limit. build()
  // asks it for the flows it is about to build (with the fast path: one period's) and, when refused, returns null
  // with `error` set to `why` and *too_large (when given) set.
  std::function<bool(uint64_t flows, std::string& why)> flows_fit;
  bool* too_large = nullptr;
};

// Inputs: [tau, when the flows cross links of PCIe arbitration] [overhead: software latency of each step's messages]
// [staging chunk: with host staging, bytes of each piece a message is staged in; 0: whole messages]
// [bandwidth of each directed link of link_inputs()] [latency of each of them] [sizes: face, edge, corner for a
// halo; the operation's bytes and its pipeline segment (0: the fastest segment count) for a collective].
class FabricCommEngine : public ir::Engine {
 public:
  struct Operation {
    std::string what;       // "halo" or the collective
    std::string algorithm;  // empty for a halo
    std::string chosen_by;  // who chose the algorithm when not the operation (an MPI library), or empty
    Transport transport = Transport::GpuDirect;  // GpuDirect: GPU to GPU; Staged: through host memory
    bool staging_chunks = false;  // Staged, with a staging chunk given: its three phases pipelined in pieces
    bool tcp = false;  // Staged over TCP: the network links' bandwidth inputs are TCP/IP's payload rate (lowering)
    int64_t ranks = 0, nodes = 0, ranks_per_node = 0;
    bool halo = false;
    Grid grid;
  };
  // A collective's rounds (collective_rounds with keep_messages) or a halo's messages (then `rounds` is empty).
  // Null with `error` set (and `error_step` naming the step) when a message has no route or the flows of a step
  // cross links of different arbitrations. Where a translation of the cluster's nodes maps the machine, the
  // placement, the rounds and the routes onto themselves (fabric_symmetry.h, GPU to GPU collectives only), each
  // round's flows are those of the ranks of one period, each route taken to its links' orbit representatives: the
  // same max-min problem as the whole round's, link by link (symmetric_period() says so); otherwise every flow.
  // `shared`, when given, is what the engines of one lowering share: one router (made with `cost`, its routes kept)
  // and the components' names. `fast_path` false builds every flow (an operation whose messages must be written
  // out, unrolled()).
  // Off: every phase is simulated on its inputs as given, nothing kept (for a test of what keeping gives).
  void keep_makespans(bool on) { keep_makespans_ = on; }
  using Shared = FabricShared;
  static std::shared_ptr<FabricCommEngine> build(const ir::Topology& topology,
                                                 const engines::congestion::FabricMap& fabrics,
                                                 const ir::LinkCostFn& cost, Operation op,
                                                 const FabricPlacement& placement, const std::vector<Round>& rounds,
                                                 const std::vector<HaloMessage>& halo, std::string& error,
                                                 const Shared& shared = {}, bool fast_path = true);

  std::string name() const override { return "mpi-fabric"; }
  double time(std::span<const double> inputs) const override;
  ir::EngineResult run(std::span<const double> inputs) const override;
  std::string describe() const override;

  bool uses_tau() const { return uses_tau_; }
  // The directed links (link, direction) whose bandwidths, then latencies, are inputs.
  const std::vector<std::pair<int, int>>& link_inputs() const { return links_; }
  int size_inputs() const { return op_.halo ? kSizeKinds : 2; }
  // The nodes of one period when the rounds are solved on one period (0: every flow is built).
  int64_t symmetric_period() const { return period_; }
  // Flows built, over every step and phase (with the fast path: those of one period).
  int64_t flows_built() const;
  // Whether the operation's messages cross the topology's directed link (link, direction): one of link_inputs(), or
  // with the fast path a link of the same orbit as one of them (the period's translates carry the same messages).
  bool crosses(int link, int direction) const;

  // The operation written out as phases of flows in the order they run, for one engine that shares links among
  // this operation and other transfers (lower/lower_par_copies.cpp): each repeat of each step, its phases one after
  // another. A phase's flows start together once the phase before has ended, after the messages' software overhead
  // (the first phase of a step) and the latency of the phase's slowest route, as step_time prices them. Empty, with
  // `why` saying so, where the operation cannot be written so: a pipelined step (its segment count is chosen at
  // evaluation), the fast path (one period's flows stand for all), PCIe arbitration, a repeat that is not a whole
  // number, or more than `max_flows` flows in all. (A phase holds no message from a GPU to itself: its engine's
  // build refuses one.)
  struct PhaseView {
    const engines::congestion::CongestionEngine* engine = nullptr;  // its flows (src, dst, size_input), routed
    std::string step;            // the step's name, with "(r/n)" when it repeats
    double size_factor = 1;      // a flow's size: the size input its size_input names, times this
    const std::vector<double>* sizes = nullptr;  // an alltoallv's step: a flow's size is sizes[size_input] instead
    bool sizes_relative = false;  // ... times the size input 0 (Step::relative)
    bool first_of_step = false;  // the messages' software overhead comes before it
    const std::vector<int>* route_links = nullptr;  // its distinct routes (indices of link_inputs()), route r at
    const std::vector<int>* route_begin = nullptr;  // [route_begin[r], route_begin[r + 1]) of route_links
  };
  std::vector<PhaseView> unrolled(int64_t max_flows, std::string& why) const;
  // Where the inputs are: the software overhead, link_inputs()[i]'s latency, size input k.
  int overhead_input() const { return first_bw_ - 2; }
  int staging_chunk_input() const { return first_bw_ - 1; }
  int latency_input(int i) const { return first_bw_ + int(links_.size()) + i; }
  int size_input(int k) const { return first_bw_ + 2 * int(links_.size()) + k; }

 private:
  FabricCommEngine() = default;
  // build() with the translation `sym` (null: every flow); null without `error` when a route is not the translate
  // of its flow's in the first period (the caller then builds every flow).
  static std::shared_ptr<FabricCommEngine> build_on(const ir::Topology& topology,
                                                    const engines::congestion::FabricMap& fabrics,
                                                    const ir::LinkCostFn& cost, const Operation& op,
                                                    const FabricPlacement& placement, const std::vector<Round>& rounds,
                                                    const std::vector<HaloMessage>& halo, const NodeTranslation* sym,
                                                    std::string& error, const Shared& shared);
  // One congestion problem of a step: its flows, and for each input link of its engine the global link index.
  struct Phase {
    std::shared_ptr<engines::congestion::CongestionEngine> engine;
    std::vector<int> link_of_input;             // engine link input -> index into links_
    // Its distinct routes, as indices into links_ (for their latency): route r is route_links[route_begin[r] ..
    // route_begin[r + 1]).
    std::vector<int> route_links, route_begin;
    std::string what;                           // "device to host", "host to host", "host to device", or ""
    std::shared_ptr<struct PhaseMemo> memo;     // its makespans by inputs (phase_makespan)
  };
  struct Step {
    std::string what;
    double size_factor = 1, repeat = 1, steps_each = 1;
    int64_t pipeline_hops = 0;
    int64_t messages = 0;
    std::vector<Phase> phases;  // run one after another
    // An alltoallv's step: its messages' distinct sizes, which its flows' size inputs index (the operation's size
    // input is not used); empty otherwise. With `relative`, factors of the operation's size instead.
    std::vector<double> sizes;
    bool relative = false;
    // The sizes in bytes for the operation's size input `n`.
    std::vector<double> bytes(double n) const {
      std::vector<double> out = sizes;
      if (relative)
        for (double& b : out) b *= n;
      return out;
    }
  };
  struct StepCost {
    double time_s = 0;  // one repeat
    double repeat = 1, segments = 0, message_bytes = 0, latency_s = 0;
    std::string error;
  };
  StepCost cost_of(const Step& step, std::span<const double> inputs) const;
  // The makespan of a phase's flows for `sub` (its engine's inputs: [tau], bandwidths, sizes), kept by inputs.
  double phase_makespan(const Phase& phase, std::vector<double>& sub) const;
  // One repeat of a step with messages of `sizes` (kSizeKinds entries): its phases' latencies and makespans.
  // The directed link whose bytes over all the step's phases take longest at its bandwidth (link -1: none).
  struct Busiest {
    int link = -1;
    double bytes = 0, seconds = 0;
  };
  Busiest busiest_link(const Step& step, std::span<const double> inputs, const double* sizes) const;
  // The pieces a staged step's largest message is staged in (1 unless the operation stages in pieces).
  double chunks(const Step& step, std::span<const double> inputs, const double* sizes) const;
  double step_time(const Step& step, std::span<const double> inputs, const double* sizes, double* latency,
                   std::string* error) const;

  Operation op_;
  std::vector<Step> steps_;
  std::vector<std::pair<int, int>> links_;
  std::vector<std::pair<int, int>> link_ends_;  // per entry of links_: the components it leaves and enters
  std::shared_ptr<const std::vector<std::string>> names_;  // the components' paths, for a link's name in a report
  bool uses_tau_ = false;
  int first_bw_ = 0;  // index of the first bandwidth input
  int64_t period_ = 0, cluster_nodes_ = 0;  // the fast path's period and the cluster's nodes (0: not taken)
  std::vector<int> link_canon_;  // with the fast path: per topology link, its orbit's representative
  bool keep_makespans_ = true;
};

}  // namespace gpm::mpi
