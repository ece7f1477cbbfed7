// fabric_engine.cpp: MPI steps as flows on the machine's links: routes, sharing by the congestion engine, the
// routes' latencies, host staging as three phases, pipelined segments, and the report of each step's busiest link.
#include "engines/mpi/fabric_engine.h"

#include "engines/mpi/fabric_routes.h"
#include "engines/mpi/fabric_symmetry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <span>

#include <fmt/format.h>

namespace gpm::mpi {

namespace cg = engines::congestion;

namespace {
const char* kKindNames[kSizeKinds] = {"face", "edge", "corner"};
constexpr size_t kMemoEntries = 1024;  // per phase; further inputs are simulated and not kept
}

// The makespans of one phase already simulated, by its inputs with the sizes scaled (phase_makespan). Engines are
// shared by the statements of a lowering and by a sweep's threads, hence the lock.
struct PhaseMemo {
  std::mutex mutex;
  std::map<std::vector<double>, double> makespan;
};

std::shared_ptr<FabricCommEngine> FabricCommEngine::build_on(const ir::Topology& topology, const cg::FabricMap& fabrics,
                                                             const ir::LinkCostFn& cost, const Operation& op,
                                                             const FabricPlacement& placement,
                                                             const std::vector<Round>& rounds,
                                                             const std::vector<HaloMessage>& halo,
                                                             const NodeTranslation* sym, std::string& error,
                                                             const Shared& shared) {
  std::shared_ptr<FabricCommEngine> e(new FabricCommEngine());
  e->op_ = op;
  if (sym) {
    e->period_ = sym->period;
    e->cluster_nodes_ = sym->nodes;
    e->link_canon_ = sym->link_canon;
  }
  std::map<std::pair<int, int>, int> global;  // (link, direction) -> index into links_
  const bool staged = e->op_.transport == Transport::Staged;

  // First every step's phases as flow lists: the step's messages (sender, receiver, size kind) as one phase of
  // flows, or three with host staging.
  struct PhaseSpec {
    const char* what;
    std::vector<cg::FlowSpec> flows;
  };
  struct StepSpec {
    Step step;
    std::vector<PhaseSpec> phases;
  };
  std::vector<StepSpec> specs;
  // With the fast path, the ranks of each flow (one phase: GPU to GPU), to check its translate's route.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> rank_pairs;
  auto add_step = [&](Step step, const std::vector<std::array<int32_t, 3>>& messages) {
    step.messages = int64_t(messages.size());
    StepSpec& spec = specs.emplace_back(StepSpec{std::move(step), {}});
    if (sym) {
      // Only the first period's senders: their translates are the other messages (find_node_translation).
      PhaseSpec& p = spec.phases.emplace_back(PhaseSpec{"", {}});
      auto& pairs = rank_pairs.emplace_back();
      for (const auto& m : messages) {
        if (m[0] >= sym->period_ranks) continue;
        cg::FlowSpec f;
        f.src = placement.gpu[size_t(m[0])];
        f.dst = placement.gpu[size_t(m[1])];
        f.size_input = m[2];
        p.flows.push_back(f);
        pairs.emplace_back(m[0], m[1]);
      }
      return;
    }
    auto flow = [&](int src, int dst, int kind) {
      cg::FlowSpec f;
      f.src = src;
      f.dst = dst;
      f.size_input = kind;
      return f;
    };
    if (!staged) {
      PhaseSpec& p = spec.phases.emplace_back(PhaseSpec{"", {}});
      for (const auto& m : messages)
        p.flows.push_back(flow(placement.gpu[size_t(m[0])], placement.gpu[size_t(m[1])], m[2]));
      return;
    }
    // GPUDirect paper, Table I and section III-c: a host-staged message is a device-to-host copy at the sender, the
    // transfer between the host buffers, and a host-to-device copy at the receiver, one after another. Two ranks
    // staging through the same host memory skip the middle transfer (the receiver copies from the buffer).
    spec.phases = {{"device to host", {}}, {"host to host", {}}, {"host to device", {}}};
    for (const auto& m : messages) {
      int a = int(m[0]), b = int(m[1]);
      spec.phases[0].flows.push_back(flow(placement.gpu[size_t(a)], placement.memory[size_t(a)], m[2]));
      if (placement.memory[size_t(a)] != placement.memory[size_t(b)])
        spec.phases[1].flows.push_back(flow(placement.memory[size_t(a)], placement.memory[size_t(b)], m[2]));
      spec.phases[2].flows.push_back(flow(placement.memory[size_t(b)], placement.gpu[size_t(b)], m[2]));
    }
  };
  if (e->op_.halo) {
    std::vector<std::array<int32_t, 3>> messages;
    messages.reserve(halo.size());
    for (const auto& m : halo) messages.push_back({m.from, m.to, int32_t(m.kind)});
    add_step(Step{"halo exchange", 1, 1, 1, 0, 0, {}, {}}, messages);
  } else {
    for (const Round& round : rounds) {
      if (!round.component_messages.empty()) {
        // Flows between adjacent components (an in-network reduction's tree), GPU to GPU transport only.
        StepSpec& spec = specs.emplace_back(StepSpec{Step{round.what, round.size_factor, round.repeat,
                                                          round.steps_each, round.pipeline_hops, 0, {}, {}},
                                                     {}});
        spec.step.messages = int64_t(round.component_messages.size());
        PhaseSpec& p = spec.phases.emplace_back(PhaseSpec{"", {}});
        for (const auto& [a, b] : round.component_messages) {
          cg::FlowSpec f;
          f.src = a;
          f.dst = b;
          f.size_input = 0;
          p.flows.push_back(f);
        }
        continue;
      }
      std::vector<std::array<int32_t, 3>> messages;
      messages.reserve(round.messages.size());
      Step step{round.what, round.size_factor, round.repeat, round.steps_each, round.pipeline_hops, 0, {}, {}};
      if (round.message_bytes.empty()) {
        for (const auto& [a, b] : round.messages) messages.push_back({a, b, 0});
      } else {
        // Each message's size input indexes the step's own table of its distinct sizes.
        step.sizes = round.message_bytes;
        step.relative = round.sizes_relative;
        std::sort(step.sizes.begin(), step.sizes.end());
        step.sizes.erase(std::unique(step.sizes.begin(), step.sizes.end()), step.sizes.end());
        for (size_t i = 0; i < round.messages.size(); ++i) {
          auto at = std::lower_bound(step.sizes.begin(), step.sizes.end(), round.message_bytes[i]);
          messages.push_back({round.messages[i].first, round.messages[i].second, int32_t(at - step.sizes.begin())});
        }
      }
      add_step(std::move(step), messages);
    }
  }

  // Then every flow's route with one router, source by source: a source's breadth-first search serves all of its
  // flows, whichever steps they belong to (an all-to-all's p - 1 steps route p sources, not p (p - 1)).
  std::vector<std::array<uint32_t, 3>> order;  // step, phase, flow
  for (uint32_t i = 0; i < specs.size(); ++i)
    for (uint32_t j = 0; j < specs[i].phases.size(); ++j)
      for (uint32_t f = 0; f < specs[i].phases[j].flows.size(); ++f) order.push_back({i, j, f});
  auto flow_at = [&](const std::array<uint32_t, 3>& at) -> const cg::FlowSpec& {
    return specs[at[0]].phases[at[1]].flows[at[2]];
  };
  std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) { return flow_at(x).src < flow_at(y).src; });
  std::vector<std::vector<cg::CongestionEngine::Routes>> routes(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    routes[i].resize(specs[i].phases.size());
    for (size_t j = 0; j < specs[i].phases.size(); ++j) routes[i][j].resize(specs[i].phases[j].flows.size());
  }
  std::optional<ir::Router> own;
  if (!shared.router) own.emplace(topology, cost);
  ir::Router& router = shared.router ? *shared.router : *own;
  MessageRouter messages(topology, router);  // between nodes, through the GPUs' nearest NICs
  for (const auto& at : order) {
    const cg::FlowSpec& f = flow_at(at);
    routes[at[0]][at[1]][at[2]] = messages.route(f.src, f.dst);
  }
  order = {};
  if (sym) {
    // The router's route of each flow's translate must be the translate of its route (the router's tie-breaks, by
    // the destination's rank among its kind, may not repeat with the period); then each hop goes to its link's
    // orbit representative, so that the first period's flows load each representative as the round loads it.
    std::vector<std::array<uint32_t, 3>> shifted;
    for (uint32_t i = 0; i < specs.size(); ++i)
      for (uint32_t f = 0; f < rank_pairs[i].size(); ++f) shifted.push_back({i, 0, f});
    auto src_of = [&](const std::array<uint32_t, 3>& at) {
      return placement.gpu[size_t(sym->rank_shift[size_t(rank_pairs[at[0]][at[2]].first)])];
    };
    std::stable_sort(shifted.begin(), shifted.end(), [&](const auto& x, const auto& y) { return src_of(x) < src_of(y); });
    for (const auto& at : shifted) {
      const auto& [a, b] = rank_pairs[at[0]][at[2]];
      const auto& mine = routes[at[0]][0][at[2]];
      int from = placement.gpu[size_t(sym->rank_shift[size_t(a)])], to = placement.gpu[size_t(sym->rank_shift[size_t(b)])];
      if (!mine || from == to) {
        if (!mine || !mine->empty()) return nullptr;
        continue;
      }
      auto theirs = messages.route(from, to);
      if (!theirs || theirs->size() != mine->size()) return nullptr;
      for (size_t h = 0; h < mine->size(); ++h)
        if ((*theirs)[h].link != sym->link_shift[size_t((*mine)[h].link)] ||
            (*theirs)[h].direction != (*mine)[h].direction)
          return nullptr;
    }
    for (auto& step : routes)
      for (auto& hops : step[0])
        if (hops)
          for (ir::Hop& hop : *hops) hop.link = sym->link_canon[size_t(hop.link)];
  }

  // Last, each phase's engine, sharing the component names.
  std::shared_ptr<const std::vector<std::string>> names = shared.names;
  if (!names) {
    auto made = std::make_shared<std::vector<std::string>>();
    for (const auto& c : topology.components) made->push_back(c.path);
    names = std::move(made);
  }
  e->names_ = names;
  for (size_t i = 0; i < specs.size(); ++i) {
    Step step = std::move(specs[i].step);
    for (size_t j = 0; j < specs[i].phases.size(); ++j) {
      PhaseSpec& spec = specs[i].phases[j];
      if (spec.flows.empty()) continue;
      cg::BuildError failed;
      auto engine = cg::CongestionEngine::build(topology, fabrics, std::move(spec.flows), false, failed, routes[i][j],
                                                names);
      routes[i][j] = {};
      if (!engine) {
        error = fmt::format("{}{}: {}", step.what, *spec.what ? fmt::format(" ({})", spec.what) : "", failed.message);
        return nullptr;
      }
      Phase phase;
      phase.what = spec.what;
      phase.memo = std::make_shared<PhaseMemo>();
      for (const auto& link : engine->link_inputs()) {
        auto [it, fresh] = global.emplace(link, int(e->links_.size()));
        if (fresh) {
          e->links_.push_back(link);
          const ir::Link& l = topology.links[size_t(link.first)];
          int from = link.second == 0 ? l.a : l.b, to = link.second == 0 ? l.b : l.a;
          e->link_ends_.emplace_back(from, to);
        }
        phase.link_of_input.push_back(it->second);
      }
      // The distinct routes, in lexicographic order of their links: every flow's route in one flat list, its
      // flows sorted on their routes, each route once.
      const cg::Plan& plan = engine->plan();
      std::vector<int> flat(plan.hop_link.size());
      for (size_t h = 0; h < flat.size(); ++h) flat[h] = phase.link_of_input[size_t(plan.hop_link[h])];
      auto route_of = [&](int f) {
        return std::span<const int>(flat.data() + plan.path_begin[size_t(f)],
                                    size_t(plan.path_begin[size_t(f) + 1] - plan.path_begin[size_t(f)]));
      };
      auto less = [&](int a, int b) {
        auto x = route_of(a), y = route_of(b);
        return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
      };
      std::vector<int> by_route(size_t(plan.flow_count));
      for (int f = 0; f < plan.flow_count; ++f) by_route[size_t(f)] = f;
      std::sort(by_route.begin(), by_route.end(), less);
      phase.route_begin.push_back(0);
      for (size_t k = 0; k < by_route.size(); ++k) {
        if (k > 0 && !less(by_route[k - 1], by_route[k])) continue;  // the same route as the flow before
        auto route = route_of(by_route[k]);
        phase.route_links.insert(phase.route_links.end(), route.begin(), route.end());
        phase.route_begin.push_back(int(phase.route_links.size()));
      }
      e->uses_tau_ = e->uses_tau_ || engine->uses_tau();
      phase.engine = std::move(engine);
      step.phases.push_back(std::move(phase));
    }
    e->steps_.push_back(std::move(step));
  }
  e->first_bw_ = (e->uses_tau_ ? 1 : 0) + 2;
  return e;
}

// Max-min sharing and PCIe arbitration give rates that depend on which flows are active, never on their sizes, and
// every flow of a phase starts at 0; so multiplying every size by 2^k multiplies each remaining size, each time and
// each step of the simulation by 2^k, exactly in binary floating point (outside the subnormal and overflow ranges,
// which the bounds below keep out). The sizes are scaled to put the largest in [0.5, 1) and the makespan is kept by
// those inputs: statements that share this engine with the same sizes, sizes that differ by a power of two (a
// pipeline's n / 2^s segments, Minisweep's 4 and 8 MB halos) and the report's second pass take one simulation,
// with the bits of simulating each.
double FabricCommEngine::phase_makespan(const Phase& phase, std::vector<double>& sub) const {
  if (!keep_makespans_) return phase.engine->time(sub);
  const int sizes = phase.engine->size_input_count();
  const size_t first_size = sub.size() - size_t(sizes);
  for (double v : sub)
    if (std::isnan(v)) return phase.engine->time(sub);  // no order to keep NaN inputs by
  double largest = 0;
  for (size_t k = first_size; k < sub.size(); ++k) largest = std::max(largest, std::fabs(sub[k]));
  int exponent = 0;
  if (largest > 0 && std::isfinite(largest)) {
    std::frexp(largest, &exponent);
    bool in_range = exponent > -600 && exponent < 600;
    for (size_t k = first_size; k < sub.size() && in_range; ++k)
      if (sub[k] != 0 && std::fabs(sub[k]) < 0x1p-400 * largest) in_range = false;
    if (!in_range) exponent = 0;
    for (size_t k = first_size; k < sub.size(); ++k) sub[k] = std::ldexp(sub[k], -exponent);
  }
  {
    std::lock_guard<std::mutex> lock(phase.memo->mutex);
    if (auto it = phase.memo->makespan.find(sub); it != phase.memo->makespan.end())
      return std::ldexp(it->second, exponent);
  }
  double makespan = phase.engine->time(sub);
  if (!std::isnan(makespan)) {
    std::lock_guard<std::mutex> lock(phase.memo->mutex);
    if (phase.memo->makespan.size() < kMemoEntries) phase.memo->makespan.emplace(sub, makespan);
  }
  return std::ldexp(makespan, exponent);
}

double FabricCommEngine::step_time(const Step& step, std::span<const double> inputs, const double* sizes,
                                   double* latency, std::string* error) const {
  const size_t first_latency = size_t(first_bw_) + links_.size();
  double total = step.phases.empty() ? 0 : inputs[size_t(overhead_input())];  // the messages' software overhead
  double waited = 0;
  // Host staging in pieces (a staging chunk): the step's largest message in ceil(n / chunk) pieces, each through the
  // three phases in turn, pipelined (docs/models.md 9.8).
  const double chunks = this->chunks(step, inputs, sizes);
  double slowest_piece = 0, slowest_piece_latency = 0;  // the slowest phase's time for one piece, and its latency
  std::vector<double> sub;
  for (const Phase& phase : step.phases) {
    sub.clear();
    if (phase.engine->uses_tau()) sub.push_back(inputs[0]);
    for (int g : phase.link_of_input) sub.push_back(inputs[size_t(first_bw_) + size_t(g)]);
    for (int k = 0; k < phase.engine->size_input_count(); ++k) sub.push_back(sizes[k]);
    double makespan = phase_makespan(phase, sub);
    if (std::isnan(makespan)) {
      if (error) {
        sub.resize(sub.size() - size_t(phase.engine->size_input_count()));
        for (int k = 0; k < phase.engine->size_input_count(); ++k) sub.push_back(sizes[k]);
        std::string why = phase.engine->run(sub).error;
        *error = fmt::format("{}{}: {}", step.what, phase.what.empty() ? "" : " (" + phase.what + ")",
                             why.empty() ? "no flow can move" : why);
      }
      return NAN;
    }
    // The step's messages are in flight together: its slowest route's latency, then its bytes under sharing
    // (an upper bound where routes of different latency carry different loads).
    double slowest = 0;
    for (size_t r = 0; r + 1 < phase.route_begin.size(); ++r) {
      double l = 0;
      for (int k = phase.route_begin[r]; k < phase.route_begin[r + 1]; ++k)
        l += inputs[first_latency + size_t(phase.route_links[size_t(k)])];
      slowest = std::max(slowest, l);
    }
    waited += slowest;
    // Max-min sharing scales with the sizes (phase_makespan), so one piece's phase takes makespan / chunks.
    const double piece = slowest + makespan / chunks;
    total += piece;
    if (piece > slowest_piece) {
      slowest_piece = piece;
      slowest_piece_latency = slowest;
    }
  }
  // The flow shop of `chunks` equal pieces through the phases: the first piece through all of them, then each further
  // piece one period later: the slowest phase, or, where phases of different pieces cross one link at once (a host
  // memory's path to the NIC through the GPU's PCIe switch), the time that link takes to carry one piece of every
  // phase that crosses it.
  if (chunks > 1) {
    const double shared = busiest_link(step, inputs, sizes).seconds / chunks;
    if (shared > slowest_piece) {
      slowest_piece = shared;
      slowest_piece_latency = 0;
    }
  }
  total += (chunks - 1) * slowest_piece;
  if (latency) *latency = waited + (chunks - 1) * slowest_piece_latency;
  return total;
}

FabricCommEngine::Busiest FabricCommEngine::busiest_link(const Step& step, std::span<const double> inputs,
                                                          const double* sizes) const {
  std::vector<double> load(links_.size(), 0);
  for (const Phase& phase : step.phases) {
    const cg::Plan& plan = phase.engine->plan();
    const auto& flows = phase.engine->flows();
    for (int f = 0; f < plan.flow_count; ++f) {
      double bytes = sizes[flows[size_t(f)].size_input];
      for (int h = plan.path_begin[size_t(f)]; h < plan.path_begin[size_t(f) + 1]; ++h)
        load[size_t(phase.link_of_input[size_t(plan.hop_link[size_t(h)])])] += bytes;
    }
  }
  Busiest b;
  for (size_t g = 0; g < links_.size(); ++g) {
    double bw = inputs[size_t(first_bw_) + g];
    double s = load[g] > 0 ? load[g] / bw : 0;
    if (s > b.seconds) {
      b.seconds = s;
      b.link = int(g);
      b.bytes = load[g];
    }
  }
  return b;
}

double FabricCommEngine::chunks(const Step& step, std::span<const double> inputs, const double* sizes) const {
  if (!op_.staging_chunks || step.phases.size() < 2) return 1;
  const double chunk = inputs[size_t(staging_chunk_input())];
  if (!(chunk > 0)) return 1;
  double largest = 0;
  const int kinds = op_.halo ? kSizeKinds : step.sizes.empty() ? 1 : int(step.sizes.size());
  for (int k = 0; k < kinds; ++k) largest = std::max(largest, sizes[k]);
  return largest > chunk ? std::ceil(largest / chunk) : 1;
}

// A pipelined step (pattern.h: a segmented chain of h hops) sends n bytes as S segments in h + S - 1 repeats of
// n / S each; S is ceil(n / segment) with a `segment`, else the power of two with the least time (the first wins a
// tie), as CommEngine chooses it.
FabricCommEngine::StepCost FabricCommEngine::cost_of(const Step& step, std::span<const double> inputs) const {
  const size_t at = size_t(first_bw_) + 2 * links_.size();
  StepCost c;
  c.repeat = step.repeat;
  if (op_.halo) {
    c.message_bytes = inputs[at];
    c.time_s = step_time(step, inputs, inputs.data() + at, &c.latency_s, &c.error);
    return c;
  }
  if (!step.sizes.empty()) {
    const std::vector<double> bytes = step.bytes(inputs[at]);
    c.message_bytes = bytes.back();
    c.time_s = step_time(step, inputs, bytes.data(), &c.latency_s, &c.error);
    return c;
  }
  const double n = inputs[at] * step.size_factor, segment = inputs[at + 1];
  double sizes[kSizeKinds] = {n, 0, 0};
  if (step.pipeline_hops <= 0) {
    c.message_bytes = n;
    c.time_s = step_time(step, inputs, sizes, &c.latency_s, &c.error);
    return c;
  }
  auto price = [&](double segments) {
    StepCost t;
    t.segments = segments;
    t.repeat = double(step.pipeline_hops) + segments - 1;
    t.message_bytes = n / segments;
    double part[kSizeKinds] = {n / segments, 0, 0};
    t.time_s = step_time(step, inputs, part, &t.latency_s, &t.error);
    return t;
  };
  if (n <= 0) return price(1);
  if (segment > 0) return price(std::max(1.0, std::ceil(n / segment)));
  StepCost best = price(1);
  for (double segments = 2; segments <= n && segments <= 0x1p40 && best.error.empty(); segments *= 2) {
    StepCost t = price(segments);
    if (!t.error.empty()) return t;
    if (t.repeat * t.time_s < best.repeat * best.time_s) best = std::move(t);
  }
  return best;
}

double FabricCommEngine::time(std::span<const double> inputs) const {
  double t = 0;
  for (const Step& step : steps_) {
    StepCost c = cost_of(step, inputs);
    if (!c.error.empty() || std::isnan(c.time_s)) return NAN;
    t += c.repeat * c.time_s;
  }
  return t;
}

ir::EngineResult FabricCommEngine::run(std::span<const double> inputs) const {
  ir::EngineResult r;
  auto& d = r.detail;
  d["operation"] = op_.what;
  if (!op_.algorithm.empty()) d["algorithm"] = op_.algorithm;
  if (!op_.chosen_by.empty()) d["chosen_by"] = op_.chosen_by;
  d["comm_model"] = "fabric";
  d["transport"] = op_.tcp ? "tcp" : transport_name(op_.transport);
  d["ranks"] = op_.ranks;
  d["nodes"] = op_.nodes;
  d["ranks_per_node"] = op_.ranks_per_node;
  if (op_.halo) {
    const Grid& g = op_.grid;
    d["grid"] = g.dims == 3 ? nlohmann::ordered_json::array({g.extent[0], g.extent[1], g.extent[2]})
                            : nlohmann::ordered_json::array({g.extent[0], g.extent[1]});
    d["periodic"] = g.periodic;
    d["neighbours"] = g.neighbours;
  }
  d["overhead_s"] = inputs[size_t(overhead_input())];
  if (op_.staging_chunks) d["staging_chunk_bytes"] = inputs[size_t(staging_chunk_input())];
  if (period_ > 0) {
    // The fast path: each round solved on one period of nodes (the other periods' flows are its translates).
    nlohmann::ordered_json sym;
    sym["period_nodes"] = period_;
    sym["periods"] = cluster_nodes_ / period_;
    sym["flows_solved"] = flows_built();
    d["symmetry"] = std::move(sym);
  }
  const size_t at = size_t(first_bw_) + 2 * links_.size();
  auto steps = nlohmann::ordered_json::array();
  double total = 0, count = 0, segments = 0;
  for (const Step& step : steps_) {
    StepCost c = cost_of(step, inputs);
    if (!c.error.empty() || std::isnan(c.time_s)) {
      r.error = c.error.empty() ? fmt::format("{}: no result", step.what) : c.error;
      r.time_s = NAN;
      return r;
    }
    total += c.repeat * c.time_s;
    count += c.repeat * step.steps_each;
    if (step.pipeline_hops > 0) segments = c.segments;
    nlohmann::ordered_json j;
    j["step"] = step.what;
    j["repeat"] = c.repeat;
    if (step.pipeline_hops > 0) {
      j["hops"] = step.pipeline_hops;
      j["segments"] = c.segments;
    }
    j["messages"] = step.messages;
    if (op_.halo) {
      for (int k = 0; k < kSizeKinds; ++k) j[fmt::format("{}_bytes", kKindNames[k])] = inputs[at + size_t(k)];
    } else if (!step.sizes.empty()) {
      j["largest_message_bytes"] = c.message_bytes;
    } else {
      j["message_bytes"] = c.message_bytes;
    }
    // The link whose bytes take longest at its full bandwidth: what bounds the step from below.
    double sizes[kSizeKinds] = {c.message_bytes, 0, 0};
    const std::vector<double> step_bytes = step.bytes(inputs[at]);
    const double* size_of = op_.halo ? inputs.data() + at : !step.sizes.empty() ? step_bytes.data() : sizes;
    if (op_.staging_chunks) j["staging_pieces"] = chunks(step, inputs, size_of);
    const Busiest busiest = busiest_link(step, inputs, size_of);
    if (busiest.link >= 0) {
      const auto& [from, to] = link_ends_[size_t(busiest.link)];
      j["busiest_link"] = (*names_)[size_t(from)] + " -> " + (*names_)[size_t(to)];
      j["busiest_link_bytes"] = busiest.bytes;
      j["busiest_link_s"] = busiest.seconds;
    }
    j["latency_s"] = c.latency_s;
    j["time_s"] = c.time_s;
    steps.push_back(std::move(j));
  }
  d["steps"] = std::move(steps);
  r.time_s = total;
  r.terms.push_back({"steps", count, support::Dim::count()});
  if (segments > 0) r.terms.push_back({"segments", segments, support::Dim::count()});
  return r;
}

std::string FabricCommEngine::describe() const {
  std::string s = fmt::format("{}{} over {} ranks on {} nodes ({} per node); fabric, {}", op_.what,
                              op_.algorithm.empty() ? "" : " (" + op_.algorithm + ")", op_.ranks, op_.nodes,
                              op_.ranks_per_node, op_.tcp ? "tcp" : transport_name(op_.transport));
  if (op_.staging_chunks) s += " in pieces of the staging chunk, pipelined through the three phases";
  if (period_ > 0)
    s += fmt::format("\nsymmetric: each round solved on one period of {} of the {} nodes ({} flows)", period_,
                     cluster_nodes_, flows_built());
  for (const Step& step : steps_) {
    std::string repeat =
        step.pipeline_hops > 0 ? fmt::format("({} + S - 1)", step.pipeline_hops) : fmt::format("{}", step.repeat);
    size_t routes = 0;
    for (const Phase& p : step.phases) routes += p.route_begin.size() - 1;
    s += fmt::format("\n{} x{}: {} messages, {} phase{}, {} distinct routes", step.what, repeat, step.messages,
                     step.phases.size(), step.phases.size() == 1 ? "" : "s", routes);
  }
  return s;
}

bool FabricCommEngine::crosses(int link, int direction) const {
  if (!link_canon_.empty() && link >= 0 && size_t(link) < link_canon_.size()) link = link_canon_[size_t(link)];
  return std::find(links_.begin(), links_.end(), std::pair<int, int>{link, direction}) != links_.end();
}

std::vector<FabricCommEngine::PhaseView> FabricCommEngine::unrolled(int64_t max_flows, std::string& why) const {
  std::vector<PhaseView> out;
  if (period_ > 0) {
    why = "its rounds are solved on one period of the cluster's nodes (the fast path)";
    return out;
  }
  if (uses_tau_) {
    why = "its messages cross links of PCIe arbitration";
    return out;
  }
  if (op_.staging_chunks) {
    why = "its host staging is pipelined in pieces (`staging_chunk`), whose count is set when it is evaluated";
    return out;
  }
  if (op_.tcp) {
    why = "its messages cross the network as TCP/IP frames, at a payload rate of the links its own";
    return out;
  }
  int64_t flows = 0;
  for (const Step& step : steps_) {
    if (step.pipeline_hops > 0) {
      why = fmt::format("its step `{}` is pipelined (its segment count is chosen when it is evaluated)", step.what);
      return out;
    }
    if (!(step.repeat >= 1) || step.repeat != std::floor(step.repeat)) {
      why = fmt::format("its step `{}` repeats {} times", step.what, step.repeat);
      return out;
    }
    for (const Phase& phase : step.phases) flows += int64_t(step.repeat) * phase.engine->plan().flow_count;
    if (flows > max_flows) {
      why = fmt::format("it would be more than {} flows", max_flows);
      return out;
    }
  }
  for (const Step& step : steps_) {
    const int64_t repeats = int64_t(step.repeat);
    for (int64_t r = 0; r < repeats; ++r)
      for (size_t j = 0; j < step.phases.size(); ++j) {
        const Phase& phase = step.phases[j];
        PhaseView& v = out.emplace_back();
        v.engine = phase.engine.get();
        v.step = repeats > 1 ? fmt::format("{} ({}/{})", step.what, r + 1, repeats) : step.what;
        if (!phase.what.empty()) v.step += fmt::format(", {}", phase.what);
        v.size_factor = step.size_factor;
        if (!step.sizes.empty()) v.sizes = &step.sizes;
        v.sizes_relative = step.relative;
        v.first_of_step = j == 0;
        v.route_links = &phase.route_links;
        v.route_begin = &phase.route_begin;
      }
  }
  return out;
}

int64_t FabricCommEngine::flows_built() const {
  int64_t n = 0;
  for (const Step& step : steps_)
    for (const Phase& phase : step.phases) n += phase.engine->plan().flow_count;
  return n;
}

}  // namespace gpm::mpi
