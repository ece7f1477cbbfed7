// plan.h: the flat, immutable form of a congestion problem (flows, their paths, switch ports) and the arbitration models.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpm::engines::congestion {

// How the bandwidth of shared links is divided among the flows crossing them.
enum class Arbitration {
  Pcie,    // Martinasso et al., PCIe congestion-aware model, Algorithm 1 (section V)
  MaxMin,  // max-min fair sharing by progressive filling
};

// One output port of a switch or root complex that flows of the problem leave through. Its entries are the
// (flow, hop) pairs that leave through it, sorted by the input port (directed link) they entered by, so that each
// super communication C(e, l) of the paper is a contiguous run.
struct Port {
  int out_link = 0;     // compact directed link
  bool at_root = false; // the port belongs to the root complex
  int begin = 0, end = 0;  // into Plan::entries
};

struct PortEntry {
  int flow = 0;
  int hop = 0;      // global hop index (into Plan::hop_link)
  int in_link = 0;  // the directed link the flow entered the switch by
  bool crossed_root = false;  // the flow has crossed the root complex at or before this switch
};

// Flows enter a switch through one input port: the head-of-line groups of eq. 8.
struct InputGroup {
  int begin = 0, end = 0;  // into Plan::input_hops
};

struct Plan {
  Arbitration arbitration = Arbitration::MaxMin;
  int flow_count = 0;
  int link_count = 0;    // directed links used by some flow (compact ids 0..link_count-1)
  int source_count = 0;  // distinct sources (compact ids)
  std::vector<int> path_begin;  // flow f's hops are [path_begin[f], path_begin[f + 1])
  std::vector<int> hop_link;    // compact directed link of each hop, source to destination
  std::vector<int> hop_flow;    // the flow of each hop
  std::vector<int> source;      // compact source of each flow
  // PCIe only. Step B visits `up` (upstream ports, deepest switch first); step C visits `down` (root first).
  std::vector<Port> up, down;
  std::vector<PortEntry> entries;
  std::vector<InputGroup> input_groups;
  std::vector<int> input_hops;  // global hop indices (the hop leaving the switch) grouped by input port
};

// The links of a progressive filling by the level at which each fills, least first (ties by link index, so the
// order is deterministic). When a flow freezes, the fill level of each other link it crosses can only rise (the
// link's spare capacity is shared by fewer flows), so an entry is a lower bound of its link's level: an entry found
// below it is put back with the current level when it reaches the top, not each time the link changes.
// `level(l)` is link l's current fill level; `unfrozen[l]` its count of flows still growing.
class FillQueue {
 public:
  template <class Level>
  void start(std::span<const int> links, const int* unfrozen, Level level) {
    heap_.clear();
    for (int l : links)
      if (unfrozen[l] > 0) heap_.emplace_back(level(l), l);
    std::make_heap(heap_.begin(), heap_.end(), later);
  }
  // The next level at which a link fills, without taking it; false when no link has flows still growing.
  template <class Level>
  bool peek(const int* unfrozen, Level level, double& at) {
    if (!settle(unfrozen, level)) return false;
    at = heap_.front().first;
    return true;
  }
  // The next level at which links fill, with every link full at it (to within 1e-12 of its capacity) in `full`;
  // false when no link has flows still growing.
  template <class Level>
  bool next(const int* unfrozen, const double* capacity, Level level, double& at, std::vector<int>& full) {
    if (!settle(unfrozen, level)) return false;
    at = heap_.front().first;
    full.assign(1, pop());
    while (settle(unfrozen, level)) {
      int l = heap_.front().second;
      if ((heap_.front().first - at) * unfrozen[l] > 1e-12 * capacity[l]) break;
      full.push_back(pop());
    }
    return true;
  }

 private:
  // The heap's order as a type, so that the standard heap algorithms inline it.
  struct Later {
    bool operator()(const std::pair<double, int>& a, const std::pair<double, int>& b) const {
      return a.first > b.first || (a.first == b.first && a.second > b.second);
    }
  };
  static constexpr Later later{};
  // The top entry once it is current, or false when no link has flows still growing.
  template <class Level>
  bool settle(const int* unfrozen, Level level) {
    while (!heap_.empty()) {
      auto [key, l] = heap_.front();
      if (unfrozen[l] > 0 && key == level(l)) return true;
      std::pop_heap(heap_.begin(), heap_.end(), later);
      heap_.pop_back();
      if (unfrozen[l] > 0) {
        heap_.emplace_back(level(l), l);
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
    return false;
  }
  int pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    int l = heap_.back().second;
    heap_.pop_back();
    return l;
  }
  std::vector<std::pair<double, int>> heap_;
};

// Scratch space reused between steps so that the event loop does not allocate.
struct Workspace {
  std::vector<double> running;  // per flow: factor so far along its path
  std::vector<double> group_in, group_out;
  std::vector<uint8_t> group_root;
  std::vector<double> value;    // per hop: congestion factor after the port (PCIe), or per flow (max-min)
  std::vector<double> raised;   // per hop: factor after eq. 9
  std::vector<double> hol;      // per flow: eq. 8 factor, or a large value
  std::vector<double> later;    // per hop: the least factor at the flow's later ports
  std::vector<double> remaining_capacity;  // per link (max-min): at link_level
  std::vector<double> link_level;          // per link: the level when its count of unfrozen flows last changed
  FillQueue fill;
  std::vector<int> full_links, all_links;
  std::vector<int> unfrozen_on_link;
  std::vector<int> link_begin, link_fill, link_flows;  // active flows per link (max-min)
  std::vector<uint8_t> frozen;
  std::vector<std::pair<double, int>> caps;  // max-min: the active flows' rate caps, least first (cap, flow)
  // Per link (max-min): 1 where another link carries exactly the same flows at no more capacity, so that this one
  // never fills first and progressive filling can leave it out (mark_redundant_links; empty: none left out).
  std::vector<uint8_t> redundant;
  std::vector<int> kept_begin, kept_link;  // each flow's hops on links not left out, as Plan::path_begin/hop_link
  void reserve(const Plan& plan);
};

// The factors of Table I's columns, for tests and reports: after steps B, C, D (eq. 8) and D (eq. 9).
struct PcieTrace {
  std::vector<double> after_b, after_c, after_eq8, after_eq9;
};

// Eq. 5-6: the factor by which every flow leaving an upstream port is scaled, given the incoming factor R of each
// super communication: 1 when they fit (sum <= 1), else 1 / sum.
double upstream_scale(std::span<const double> group_in);

// Eq. 7: the outgoing factor R' of each super communication at a downstream port. `crosses_root[i]` says whether
// group i holds a flow that crossed the root complex. Arbitration applies when the incoming factors sum to more
// than 1, and always at a port of the root complex itself (a lone copy through it gets 1 - tau).
void downstream_share(std::span<const double> group_in, std::span<const uint8_t> crosses_root, double tau,
                      bool at_root, std::span<double> out);

// Algorithm 1, steps B-D: the congestion factor of each flow given which flows are active after step A
// (source arbitration). Inactive flows get 0.
void pcie_factors(const Plan& plan, const uint8_t* active, double tau, double* factor, Workspace& ws,
                  PcieTrace* trace = nullptr);

// Marks the links max-min sharing can leave out at these capacities: of the links crossed by exactly the same flows
// (a GPU's PCIe link, its NIC's and the NIC's cable carry the same messages), all but the one of least capacity
// (the first such in link order), whose constraint implies theirs.
void mark_redundant_links(const Plan& plan, const double* capacity, Workspace& ws);

// Max-min fair rates (bytes/s) of the active flows by progressive filling over the directed links' capacities;
// `flow_cap` (per flow, infinite for none; null: no caps): a flow stops growing at its cap as at a full link.
void maxmin_rates(const Plan& plan, const uint8_t* active, const double* capacity, double* rate, Workspace& ws,
                  const double* flow_cap = nullptr);

}  // namespace gpm::engines::congestion
