// mpi_engine.cpp: the communication engine: time, terms and the detail report of a halo or a collective.
#include "engines/mpi/mpi_engine.h"

#include <cmath>
#include <fmt/format.h>

namespace gpm::mpi {

std::shared_ptr<CommEngine> CommEngine::halo(Choice choice, const Layout& layout, const Grid& grid,
                                             std::string& error) {
  std::shared_ptr<CommEngine> e(new CommEngine());
  e->choice_ = choice;
  e->halo_ = true;
  e->what_ = "halo";
  e->grid_ = grid;
  e->ranks_ = layout.ranks;
  e->nodes_ = layout.nodes;
  e->ranks_per_node_ = layout.ranks_per_node;
  e->ranks_per_socket_ = layout.ranks_per_socket;
  e->leaves_ = layout.leaves();
  PatternStats stats = halo_pattern(layout, grid, error);
  if (!error.empty()) return nullptr;
  e->rounds_.push_back(Round{std::move(stats), 1, 1, "halo exchange", 0, 1, {}, {}, {}, {}});
  return e;
}

std::shared_ptr<CommEngine> CommEngine::collective(Choice choice, const Layout& layout, Collective c, Algorithm a,
                                                   NodeAware node_aware, Variant variant) {
  std::shared_ptr<CommEngine> e(new CommEngine());
  e->choice_ = choice;
  e->what_ = collective_name(c);
  e->algorithm_ = algorithm_title(a, node_aware.on && has_node_aware(c), variant, c);
  e->ranks_ = layout.ranks;
  e->nodes_ = layout.nodes;
  e->ranks_per_node_ = layout.ranks_per_node;
  e->ranks_per_socket_ = layout.ranks_per_socket;
  e->leaves_ = layout.leaves();
  e->rounds_ = collective_rounds(layout, c, a, false, 1, node_aware, variant);
  return e;
}

std::shared_ptr<CommEngine> CommEngine::point_to_point(Choice choice, const Layout& layout, std::string what,
                                                       std::vector<Round> rounds) {
  std::shared_ptr<CommEngine> e(new CommEngine());
  e->choice_ = choice;
  e->what_ = std::move(what);
  e->ranks_ = layout.ranks;
  e->nodes_ = layout.nodes;
  e->ranks_per_node_ = layout.ranks_per_node;
  e->ranks_per_socket_ = layout.ranks_per_socket;
  e->leaves_ = layout.leaves();
  e->rounds_ = std::move(rounds);
  return e;
}

std::shared_ptr<CommEngine> CommEngine::alltoallv(Choice choice, const Layout& layout, Algorithm a,
                                                  std::vector<Round> rounds) {
  auto e = point_to_point(choice, layout, "alltoallv", std::move(rounds));
  e->algorithm_ = algorithm_name(a);
  return e;
}

// A round's rows of messages of their own sizes in bytes (factors of the operation's size where the round says so).
std::vector<SizedRow> CommEngine::rows_of(const Round& round, std::span<const double> inputs) const {
  if (!round.sizes_relative) return round.sized_rows;
  const double n = inputs[in::kMachineInputs];
  std::vector<SizedRow> rows = round.sized_rows;
  for (auto& row : rows)
    for (auto& [route, bytes, count] : row) bytes *= n;
  return rows;
}

std::array<double, kSizeKinds> CommEngine::sizes_of(const Round& round, std::span<const double> inputs) const {
  const double* sizes = inputs.data() + in::kMachineInputs;
  if (halo_) return {sizes[0], sizes[1], sizes[2]};
  return {sizes[0] * round.size_factor, 0, 0};
}

// A pipelined round (a segmented chain, pattern.cpp) of h hops sends n bytes as S segments of n / S in h + S - 1
// steps. With a `segment` size, S = ceil(n / segment); without one, S is the power of two (1, 2, 4, .. up to
// one byte per segment) that gives the least time, as a tuned library would choose its segment size; the first
// such S wins a tie, so the choice is deterministic.
CommEngine::RoundCost CommEngine::cost_of(const Round& round, std::span<const double> inputs) const {
  RoundCost c;
  c.sizes = sizes_of(round, inputs);
  c.repeat = round.repeat;
  if (!round.sized_rows.empty()) {
    c.pattern = sized_pattern_time(round.stats, rows_of(round, inputs), choice_, inputs);
    return c;
  }
  if (round.pipeline_hops <= 0) {
    c.pattern = pattern_time(round.stats, choice_, inputs, c.sizes);
    return c;
  }
  const double n = c.sizes[0], segment = inputs[size_t(in::kMachineInputs) + 1];
  auto price = [&](double segments) {
    RoundCost t;
    t.segments = segments;
    t.repeat = double(round.pipeline_hops) + segments - 1;
    t.sizes = {n / segments, 0, 0};
    t.pattern = pattern_time(round.stats, choice_, inputs, t.sizes);
    return t;
  };
  if (n <= 0) return price(1);
  if (segment > 0) return price(std::max(1.0, std::ceil(n / segment)));
  RoundCost best = price(1);
  for (double segments = 2; segments <= n && segments <= 0x1p40 && best.pattern.error.empty(); segments *= 2) {
    RoundCost t = price(segments);
    if (!t.pattern.error.empty()) return t;
    if (t.repeat * t.pattern.time_s < best.repeat * best.pattern.time_s) best = std::move(t);
  }
  return best;
}

double CommEngine::time(std::span<const double> inputs) const {
  double t = 0;
  for (const Round& round : rounds_) {
    RoundCost c = cost_of(round, inputs);
    if (!c.pattern.error.empty()) return NAN;
    t += c.repeat * c.pattern.time_s;
  }
  return t;
}

static const char* kKindNames[kSizeKinds] = {"face", "edge", "corner"};

ir::EngineResult CommEngine::run(std::span<const double> inputs) const {
  ir::EngineResult r;
  auto& d = r.detail;
  d["operation"] = what_;
  if (!algorithm_.empty()) d["algorithm"] = algorithm_;
  if (!chosen_by_.empty()) d["chosen_by"] = chosen_by_;
  d["comm_model"] = comm_model_name(choice_.model);
  d["transport"] = transport_name(choice_.transport);
  d["ranks"] = ranks_;
  d["nodes"] = nodes_;
  d["ranks_per_node"] = ranks_per_node_;
  d["ranks_per_socket"] = ranks_per_socket_;
  if (choice_.tree.present) {
    d["nodes_per_leaf"] = choice_.tree.nodes_per_leaf;
    d["leaves"] = leaves_;
  }
  if (halo_) {
    d["grid"] = grid_.dims == 3 ? nlohmann::ordered_json::array({grid_.extent[0], grid_.extent[1], grid_.extent[2]})
                                : nlohmann::ordered_json::array({grid_.extent[0], grid_.extent[1]});
    d["periodic"] = grid_.periodic;
    d["neighbours"] = grid_.neighbours;
  }
  auto rounds = nlohmann::ordered_json::array();
  double total = 0;
  bool fell_back = false;
  double k_inter_node = 0, k_off_leaf = 0, steps = 0, segments = 0;
  for (const Round& round : rounds_) {
    RoundCost cost = cost_of(round, inputs);
    const PatternTime& pt = cost.pattern;
    const std::array<double, kSizeKinds>& sizes = cost.sizes;
    if (!pt.error.empty()) {
      r.error = pt.error;
      r.time_s = NAN;
      return r;
    }
    total += cost.repeat * pt.time_s;
    steps += cost.repeat * round.steps_each;
    if (round.pipeline_hops > 0) segments = cost.segments;
    fell_back = fell_back || pt.fell_back;
    k_inter_node = std::max(k_inter_node, pt.k_used[int(Locality::InterNode)]);
    k_off_leaf = std::max(k_off_leaf, pt.k_used[kOffLeaf]);
    nlohmann::ordered_json j;
    j["step"] = round.what;
    j["repeat"] = cost.repeat;
    if (round.pipeline_hops > 0) {
      j["hops"] = round.pipeline_hops;
      j["segments"] = cost.segments;
    }
    j["K_inter"] = round.stats.k_inter;
    j["K_total"] = round.stats.k_total;
    j["k_prime"] = round.stats.k_prime;
    j["k"] = {{"intra_socket", pt.k_used[0]}, {"inter_socket", pt.k_used[1]}, {"inter_node", pt.k_used[2]}};
    if (choice_.tree.present) {
      j["K_off_leaf"] = round.stats.k_offleaf;
      j["K_leaf_total"] = round.stats.k_leaf_total;
      j["k"]["off_leaf"] = pt.k_used[kOffLeaf];
    }
    auto msgs = nlohmann::ordered_json::array();
    if (pt.slowest_row >= 0) {
      // Messages of their own sizes (an alltoallv): the slowest rank's, by route and size.
      const SizedRow row = rows_of(round, inputs)[size_t(pt.slowest_row)];
      for (size_t i = 0; i < row.size(); ++i) {
        const auto& [route, bytes, count] = row[i];
        nlohmann::ordered_json m;
        m["locality"] = locality_name(route == kOffLeaf ? Locality::InterNode : Locality(route));
        if (route == kOffLeaf) m["off_leaf"] = true;
        m["count"] = count;
        m["bytes"] = bytes;
        m["protocol"] = protocol_name(pt.row_protocol[i]);
        msgs.push_back(m);
      }
    }
    for (int route = 0; route < kRoutes && pt.slowest_row < 0; ++route)
      for (int k = 0; k < kSizeKinds; ++k) {
        size_t i = size_t(route * kSizeKinds + k);
        if (!pt.slowest[i]) continue;
        nlohmann::ordered_json m;
        m["locality"] = locality_name(route == kOffLeaf ? Locality::InterNode : Locality(route));
        if (route == kOffLeaf) m["off_leaf"] = true;
        if (halo_) m["kind"] = kKindNames[k];
        m["count"] = pt.slowest[i];
        m["bytes"] = sizes[size_t(k)];
        m["protocol"] = protocol_name(pt.protocol[i]);
        msgs.push_back(m);
      }
    j["slowest_rank_messages"] = msgs;
    j["time_s"] = pt.time_s;
    rounds.push_back(j);
  }
  d["rounds"] = rounds;
  if (fell_back) d["note"] = "max-rate has no fit for some messages; the postal model prices them (E2E Tables 3, 4: N/A)";
  r.time_s = total;
  if (!rounds_.empty()) {
    const PatternStats& s = rounds_[0].stats;
    if (halo_) {
      r.terms.push_back({"K_inter", double(s.k_inter), support::Dim::count()});
      r.terms.push_back({"K_total", double(s.k_total), support::Dim::count()});
    } else {
      r.terms.push_back({"steps", steps, support::Dim::count()});
      if (segments > 0) r.terms.push_back({"segments", segments, support::Dim::count()});
    }
  }
  if (choice_.model != CommModel::Postal) r.terms.push_back({"k (inter-node)", k_inter_node, support::Dim::count()});
  if (choice_.tree.present && choice_.model != CommModel::Postal && k_off_leaf > 0)
    r.terms.push_back({"k (off-leaf)", k_off_leaf, support::Dim::count()});
  return r;
}

std::string CommEngine::describe() const {
  std::string s = fmt::format("{}{} over {} ranks on {} nodes ({} per node, {} per socket); {}, {}", what_,
                              algorithm_.empty() ? "" : " (" + algorithm_ + ")", ranks_, nodes_, ranks_per_node_,
                              ranks_per_socket_, comm_model_name(choice_.model), transport_name(choice_.transport));
  if (choice_.tree.present)
    s += fmt::format("; fat tree of {} nodes per leaf, {} levels ({} leaves used)", choice_.tree.nodes_per_leaf,
                     choice_.tree.levels, leaves_);
  for (const Round& r : rounds_) {
    std::string repeat = r.pipeline_hops > 0 ? fmt::format("({} + S - 1)", r.pipeline_hops) : fmt::format("{}", r.repeat);
    s += fmt::format("\n{} x{}: K_inter {} K_total {} k' {}", r.what, repeat, r.stats.k_inter, r.stats.k_total,
                     r.stats.k_prime);
    if (choice_.tree.present)
      s += fmt::format(" K_off_leaf {} K_leaf_total {} k_leaf {}", r.stats.k_offleaf, r.stats.k_leaf_total,
                       r.stats.k_leaf);
  }
  return s;
}

}  // namespace gpm::mpi
