// simulator.h: one thread's event loop over a congestion engine's flows, with its scratch space and step cache.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "engines/congestion/engine.h"

namespace gpm::engines::congestion {

class Simulator {
 public:
  static constexpr size_t kMaxSteps = 10'000;              // steps kept in a report
  static constexpr size_t kMaxFactorEntries = 200'000;     // and factors listed over all of them
  // `cache`: remember the rates of each set of active flows (valid while the inputs stay the same: a search).
  Simulator(const CongestionEngine& engine, std::span<const double> inputs, bool cache);
  // The makespan with each source sending in `rank` order; NaN with `error` set when no result exists.
  double run(const int* rank, CongestionEngine::Schedule* out, std::string* error);
  double bytes(int flow) const { return bytes_[size_t(flow)]; }
  // A flow's rate cap (FlowSpec::cap_input), infinite for none.
  double cap(int flow) const {
    return flow_cap_.empty() ? std::numeric_limits<double>::infinity() : flow_cap_[size_t(flow)];
  }
  // The search's fast path (flows all issued at 0, PCIe source arbitration): `queue` lists each source's flows in
  // sending order, source s at [queue_begin[s], queue_begin[s + 1]). The makespan, or NaN when flows stall.
  double run_queues(const int* queue);

 private:
  // run() for max-min sharing: each event solves again only the flows it can change (maxmin_sim.cpp).
  double run_maxmin(CongestionEngine::Schedule* out, std::string* error);
  void compute_rates(uint64_t mask);
  // The makespan, with each flow's issue, start and end copied into `out` when given.
  double finish(CongestionEngine::Schedule* out, double makespan) const;
  // The flows in flight (active_) named for an error: the first four and how many more.
  std::string stuck_flows() const;
  // A step of the schedule from t to next with the factor of each flow in flight (active_, factor_).
  void record_step(CongestionEngine::Schedule& out, double t, double next) const;
  const double* cached_rates(uint64_t mask);
  // A flow is done when what is left is a rounding error of its size or of the clock.
  bool finished(int f, double now) const {
    double left = remaining_[size_t(f)];
    return left <= 1e-9 * bytes_[size_t(f)] || (rate_[size_t(f)] > 0 && now + left / rate_[size_t(f)] <= now);
  }
  // Before a run: a flow that waits for its turn alone (FlowSpec::turn_after) is not issued before its own start.
  void init_ready() {
    ready_.assign(size_t(p_.flow_count), -std::numeric_limits<double>::infinity());
    for (int f = 0; f < p_.flow_count; ++f)
      if (e_.flows_[size_t(f)].turn_after >= 0 && e_.waits_[size_t(f)] == 1) ready_[size_t(f)] = start_[size_t(f)];
  }
  // Counts down what waits for flow or gate `f`, ended or opened at `at`: a flow waiting for nothing more is issued
  // (issue_, then `issued(flow)`) at the latest of its waits' ends, each plus its start delay, or plus its turn's gap
  // for the flow before it on its copy engine (FlowSpec::turn_after); a gate waiting for nothing more opens in turn.
  template <class Issued>
  void release(int f, double at, Issued&& issued) {
    for (int i = e_.dependent_begin_[size_t(f)]; i < e_.dependent_begin_[size_t(f) + 1]; ++i) {
      int d = e_.dependents_[size_t(i)];
      if (d < p_.flow_count)
        ready_[size_t(d)] =
            std::max(ready_[size_t(d)], at + (e_.dependent_turn_[size_t(i)] ? turn_gap_[size_t(d)] : start_[size_t(d)]));
      if (--waiting_[size_t(d)] > 0) continue;
      if (d >= p_.flow_count) {
        release(d, at, issued);
      } else {
        issue_[size_t(d)] = ready_[size_t(d)];
        issued(d);
      }
    }
  }
  // Sets each duplex link's capacity from whether its reverse has a flow in flight (`busy(link)`); true when one
  // changed (CongestionEngine::Duplex), with the changed links added to `changed` when given.
  template <class Busy>
  bool apply_duplex(Busy&& busy, std::vector<int>* changed) {
    bool any = false;
    for (size_t j = 0; j < e_.duplex_.size(); ++j) {
      const auto& d = e_.duplex_[j];
      double want = busy(d.reverse) ? duplex_cap_[j] : plain_cap_[size_t(d.link)];
      if (cap_[size_t(d.link)] == want) continue;
      cap_[size_t(d.link)] = want;
      any = true;
      if (changed) changed->push_back(d.link);
    }
    return any;
  }
  const CongestionEngine& e_;
  const Plan& p_;
  double tau_ = 0;
  std::vector<double> cap_, bytes_, start_, path_bw_;
  std::vector<double> plain_cap_, duplex_cap_;  // with duplex links: each link's own input, each duplex input
  Workspace ws_;
  std::vector<double> remaining_, issue_, begin_, end_, rate_, factor_;
  std::vector<uint8_t> active_, done_;
  std::vector<int> head_;
  std::vector<int> timed_;  // the kernels' flows (FlowSpec::timed)
  std::vector<int> queue_head_;  // per queue (FlowSpec::queue): the flow moving (or paused: FlowSpec::paused_by), or -1
  std::vector<std::vector<int>> pauses_;  // per queue: the flows that wait while it has a flow moving (paused_by)
  std::vector<double> flow_cap_;  // per flow: its rate cap (FlowSpec::cap_input), infinite for none; empty: no caps
  std::vector<int> capped_;       // the flows with a cap
  std::vector<int> waiting_;     // per flow, then per gate: what it waits for that has not ended or opened
  std::vector<double> ready_;    // per flow: the latest of its ended waits' ends plus their delays (release)
  std::vector<double> turn_gap_;  // per flow: the gap after its turn_after's end (FlowSpec::turn_gap_input), or 0
  std::vector<uint64_t> slot_of_flow_;
  std::vector<int32_t> direct_;
  std::vector<double> by_source_pool_, scratch_;
  std::string input_error_;
  bool use_cache_;
  std::unordered_map<uint64_t, uint32_t> cache_;
  std::vector<double> pool_;
};

}  // namespace gpm::engines::congestion
