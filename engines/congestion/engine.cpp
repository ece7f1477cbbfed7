// engine.cpp: the dynamic congestion graph (Martinasso et al., section IV-A): an event loop over flow starts and
// ends; in each step every active flow moves bytes at its congestion factor times its path bandwidth.
#include "engines/congestion/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <limits>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "engines/congestion/simulator.h"
#include "support/csv.h"

namespace gpm::engines::congestion {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// What run() lists (CongestionEngine::Listing); `gpmc eval --flows-out` writes every flow whatever it is.
CongestionEngine::Listing g_listing;

}

Simulator::Simulator(const CongestionEngine& e, std::span<const double> inputs, bool cache)
    : e_(e), p_(e.plan()), use_cache_(cache && e.plan().flow_count <= 64) {
  size_t i = 0, flows = size_t(p_.flow_count);
  auto next = [&] { return i < inputs.size() ? inputs[i++] : std::nan(""); };
  if (e.uses_tau()) tau_ = next();
  cap_.resize(size_t(p_.link_count));
  for (auto& c : cap_) c = next();
  std::vector<double> sizes(size_t(e.size_input_count()));
  for (auto& v : sizes) v = next();
  bytes_.resize(flows);
  for (size_t f = 0; f < flows; ++f) bytes_[f] = sizes[size_t(e.size_input_[f])];
  start_.assign(flows, 0);
  for (size_t f = 0; f < flows; ++f)
    if (e.start_input_[f] >= 0) start_[f] = inputs.size() > i + size_t(e.start_input_[f]) ? inputs[i + size_t(e.start_input_[f])] : std::nan("");
  for (size_t j = 0; j < e.duplex_.size(); ++j)
    duplex_cap_.push_back(inputs.size() > i + size_t(e.start_inputs_) + j ? inputs[i + size_t(e.start_inputs_) + j]
                                                                          : std::nan(""));
  plain_cap_ = cap_;
  path_bw_.assign(flows, kInf);
  for (size_t f = 0; f < flows; ++f)
    for (int h = p_.path_begin[f]; h < p_.path_begin[f + 1]; ++h)
      path_bw_[f] = std::min(path_bw_[f], cap_[size_t(p_.hop_link[size_t(h)])]);
  // Rate caps (FlowSpec::cap_input), after the duplex bandwidths: a capped flow's path bandwidth is at most its cap.
  if (e.cap_inputs_ > 0) {
    const size_t at = i + size_t(e.start_inputs_) + e.duplex_.size();
    flow_cap_.assign(flows, kInf);
    for (size_t f = 0; f < flows; ++f) {
      int k = e.flows_[f].cap_input;
      if (k < 0) continue;
      flow_cap_[f] = inputs.size() > at + size_t(k) ? inputs[at + size_t(k)] : std::nan("");
      if (!(flow_cap_[f] > 0) || std::isnan(flow_cap_[f])) {
        if (input_error_.empty())
          input_error_ = fmt::format("flow `{}` has a rate cap of {} bytes/s; a cap must be positive", e.flows_[f].name,
                                     flow_cap_[f]);
        continue;
      }
      path_bw_[f] = std::min(path_bw_[f], flow_cap_[f]);
      capped_.push_back(int(f));
    }
  }
  // Turn gaps (FlowSpec::turn_gap_input), after the rate caps.
  turn_gap_.assign(flows, 0);
  if (e.turn_gap_inputs_ > 0) {
    const size_t at = i + size_t(e.start_inputs_) + e.duplex_.size() + size_t(e.cap_inputs_);
    for (size_t f = 0; f < flows; ++f)
      if (int k = e.flows_[f].turn_gap_input; k >= 0)
        turn_gap_[f] = inputs.size() > at + size_t(k) ? inputs[at + size_t(k)] : std::nan("");
  }
  // A kernel's flow (FlowSpec::timed) moves its time at one unit per second: factor 1.
  for (size_t f = 0; f < flows; ++f)
    if (e.flows_[f].timed) {
      path_bw_[f] = 1;
      timed_.push_back(int(f));
    }
  ws_.reserve(p_);
  // A duplex link's capacity changes as flows come and go: no link is left out as never filling first.
  if (p_.arbitration == Arbitration::MaxMin && e.duplex_.empty()) mark_redundant_links(p_, cap_.data(), ws_);
  remaining_.assign(flows, 0);
  issue_.assign(flows, 0);
  begin_.assign(flows, 0);
  end_.assign(flows, 0);
  rate_.assign(flows, 0);
  factor_.assign(flows, 0);
  active_.assign(flows, 0);
  head_.assign(size_t(p_.source_count), 0);
  // A direct table of the sets of active flows when each source has at most one active (the search): a set is the
  // mixed-radix number of each source's active flow (0 for none, else 1 + its place in the source's list).
  if (use_cache_) {
    uint64_t size = 1;
    slot_of_flow_.assign(flows, 0);
    for (const auto& list : e.by_source_) {
      for (size_t k = 0; k < list.size(); ++k) slot_of_flow_[size_t(list[k])] = (k + 1) * size;
      size *= list.size() + 1;
      if (size > (uint64_t(1) << 22)) break;
    }
    if (size <= (uint64_t(1) << 22)) direct_.assign(size_t(size), -1);
    scratch_.assign(size_t(p_.source_count), 0);
  }
  done_.assign(flows, 0);
  int queues = 0;
  for (const FlowSpec& f : e.flows_) queues = std::max({queues, f.queue + 1, f.paused_by + 1});
  queue_head_.assign(size_t(queues), -1);
  // The flows each queue's moving flow stops (FlowSpec::paused_by).
  pauses_.assign(size_t(queues), {});
  for (size_t f = 0; f < flows; ++f)
    if (int q = e.flows_[f].paused_by; q >= 0) pauses_[size_t(q)].push_back(int(f));
  if (input_error_.empty() && e.uses_tau() && !(tau_ >= 0 && tau_ <= 1))
    input_error_ = fmt::format("tau must be from 0 to 1, not {}", tau_);
  for (size_t l = 0; l < cap_.size() && input_error_.empty(); ++l)
    if (!(cap_[l] > 0) || !std::isfinite(cap_[l])) input_error_ = fmt::format("a link bandwidth must be positive, not {}", cap_[l]);
  for (double c : duplex_cap_)
    if (input_error_.empty() && (!(c > 0) || !std::isfinite(c)))
      input_error_ = fmt::format("a link's duplex bandwidth must be positive, not {}", c);
  for (size_t f = 0; f < flows && input_error_.empty(); ++f) {
    if (!(bytes_[f] >= 0) || !std::isfinite(bytes_[f]))
      input_error_ = fmt::format("flow `{}` moves {} bytes; a size must be finite and not negative", e.flows()[f].name, bytes_[f]);
    else if (!(start_[f] >= 0) || !std::isfinite(start_[f]))
      input_error_ = fmt::format("flow `{}` starts at {} s; a start time must be finite and not negative", e.flows()[f].name, start_[f]);
    else if (!(turn_gap_[f] >= 0) || !std::isfinite(turn_gap_[f]))
      input_error_ = fmt::format("flow `{}` waits {} s after the copy before it; a gap must be finite and not negative",
                                 e.flows()[f].name, turn_gap_[f]);
  }
}

// The rates of the active flows; factors too when not cached.
void Simulator::compute_rates(uint64_t mask) {
  if (use_cache_) {
    auto it = cache_.find(mask);
    if (it != cache_.end()) {
      std::copy_n(pool_.begin() + it->second, p_.flow_count, rate_.begin());
      return;
    }
  }
  if (p_.arbitration == Arbitration::Pcie) {
    pcie_factors(p_, active_.data(), tau_, factor_.data(), ws_);
    for (int f = 0; f < p_.flow_count; ++f) rate_[size_t(f)] = factor_[size_t(f)] * path_bw_[size_t(f)];
  } else {
    maxmin_rates(p_, active_.data(), cap_.data(), rate_.data(), ws_, flow_cap_.empty() ? nullptr : flow_cap_.data());
    for (int f : timed_)
      if (active_[size_t(f)]) rate_[size_t(f)] = 1;  // crosses no link: at its own pace
    for (int f = 0; f < p_.flow_count; ++f) factor_[size_t(f)] = rate_[size_t(f)] / path_bw_[size_t(f)];
  }
  if (use_cache_) {
    cache_.emplace(mask, uint32_t(pool_.size()));
    pool_.insert(pool_.end(), rate_.begin(), rate_.end());
  }
}

double Simulator::run(const int* rank, CongestionEngine::Schedule* out, std::string* error) {
  if (!input_error_.empty()) {
    if (error) *error = input_error_;
    return std::nan("");
  }
  // GPMC_MAXMIN_INCREMENTAL=off solves every flow at every event instead (to compare the two, docs/models.md 8.3).
  static const bool incremental = [] {
    const char* env = std::getenv("GPMC_MAXMIN_INCREMENTAL");
    return !(env && std::string_view(env) == "off");
  }();
  if (p_.arbitration == Arbitration::MaxMin && e_.incremental_ && incremental) return run_maxmin(out, error);
  const int flows = p_.flow_count;
  const bool source_arbitration = p_.arbitration == Arbitration::Pcie;
  if (!e_.duplex_.empty()) cap_ = plain_cap_;
  std::vector<uint8_t> busy(e_.duplex_.empty() ? 0 : size_t(p_.link_count), 0);  // duplex links: a link in use
  for (int f = 0; f < flows; ++f) {
    remaining_[size_t(f)] = bytes_[size_t(f)];
    done_[size_t(f)] = 0;
    issue_[size_t(f)] = e_.waits_[size_t(f)] > 0 ? kInf : start_[size_t(f)];
    begin_[size_t(f)] = kInf;
    end_[size_t(f)] = kInf;
  }
  waiting_.assign(e_.waits_.begin(), e_.waits_.end());
  init_ready();
  std::fill(queue_head_.begin(), queue_head_.end(), -1);
  double t = 0, makespan = 0;
  int left = flows;
  while (left > 0) {
    uint64_t mask = 0;
    bool any = false;
    std::fill(active_.begin(), active_.end(), 0);
    if (source_arbitration) {
      // Step A (section V-A): a source sends one copy at a time, first come first served.
      for (const auto& list : e_.by_source_) {
        int best = -1;
        for (int f : list) {
          if (done_[size_t(f)] || issue_[size_t(f)] > t) continue;
          if (best < 0 || issue_[size_t(f)] < issue_[size_t(best)] ||
              (issue_[size_t(f)] == issue_[size_t(best)] && rank[f] < rank[best]))
            best = f;
        }
        if (best >= 0) {
          active_[size_t(best)] = 1;
          mask |= uint64_t(1) << (best & 63);
          any = true;
        }
      }
    } else {
      // A queue's flow moves alone: the one moving keeps it until it ends, then the first issued of those waiting.
      for (int f = 0; f < flows; ++f) {
        if (done_[size_t(f)] || issue_[size_t(f)] > t) continue;
        if (int q = e_.flows_[size_t(f)].queue; q >= 0) {
          int& head = queue_head_[size_t(q)];
          if (head < 0 || (begin_[size_t(head)] == kInf && (issue_[size_t(f)] < issue_[size_t(head)] ||
                                                             (issue_[size_t(f)] == issue_[size_t(head)] && f < head))))
            head = f;
          continue;
        }
        active_[size_t(f)] = 1;
      }
      for (int head : queue_head_)
        if (head >= 0) active_[size_t(head)] = 1;
      // A queue with a flow moving stops the flows it pauses (FlowSpec::paused_by); they keep their bytes.
      for (size_t q = 0; q < pauses_.size(); ++q)
        if (int head = queue_head_[q]; head >= 0 && active_[size_t(head)])
          for (int f : pauses_[q]) active_[size_t(f)] = 0;
      for (int f = 0; f < flows; ++f)
        if (active_[size_t(f)]) {
          mask |= uint64_t(1) << (f & 63);
          any = true;
        }
    }
    double next = kInf;
    for (int f = 0; f < flows; ++f)
      if (!done_[size_t(f)] && issue_[size_t(f)] > t) next = std::min(next, issue_[size_t(f)]);
    if (any && !e_.duplex_.empty()) {
      // Duplex links: each direction's capacity from whether the other carries an active flow.
      std::fill(busy.begin(), busy.end(), 0);
      for (int f = 0; f < flows; ++f)
        if (active_[size_t(f)])
          for (int h = p_.path_begin[size_t(f)]; h < p_.path_begin[size_t(f) + 1]; ++h) busy[size_t(p_.hop_link[size_t(h)])] = 1;
      apply_duplex([&](int l) { return busy[size_t(l)] != 0; }, nullptr);
    }
    if (any) compute_rates(mask);
    for (int f = 0; f < flows; ++f) {
      if (!active_[size_t(f)]) continue;
      if (begin_[size_t(f)] == kInf) begin_[size_t(f)] = t;
      if (remaining_[size_t(f)] <= 0)
        next = t;
      else if (rate_[size_t(f)] > 0)
        next = std::min(next, t + remaining_[size_t(f)] / rate_[size_t(f)]);
    }
    if (next == kInf) {
      if (error)
        *error = fmt::format("at {} s no flow can progress: {} get a congestion factor of 0 (tau is too large for "
                             "the copies sharing a port)",
                             t, stuck_flows());
      return std::nan("");
    }
    double dt = next - t;
    if (out && dt > 0) record_step(*out, t, next);
    for (int f = 0; f < flows; ++f) {
      if (!active_[size_t(f)]) continue;
      double moved = rate_[size_t(f)] * dt;
      remaining_[size_t(f)] -= moved;
      if (!finished(f, next)) continue;
      done_[size_t(f)] = 1;
      end_[size_t(f)] = next;
      makespan = std::max(makespan, next);
      --left;
      if (int q = e_.flows_[size_t(f)].queue; q >= 0 && !source_arbitration) queue_head_[size_t(q)] = -1;
      release(f, next, [](int) {});
    }
    t = next;
  }
  return finish(out, makespan);
}

double Simulator::finish(CongestionEngine::Schedule* out, double makespan) const {
  if (out) {
    out->issued = issue_;
    out->start = begin_;
    out->end = end_;
    out->makespan = makespan;
  }
  return makespan;
}

std::string Simulator::stuck_flows() const {
  std::string stuck;
  int named = 0, more = 0;
  for (int f = 0; f < p_.flow_count; ++f)
    if (active_[size_t(f)] && named++ < 4)
      stuck += (stuck.empty() ? "`" : ", `") + e_.flows_[size_t(f)].name + "`";
    else if (active_[size_t(f)])
      ++more;
  if (more > 0) stuck += fmt::format(" and {} more", more);
  return stuck.empty() ? "the remaining flows" : stuck;
}

void Simulator::record_step(CongestionEngine::Schedule& out, double t, double next) const {
  if (out.steps.size() >= kMaxSteps || out.factor_entries >= kMaxFactorEntries) {
    out.truncated = true;
    return;
  }
  CongestionEngine::Schedule::Step step{t, next, {}};
  // Factors listed over all steps stop at the limit, within a step if need be (a step of 10^6 flows).
  for (int f = 0; f < p_.flow_count; ++f) {
    if (!active_[size_t(f)]) continue;
    if (out.factor_entries + step.factors.size() >= kMaxFactorEntries) {
      out.truncated = true;
      break;
    }
    step.factors.push_back({f, use_cache_ ? rate_[size_t(f)] / path_bw_[size_t(f)] : factor_[size_t(f)]});
  }
  out.factor_entries += step.factors.size();
  out.steps.push_back(std::move(step));
}

// The search's case: every flow issued at 0, each source sending its queue in order (PCIe source arbitration).
// Only the active flow of each source is visited, and the rates of each set of active flows come from the cache.
double Simulator::run_queues(const int* queue) {
  if (!input_error_.empty()) return std::nan("");
  const int sources = p_.source_count;
  for (int s = 0; s < sources; ++s) head_[size_t(s)] = e_.queue_begin_[size_t(s)];
  for (int f = 0; f < p_.flow_count; ++f) remaining_[size_t(f)] = bytes_[size_t(f)];
  double t = 0, makespan = 0;
  int left = p_.flow_count;
  while (left > 0) {
    uint64_t mask = 0, slot = 0;
    for (int s = 0; s < sources; ++s)
      if (head_[size_t(s)] < e_.queue_begin_[size_t(s) + 1]) {
        int f = queue[head_[size_t(s)]];
        mask |= uint64_t(1) << f;
        slot += slot_of_flow_[size_t(f)];
      }
    // The rate of each source's active flow: one cache line per set of active flows in the direct table.
    const double* rate;
    if (!direct_.empty()) {
      int32_t& at = direct_[size_t(slot)];
      if (at < 0) {
        const double* by_flow = cached_rates(mask);
        at = int32_t(by_source_pool_.size());
        for (int s = 0; s < sources; ++s)
          by_source_pool_.push_back(head_[size_t(s)] < e_.queue_begin_[size_t(s) + 1] ? by_flow[queue[head_[size_t(s)]]] : 0);
      }
      rate = by_source_pool_.data() + at;
    } else {
      const double* by_flow = cached_rates(mask);
      for (int s = 0; s < sources; ++s)
        scratch_[size_t(s)] = head_[size_t(s)] < e_.queue_begin_[size_t(s) + 1] ? by_flow[queue[head_[size_t(s)]]] : 0;
      rate = scratch_.data();
    }
    double next = kInf;
    for (int s = 0; s < sources; ++s) {
      if (head_[size_t(s)] >= e_.queue_begin_[size_t(s) + 1]) continue;
      int f = queue[head_[size_t(s)]];
      if (remaining_[size_t(f)] <= 0)
        next = t;
      else if (rate[s] > 0)
        next = std::min(next, t + remaining_[size_t(f)] / rate[s]);
    }
    if (next == kInf) return std::nan("");
    double dt = next - t;
    for (int s = 0; s < sources; ++s) {
      if (head_[size_t(s)] >= e_.queue_begin_[size_t(s) + 1]) continue;
      int f = queue[head_[size_t(s)]];
      remaining_[size_t(f)] -= rate[s] * dt;
      rate_[size_t(f)] = rate[s];
      if (!finished(f, next)) continue;
      ++head_[size_t(s)];
      --left;
      makespan = next;
    }
    t = next;
  }
  return makespan;
}

const double* Simulator::cached_rates(uint64_t mask) {
  auto it = cache_.find(mask);
  if (it == cache_.end()) {
    for (int f = 0; f < p_.flow_count; ++f) active_[size_t(f)] = (mask >> f) & 1;
    bool saved = use_cache_;
    use_cache_ = false;
    compute_rates(mask);
    use_cache_ = saved;
    it = cache_.emplace(mask, uint32_t(pool_.size())).first;
    pool_.insert(pool_.end(), rate_.begin(), rate_.end());
  }
  return pool_.data() + it->second;
}

std::vector<int> CongestionEngine::written_rank() const {
  std::vector<int> rank(flows_.size(), 0);
  for (const auto& list : by_source_)
    for (size_t i = 0; i < list.size(); ++i) rank[size_t(list[i])] = int(i);
  return rank;
}

CongestionEngine::Schedule CongestionEngine::simulate(std::span<const double> inputs, const std::vector<int>& rank) const {
  Schedule s;
  Simulator sim(*this, inputs, false);
  sim.run(rank.data(), &s, &s.error);
  return s;
}

double CongestionEngine::time(std::span<const double> inputs) const {
  Simulator sim(*this, inputs, false);
  auto rank = written_rank();
  return sim.run(rank.data(), nullptr, nullptr);
}

void CongestionEngine::set_listing(const Listing& listing) { g_listing = listing; }

ir::EngineResult CongestionEngine::run(std::span<const double> inputs) const {
  ir::EngineResult r;
  Schedule s;
  Simulator sim(*this, inputs, false);
  {
    auto rank = written_rank();
    sim.run(rank.data(), &s, &s.error);
  }
  if (!s.error.empty()) {
    r.error = s.error;
    r.time_s = std::nan("");
    return r;
  }
  r.time_s = s.makespan;
  nlohmann::ordered_json detail;
  detail["arbitration"] = plan_.arbitration == Arbitration::Pcie ? "pcie" : "max-min";
  if (uses_tau()) detail["tau"] = inputs[0];
  nlohmann::ordered_json flows = nlohmann::ordered_json::array();
  double bytes_total = 0;
  // Per directed link: the bytes of the flows that cross it, how many, and when the first starts and the last ends.
  struct LinkUse {
    double bytes = 0, from = INFINITY, until = 0;
    int flows = 0;
  };
  std::vector<LinkUse> use(links_.size());
  for (size_t f = 0; f < flows_.size(); ++f) {
    double bytes = flows_[f].timed ? 0 : sim.bytes(int(f));  // a kernel's flow moves no bytes: its size is its time
    bytes_total += bytes;
    bool listed = f < g_listing.flows;
    nlohmann::ordered_json hops = nlohmann::ordered_json::array();
    for (int h = plan_.path_begin[f]; h < plan_.path_begin[f + 1]; ++h) {
      int k = plan_.hop_link[size_t(h)];
      if (listed) hops.push_back(link_name(k));
      LinkUse& u = use[size_t(k)];
      u.bytes += bytes;
      u.flows += 1;
      u.from = std::min(u.from, s.start[f]);
      u.until = std::max(u.until, s.end[f]);
    }
    if (!listed) continue;
    flows.push_back({{"name", flows_[f].name},
                     {"src", component_name(flows_[f].src)},
                     {"dst", component_name(flows_[f].dst)},
                     {"bytes", bytes},
                     {"route", route_text(int(f))},
                     {"links", hops},
                     {"issued_s", s.issued[f]},
                     {"start_s", s.start[f]},
                     {"end_s", s.end[f]}});
    if (flows_[f].timed) flows.back()["kernel_s"] = sim.bytes(int(f));
    if (double cap = sim.cap(int(f)); cap < kInf) flows.back()["rate_cap_bytes_per_s"] = cap;
  }
  detail["flows"] = flows;
  if (flows_.size() > g_listing.flows) {
    detail["flows_total"] = flows_.size();
    detail["flows_truncated"] = true;
  }
  // Utilisation of each link over the block: bytes carried / (bandwidth x makespan); busiest first, then by name.
  std::vector<size_t> order(links_.size());
  std::vector<double> utilisation(links_.size());
  size_t first_bw = uses_tau() ? 1 : 0;
  for (size_t k = 0; k < links_.size(); ++k) {
    order[k] = k;
    double bw = inputs[first_bw + k];
    utilisation[k] = s.makespan > 0 && bw > 0 ? use[k].bytes / (bw * s.makespan) : 0;
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return utilisation[a] != utilisation[b] ? utilisation[a] > utilisation[b] : link_name(int(a)) < link_name(int(b));
  });
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  if (order.size() > g_listing.links) {
    detail["links_total"] = order.size();
    order.resize(g_listing.links);
  }
  for (size_t k : order)
    links.push_back({{"link", link_name(int(k))},
                     {"bandwidth", inputs[first_bw + k]},
                     {"flows", use[k].flows},
                     {"bytes", use[k].bytes},
                     {"busy_from_s", use[k].flows ? use[k].from : 0.0},
                     {"busy_until_s", use[k].until},
                     {"utilisation", utilisation[k]}});
  detail["links"] = links;
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  if (s.steps.size() > g_listing.steps) detail["steps_total"] = s.steps.size();
  for (const auto& step : s.steps) {
    if (steps.size() == g_listing.steps) break;
    nlohmann::ordered_json factors = nlohmann::ordered_json::array();
    for (const auto& [f, factor] : step.factors) {
      if (factors.size() == g_listing.factors) break;
      factors.push_back({{"flow", flows_[size_t(f)].name}, {"factor", factor}});
    }
    nlohmann::ordered_json entry = {{"start_s", step.start_s}, {"end_s", step.end_s}, {"factors", std::move(factors)}};
    if (step.factors.size() > g_listing.factors) entry["factors_total"] = step.factors.size();
    steps.push_back(std::move(entry));
  }
  detail["steps"] = steps;
  if (s.truncated)
    detail["steps_truncated"] = true;
  r.terms.push_back({"flows", double(flows_.size()), support::Dim::count(), false});
  r.terms.push_back({"bytes moved", bytes_total, support::Dim::byte(), false});
  r.detail = std::move(detail);
  auto schedule = std::make_shared<Schedule>(std::move(s));
  auto sizes = std::make_shared<std::vector<double>>(flows_.size());
  for (size_t f = 0; f < flows_.size(); ++f) (*sizes)[f] = flows_[f].timed ? 0 : sim.bytes(int(f));
  r.write_flows = [this, schedule, sizes](std::ostream& out, const std::string& prefix) {
    // Each number as fmt's shortest form; a column's text is kept while its value repeats (flows of one size,
    // issued together, ending together), so repeated values are formatted once.
    struct Column {
      uint64_t bits = 0;
      bool set = false;
      std::string text;
      void put(std::string& line, double value) {
        uint64_t b;
        std::memcpy(&b, &value, sizeof b);
        if (!set || b != bits) {
          text.clear();
          fmt::format_to(std::back_inserter(text), FMT_COMPILE("{}"), value);
          bits = b;
          set = true;
        }
        line += text;
        line += ',';
      }
    };
    Column bytes, issued, start, end;
    std::string line;
    for (size_t f = 0; f < flows_.size(); ++f) {
      line.clear();
      line += prefix;
      line += support::csv_field(flows_[f].name);
      line += ',';
      line += component_name(flows_[f].src);
      line += ',';
      line += component_name(flows_[f].dst);
      line += ',';
      bytes.put(line, (*sizes)[f]);
      issued.put(line, schedule->issued[f]);
      start.put(line, schedule->start[f]);
      end.put(line, schedule->end[f]);
      // The route (route_text) written in place, quoted only if a name needs it.
      const size_t route_at = line.size();
      line += component_name(flows_[f].src);
      for (int h = plan_.path_begin[f]; h < plan_.path_begin[f + 1]; ++h) {
        line += " -> ";
        line += component_name(link_far_end_[size_t(plan_.hop_link[size_t(h)])]);
      }
      if (support::csv_needs_quotes(std::string_view(line).substr(route_at))) {
        std::string route = line.substr(route_at);
        line.resize(route_at);
        line += support::csv_field(route);
      }
      line += '\n';
      out << line;
    }
  };
  return r;
}

std::string CongestionEngine::describe() const {
  std::string out = plan_.arbitration == Arbitration::Pcie ? "arbitration pcie (Algorithm 1), tau = input 0"
                                                           : "arbitration max-min (progressive filling)";
  if (unordered_) out += "; each source's flows in any order (gpmc search)";
  for (size_t f = 0; f < flows_.size(); ++f) {
    out += fmt::format("\nflow {}: {}", flows_[f].name, route_text(int(f)));
    if (flows_[f].after >= 0 || flows_[f].after_group >= 0) {
      const char* sep = " after ";
      if (flows_[f].after >= 0) {
        out += fmt::format(" after {}", flows_[size_t(flows_[f].after)].name);
        sep = ", ";
      }
      for (int a : flows_[f].also_after) out += fmt::format(", {}", flows_[size_t(a)].name);
      if (flows_[f].after_group >= 0) out += fmt::format("{}every flow of group {}", sep, flows_[f].after_group);
      out += flows_[f].has_start ? " and a delay" : "";
    }
  }
  return out;
}

PcieTrace CongestionEngine::pcie_step(const std::vector<uint8_t>& active, double tau) const {
  PcieTrace trace;
  if (plan_.arbitration != Arbitration::Pcie) return trace;  // max-min has no Table I columns
  Workspace ws;
  ws.reserve(plan_);
  std::vector<double> factor(flows_.size());
  pcie_factors(plan_, active.data(), tau, factor.data(), ws, &trace);
  return trace;
}

}  // namespace gpm::engines::congestion
