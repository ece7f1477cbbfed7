// arbitration.cpp: the congestion factors of one step: PCIe Algorithm 1 (steps B-D) and max-min fair sharing.
#include <algorithm>
#include <limits>

#include "engines/congestion/plan.h"

namespace gpm::engines::congestion {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-12;
}  // namespace

void Workspace::reserve(const Plan& plan) {
  size_t hops = plan.hop_link.size(), flows = size_t(plan.flow_count), links = size_t(plan.link_count);
  if (plan.arbitration == Arbitration::Pcie) {  // Algorithm 1's per-flow and per-hop factors
    running.assign(flows, 0);
    size_t groups = std::max<size_t>(plan.entries.size(), 1);
    group_in.assign(groups, 0);
    group_out.assign(groups, 0);
    group_root.assign(groups, 0);
    value.assign(hops, 0);
    raised.assign(hops, 0);
    hol.assign(flows, 0);
    later.assign(hops, 0);
    return;
  }
  redundant.clear();
  remaining_capacity.assign(links, 0);
  link_level.assign(links, 0);
  unfrozen_on_link.assign(links, 0);
  link_begin.assign(links + 1, 0);
  link_fill.assign(links, 0);
  link_flows.assign(hops, 0);
  frozen.assign(flows, 0);
}

// Martinasso et al., section V-B, eq. 5 and 6: when the super communications entering an upstream port would
// overflow it (sum of R > 1), each leaves with R' = R / sum, so every flow is scaled by 1 / sum.
double upstream_scale(std::span<const double> group_in) {
  double sum = 0;
  for (double r : group_in) sum += r;
  return sum > 1 + kEps ? 1 / sum : 1;
}

// Section V-C, eq. 7: n super communications share a downstream port; those holding a flow that crossed the root
// complex get min(max(1/n - tau, 0), R), the others min(1/n + tau, R); without such a flow, min(1/n, R) (the
// paper writes 1/n; the min keeps a factor from rising at a port, rho' <= rho, as section V-B requires).
// Reading of the paper's full example (Table I): arbitration applies only where the incoming factors overflow
// the port, except at the root complex itself, where a lone copy gets 1 - tau (section V-C, last sentence).
void downstream_share(std::span<const double> group_in, std::span<const uint8_t> crosses_root, double tau,
                      bool at_root, std::span<double> out) {
  double sum = 0;
  bool any_root = false;
  for (size_t i = 0; i < group_in.size(); ++i) {
    sum += group_in[i];
    any_root = any_root || crosses_root[i];
  }
  double n = double(group_in.size());
  if (!at_root && sum <= 1 + kEps) {
    std::copy(group_in.begin(), group_in.end(), out.begin());
    return;
  }
  for (size_t i = 0; i < group_in.size(); ++i) {
    if (!any_root)
      out[i] = std::min(1 / n, group_in[i]);
    else if (crosses_root[i])
      out[i] = std::min(std::max(1 / n - tau, 0.0), group_in[i]);
    else
      out[i] = std::min(1 / n + tau, group_in[i]);
  }
}

// Algorithm 1 (section V-E). Every hop after the first leaves a switch through an output port; the factor a flow
// has after a port is its running factor there, so a flow's factor for the step is its least factor on the path.
void pcie_factors(const Plan& p, const uint8_t* active, double tau, double* factor, Workspace& ws, PcieTrace* trace) {
  const int flows = p.flow_count;
  for (int f = 0; f < flows; ++f) {
    ws.running[size_t(f)] = active[f] ? 1.0 : 0.0;
    if (active[f]) ws.value[size_t(p.path_begin[size_t(f)])] = 1.0;
  }
  // Step B: upstream port conflicts, deepest switches first (eq. 6).
  for (const Port& port : p.up) {
    double sum = 0;
    for (int i = port.begin; i < port.end; ++i) sum += ws.running[size_t(p.entries[size_t(i)].flow)];
    double scale = sum > 1 + kEps ? 1 / sum : 1;
    for (int i = port.begin; i < port.end; ++i) {
      const PortEntry& e = p.entries[size_t(i)];
      if (!active[e.flow]) continue;
      ws.running[size_t(e.flow)] *= scale;
      ws.value[size_t(e.hop)] = ws.running[size_t(e.flow)];
    }
  }
  if (trace) trace->after_b.assign(ws.running.begin(), ws.running.end());
  // Step C: downstream port conflicts from the root complex down (eq. 7). Super communications are the runs of
  // entries with the same input port.
  for (const Port& port : p.down) {
    int groups = 0;
    int last_in = -1;
    for (int i = port.begin; i < port.end; ++i) {
      const PortEntry& e = p.entries[size_t(i)];
      if (!active[e.flow]) continue;
      if (groups == 0 || e.in_link != last_in) {
        ws.group_in[size_t(groups)] = 0;
        ws.group_root[size_t(groups)] = 0;
        ++groups;
        last_in = e.in_link;
      }
      ws.group_in[size_t(groups - 1)] += ws.running[size_t(e.flow)];
      ws.group_root[size_t(groups - 1)] |= uint8_t(e.crossed_root);
    }
    if (groups == 0) continue;
    downstream_share({ws.group_in.data(), size_t(groups)}, {ws.group_root.data(), size_t(groups)}, tau, port.at_root,
                     {ws.group_out.data(), size_t(groups)});
    int g = -1;
    last_in = -1;
    for (int i = port.begin; i < port.end; ++i) {
      const PortEntry& e = p.entries[size_t(i)];
      if (!active[e.flow]) continue;
      if (g < 0 || e.in_link != last_in) {
        ++g;
        last_in = e.in_link;
      }
      double in = ws.group_in[size_t(g)];
      if (in > 0) ws.running[size_t(e.flow)] *= ws.group_out[size_t(g)] / in;
      ws.value[size_t(e.hop)] = ws.running[size_t(e.flow)];
    }
  }
  if (trace) trace->after_c.assign(ws.running.begin(), ws.running.end());
  // Step D, eq. 8: flows entering a switch through the same input port are held to the least factor any of them
  // gets at a port of a later switch whose arbitration lowered it (head-of-line blocking). Only a port that lowers
  // a flow holds the others: the paper's premise of eq. 8 (section V-D: b "is part of an upstream or downstream
  // port conflict at port m"), Example 3 (a's factor "was lowered" at the later port) and Table I's explanation (a
  // lower factor "at a later port which reduces the congestion factor of (a)"); a flow slowed before the shared
  // switch only, with no later port lowering it, blocks nobody behind it. The factor held to is the flow's
  // cumulative factor at that later port (eq. 6-7), so earlier reductions count once a later port lowers it.
  for (int f = 0; f < flows; ++f) {
    if (!active[f]) continue;
    double m = kInf;
    for (int h = p.path_begin[size_t(f) + 1] - 1; h >= p.path_begin[size_t(f)]; --h) {
      ws.later[size_t(h)] = m;
      if (h > p.path_begin[size_t(f)] && ws.value[size_t(h)] < ws.value[size_t(h) - 1] - kEps)
        m = std::min(m, ws.value[size_t(h)]);
    }
    ws.hol[size_t(f)] = ws.running[size_t(f)];
  }
  for (const InputGroup& g : p.input_groups) {
    double m = kInf;
    for (int i = g.begin; i < g.end; ++i) {
      int h = p.input_hops[size_t(i)];
      if (active[p.hop_flow[size_t(h)]]) m = std::min(m, ws.later[size_t(h)]);
    }
    if (m == kInf) continue;
    for (int i = g.begin; i < g.end; ++i) {
      int f = p.hop_flow[size_t(p.input_hops[size_t(i)])];
      if (active[f]) ws.hol[size_t(f)] = std::min(ws.hol[size_t(f)], m);
    }
  }
  auto is_hol = [&](int f) { return ws.hol[size_t(f)] < ws.running[size_t(f)] - kEps; };
  if (trace) {
    trace->after_eq8.assign(size_t(flows), 0);
    for (int f = 0; f < flows; ++f) trace->after_eq8[size_t(f)] = active[f] ? ws.hol[size_t(f)] : 0;
  }
  // Eq. 9: at every port, the bandwidth the blocked flows give up is shared equally by the others there.
  std::copy(ws.value.begin(), ws.value.end(), ws.raised.begin());
  for (const auto* ports : {&p.up, &p.down})
    for (const Port& port : *ports) {
      double given = 0;
      int others = 0;
      for (int i = port.begin; i < port.end; ++i) {
        const PortEntry& e = p.entries[size_t(i)];
        if (!active[e.flow]) continue;
        if (is_hol(e.flow))
          given += ws.value[size_t(e.hop)] - std::min(ws.value[size_t(e.hop)], ws.hol[size_t(e.flow)]);
        else
          ++others;
      }
      if (others == 0 || given <= kEps) continue;
      for (int i = port.begin; i < port.end; ++i) {
        const PortEntry& e = p.entries[size_t(i)];
        if (active[e.flow] && !is_hol(e.flow)) ws.raised[size_t(e.hop)] += given / others;
      }
    }
  for (int f = 0; f < flows; ++f) {
    if (!active[f]) {
      factor[f] = 0;
      continue;
    }
    if (is_hol(f)) {
      factor[f] = ws.hol[size_t(f)];
      continue;
    }
    double m = 1;
    for (int h = p.path_begin[size_t(f)]; h < p.path_begin[size_t(f) + 1]; ++h) m = std::min(m, ws.raised[size_t(h)]);
    factor[f] = m;
  }
  if (trace) trace->after_eq9.assign(factor, factor + flows);
}

void mark_redundant_links(const Plan& p, const double* capacity, Workspace& ws) {
  const size_t links = size_t(p.link_count), flows = size_t(p.flow_count);
  // Each link's flows in flow order (counting sort over the hops), then links grouped by a hash of that list.
  std::vector<int> begin(links + 1, 0), fill, list(p.hop_link.size());
  for (int l : p.hop_link) ++begin[size_t(l) + 1];
  for (size_t l = 0; l < links; ++l) begin[l + 1] += begin[l];
  fill.assign(begin.begin(), begin.end() - 1);
  for (size_t f = 0; f < flows; ++f)
    for (int h = p.path_begin[f]; h < p.path_begin[f + 1]; ++h) list[size_t(fill[size_t(p.hop_link[size_t(h)])]++)] = int(f);
  auto same_flows = [&](size_t a, size_t b) {
    return begin[a + 1] - begin[a] == begin[b + 1] - begin[b] &&
           std::equal(list.begin() + begin[a], list.begin() + begin[a + 1], list.begin() + begin[b]);
  };
  std::vector<std::pair<uint64_t, int>> keyed(links);
  for (size_t l = 0; l < links; ++l) {
    uint64_t h = 1469598103934665603ull ^ uint64_t(begin[l + 1] - begin[l]);
    for (int i = begin[l]; i < begin[l + 1]; ++i) h = (h ^ uint64_t(uint32_t(list[size_t(i)]))) * 1099511628211ull;
    keyed[l] = {h, int(l)};
  }
  std::sort(keyed.begin(), keyed.end());
  ws.redundant.assign(links, 0);
  size_t marked = 0;
  for (size_t i = 0; i < links;) {
    size_t j = i;
    while (j < links && keyed[j].first == keyed[i].first) ++j;
    // Within a run of equal hashes, each link is kept unless an equal list has less capacity (or as much, earlier).
    for (size_t a = i; a < j; ++a)
      for (size_t b = i; b < j; ++b) {
        size_t la = size_t(keyed[a].second), lb = size_t(keyed[b].second);
        if (la == lb || !same_flows(la, lb)) continue;
        if (capacity[lb] < capacity[la] || (capacity[lb] == capacity[la] && lb < la)) {
          ws.redundant[la] = 1;
          ++marked;
          break;
        }
      }
    i = j;
  }
  if (marked == 0) {
    ws.redundant.clear();
    return;
  }
  ws.kept_begin.assign(flows + 1, 0);
  ws.kept_link.clear();
  for (size_t f = 0; f < flows; ++f) {
    for (int h = p.path_begin[f]; h < p.path_begin[f + 1]; ++h)
      if (!ws.redundant[size_t(p.hop_link[size_t(h)])]) ws.kept_link.push_back(p.hop_link[size_t(h)]);
    ws.kept_begin[f + 1] = int(ws.kept_link.size());
  }
}

// Max-min fairness by progressive filling: all unfrozen flows grow at the same pace (the common level); when a
// link is full, the flows crossing it are frozen at the level reached. Each link keeps the level at which it fills
// (the level when its count of unfrozen flows last changed, plus its remaining capacity then over that count) in a
// min-heap. Work per call: O(links log links + hops).
void maxmin_rates(const Plan& p, const uint8_t* active, const double* capacity, double* rate, Workspace& ws,
                  const double* flow_cap) {
  const int flows = p.flow_count, links = p.link_count;
  // Each flow's hops on the links that take part (all of them unless some are left out as redundant).
  const bool pruned = !ws.redundant.empty();
  const int* path_begin = pruned ? ws.kept_begin.data() : p.path_begin.data();
  const int* hop_link = pruned ? ws.kept_link.data() : p.hop_link.data();
  for (int l = 0; l < links; ++l) {
    ws.remaining_capacity[size_t(l)] = capacity[l];
    ws.link_level[size_t(l)] = 0;
    ws.unfrozen_on_link[size_t(l)] = 0;
    ws.link_begin[size_t(l) + 1] = 0;
  }
  for (int f = 0; f < flows; ++f) {
    rate[f] = 0;
    ws.frozen[size_t(f)] = !active[f];
    if (!active[f]) continue;
    for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) {
      ++ws.unfrozen_on_link[size_t(hop_link[h])];
      ++ws.link_begin[size_t(hop_link[h]) + 1];
    }
  }
  // The active flows of each link, grouped by link (counting sort).
  ws.link_begin[0] = 0;
  for (int l = 0; l < links; ++l) ws.link_begin[size_t(l) + 1] += ws.link_begin[size_t(l)];
  for (int l = 0; l < links; ++l) ws.link_fill[size_t(l)] = ws.link_begin[size_t(l)];
  for (int f = 0; f < flows; ++f)
    if (active[f])
      for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) ws.link_flows[size_t(ws.link_fill[size_t(hop_link[h])]++)] = f;
  auto fill_level = [&](int l) {
    return ws.link_level[size_t(l)] + std::max(0.0, ws.remaining_capacity[size_t(l)]) / ws.unfrozen_on_link[size_t(l)];
  };
  std::vector<int>& all = ws.all_links;
  all.resize(size_t(links));
  for (int l = 0; l < links; ++l) all[size_t(l)] = l;
  ws.fill.start(all, ws.unfrozen_on_link.data(), fill_level);
  std::vector<int>& full = ws.full_links;
  double level = 0;
  // A flow stops growing at `level`: each link it crosses keeps what its flows used up to there, one flow fewer.
  auto freeze = [&](int f, double at) {
    ws.frozen[size_t(f)] = 1;
    rate[f] = at;
    for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) {
      size_t k = size_t(hop_link[h]);
      // The link's flows grew together from its last level to this one; one of them stops here.
      ws.remaining_capacity[k] -= (at - ws.link_level[k]) * ws.unfrozen_on_link[k];
      ws.link_level[k] = at;
      --ws.unfrozen_on_link[k];
    }
  };
  // Capped flows (least cap first) stop at their cap when it comes before the next link fills.
  ws.caps.clear();
  if (flow_cap)
    for (int f = 0; f < flows; ++f)
      if (active[f] && flow_cap[f] < kInf) ws.caps.emplace_back(flow_cap[f], f);
  std::sort(ws.caps.begin(), ws.caps.end());
  size_t next_cap = 0;
  for (;;) {
    while (next_cap < ws.caps.size() && ws.frozen[size_t(ws.caps[next_cap].second)]) ++next_cap;
    double link_at = 0;
    bool links_left = ws.fill.peek(ws.unfrozen_on_link.data(), fill_level, link_at);
    if (next_cap < ws.caps.size() && (!links_left || ws.caps[next_cap].first <= link_at)) {
      freeze(ws.caps[next_cap].second, ws.caps[next_cap].first);
      ++next_cap;
      continue;
    }
    if (!ws.fill.next(ws.unfrozen_on_link.data(), capacity, fill_level, level, full)) break;
    for (int l : full)
      for (int i = ws.link_begin[size_t(l)]; i < ws.link_begin[size_t(l) + 1]; ++i) {
        int f = ws.link_flows[size_t(i)];
        if (!ws.frozen[size_t(f)]) freeze(f, level);
      }
  }
}

}  // namespace gpm::engines::congestion
