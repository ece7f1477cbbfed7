// maxmin_sim.cpp: the max-min event loop that solves again, at each event, only the flows the event can change.
//
// Max-min sharing by progressive filling (arbitration.cpp) decides a flow's rate from the links it crosses and the
// flows on them, so an event (flows ending, flows starting) changes the rates of only part of the problem:
//  - Flows of another connected component (no link shared, directly or through other flows) keep their rates.
//  - When flows only end, a flow whose rate is below the least rate r of those that ended keeps it: every link an
//    ended flow crossed filled at r or above (a link full below r would have frozen that flow below r), so up to
//    level r the filling sees the same links fill at the same levels, and it freezes the same flows at the same
//    rates. Only flows at r or above can change, and only those connected to the ended flows through links
//    shared among such flows.
// The event's component is found by a breadth-first search from the links of the flows that ended or started,
// through the flows that can change; its links keep, as their capacity, what the flows that cannot change leave
// them; progressive filling runs on it alone. The rates are those of solving the whole problem (the same filling,
// its sums taken in another order: equal to about 1e-15; the unit test compares both loops). A flow's remaining
// bytes are brought up to date only when its rate changes, and its end is kept in a heap, so an event costs the
// flows it changes, not every flow in flight. As in Simulator::run, a flow waiting for others (`after`,
// `also_after`) is issued when the last of them ends, and a flow of a queue (a copy engine) starts when its queue's
// flow ends, the first issued first. A duplex link (CongestionEngine::set_duplex) whose reverse starts or stops
// carrying flows changes capacity: that event solves its component again whole, as when flows start.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engines/congestion/simulator.h"

namespace gpm::engines::congestion {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// A min-heap of flows keyed by a time, each flow in it at most once (a new key moves it): ties by flow index.
class FlowHeap {
 public:
  explicit FlowHeap(int flows) : pos_(size_t(flows), -1), key_(size_t(flows), 0) {}
  bool empty() const { return heap_.empty(); }
  int top() const { return heap_.front(); }
  double top_key() const { return key_[size_t(heap_.front())]; }
  void set(int f, double key) {
    key_[size_t(f)] = key;
    if (pos_[size_t(f)] < 0) {
      pos_[size_t(f)] = int(heap_.size());
      heap_.push_back(f);
    }
    up(size_t(pos_[size_t(f)]));
    down(size_t(pos_[size_t(f)]));
  }
  void erase(int f) {
    int at = pos_[size_t(f)];
    if (at < 0) return;
    int last = heap_.back();
    heap_.pop_back();
    pos_[size_t(f)] = -1;
    if (last == f) return;
    heap_[size_t(at)] = last;
    pos_[size_t(last)] = at;
    up(size_t(at));
    down(size_t(pos_[size_t(last)]));
  }

 private:
  bool before(int a, int b) const {
    return key_[size_t(a)] < key_[size_t(b)] || (key_[size_t(a)] == key_[size_t(b)] && a < b);
  }
  void place(size_t i, int f) {
    heap_[i] = f;
    pos_[size_t(f)] = int(i);
  }
  void up(size_t i) {
    int f = heap_[i];
    while (i > 0 && before(f, heap_[(i - 1) / 2])) {
      place(i, heap_[(i - 1) / 2]);
      i = (i - 1) / 2;
    }
    place(i, f);
  }
  void down(size_t i) {
    int f = heap_[i];
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= heap_.size()) break;
      if (c + 1 < heap_.size() && before(heap_[c + 1], heap_[c])) ++c;
      if (!before(heap_[c], f)) break;
      place(i, heap_[c]);
      i = c;
    }
    place(i, f);
  }
  std::vector<int> heap_, pos_;
  std::vector<double> key_;
};
}  // namespace

double Simulator::run_maxmin(CongestionEngine::Schedule* out, std::string* error) {
  const int flows = p_.flow_count, links = p_.link_count;
  if (!e_.duplex_.empty()) cap_ = plain_cap_;
  // Each flow's hops on the links that take part (mark_redundant_links leaves out those that never fill first).
  const bool pruned = !ws_.redundant.empty();
  const int* path_begin = pruned ? ws_.kept_begin.data() : p_.path_begin.data();
  const int* hop_link = pruned ? ws_.kept_link.data() : p_.hop_link.data();
  const int hops = path_begin[flows];
  // The flows in flight on each link: link l's at [on_begin[l], on_begin[l] + on_size[l]), each with its hop (to
  // move it when another leaves), hop h's entry at pos[h].
  std::vector<int> on_begin(size_t(links) + 1, 0), on_size(size_t(links), 0);
  std::vector<int> on_flow(static_cast<size_t>(hops)), on_hops(static_cast<size_t>(hops)), pos(static_cast<size_t>(hops));
  for (int h = 0; h < hops; ++h) ++on_begin[size_t(hop_link[h]) + 1];
  for (int l = 0; l < links; ++l) on_begin[size_t(l) + 1] += on_begin[size_t(l)];
  auto enter = [&](int f) {
    for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) {
      size_t l = size_t(hop_link[h]);
      int at = on_begin[l] + on_size[l]++;
      on_hops[size_t(at)] = h;
      on_flow[size_t(at)] = f;
      pos[size_t(h)] = at;
    }
  };
  auto leave = [&](int f) {
    for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) {
      size_t l = size_t(hop_link[h]);
      int last = on_begin[l] + --on_size[l];
      int moved = on_hops[size_t(last)];
      on_hops[size_t(pos[size_t(h)])] = moved;
      on_flow[size_t(pos[size_t(h)])] = on_flow[size_t(last)];
      pos[size_t(moved)] = pos[size_t(h)];
    }
  };

  // Per flow: 0 waiting, 1 in flight, 2 done; its bytes left at time since[f] (its rate constant since then).
  std::vector<uint8_t> state(size_t(flows), 0);
  std::vector<double> since(size_t(flows), 0);
  // Issue times; ends; when what is left comes within finished()'s tolerance.
  FlowHeap arrivals(flows), ends(flows), nearly(flows);
  for (int f = 0; f < flows; ++f) {
    remaining_[size_t(f)] = bytes_[size_t(f)];
    rate_[size_t(f)] = 0;
    issue_[size_t(f)] = e_.waits_[size_t(f)] > 0 ? kInf : start_[size_t(f)];
    begin_[size_t(f)] = kInf;
    end_[size_t(f)] = kInf;
    active_[size_t(f)] = 0;
    if (issue_[size_t(f)] < kInf) arrivals.set(f, issue_[size_t(f)]);
  }
  auto left_at = [&](int f, double now) {
    return remaining_[size_t(f)] - rate_[size_t(f)] * (now - since[size_t(f)]);
  };
  auto finished_at = [&](int f, double now) {
    double left = left_at(f, now);
    double rate = rate_[size_t(f)];
    return left <= 1e-9 * bytes_[size_t(f)] || (rate > 0 && now + left / rate <= now);
  };
  auto schedule_end = [&](int f) {
    factor_[size_t(f)] = rate_[size_t(f)] / path_bw_[size_t(f)];
    double rate = rate_[size_t(f)], left = remaining_[size_t(f)], at = since[size_t(f)];
    if (left <= 0) {
      ends.set(f, at);
      nearly.erase(f);
    } else if (rate > 0) {
      ends.set(f, at + left / rate);
      nearly.set(f, at + (left - 1e-9 * bytes_[size_t(f)]) / rate);
    } else {
      ends.erase(f);
      nearly.erase(f);
    }
  };

  // The event's component and its filling: stamps instead of clearing, the component's flows and links.
  uint32_t epoch = 0;
  std::vector<uint32_t> flow_mark(size_t(flows), 0), link_mark(size_t(links), 0), frozen_mark(size_t(flows), 0);
  std::vector<uint8_t> started(size_t(flows), 0), paused(size_t(flows), 0);
  std::vector<int> comp_flows, comp_links, started_now, seeds;
  std::vector<double> spare(size_t(links), 0), level_at(size_t(links), 0), new_rate(size_t(flows), 0);
  std::vector<int> unfrozen(size_t(links), 0);
  std::vector<std::pair<double, int>> caps;  // the component's capped flows, least cap first
  FillQueue fill;
  std::vector<int> full;
  double least_ended = kInf;  // the least rate among the flows that ended at this event
  bool duplex_changed = false;  // a duplex link's capacity changed at this event

  auto solve = [&](double now) {
    ++epoch;
    // Flows that can change: all of them when some started; else those at or above the least rate that ended.
    const double threshold = started_now.empty() && !duplex_changed ? least_ended : -kInf;
    comp_flows.clear();
    comp_links.clear();
    for (int l : seeds)
      if (link_mark[size_t(l)] != epoch) {
        link_mark[size_t(l)] = epoch;
        comp_links.push_back(l);
      }
    for (size_t i = 0; i < comp_links.size(); ++i) {
      const int l = comp_links[i];
      double capacity = cap_[size_t(l)];
      int count = 0;
      for (int k = on_begin[size_t(l)]; k < on_begin[size_t(l)] + on_size[size_t(l)]; ++k) {
        int g = on_flow[size_t(k)];
        if (!started[size_t(g)] && rate_[size_t(g)] < threshold) {
          capacity -= rate_[size_t(g)];  // keeps its rate
          continue;
        }
        ++count;
        if (flow_mark[size_t(g)] == epoch) continue;
        flow_mark[size_t(g)] = epoch;
        comp_flows.push_back(g);
        for (int h = path_begin[g]; h < path_begin[g + 1]; ++h) {
          int k2 = hop_link[h];
          if (link_mark[size_t(k2)] != epoch) {
            link_mark[size_t(k2)] = epoch;
            comp_links.push_back(k2);
          }
        }
      }
      spare[size_t(l)] = capacity;
      unfrozen[size_t(l)] = count;
      level_at[size_t(l)] = 0;
    }
    // Progressive filling on the component, as maxmin_rates does it on the whole problem: a capped flow
    // (FlowSpec::cap_input) stops growing at its cap when that comes before the next link fills.
    auto fill_level = [&](int l) { return level_at[size_t(l)] + std::max(0.0, spare[size_t(l)]) / unfrozen[size_t(l)]; };
    fill.start(comp_links, unfrozen.data(), fill_level);
    auto freeze = [&](int g, double at) {
      frozen_mark[size_t(g)] = epoch;
      new_rate[size_t(g)] = at;
      for (int h = path_begin[g]; h < path_begin[g + 1]; ++h) {
        size_t k2 = size_t(hop_link[h]);
        spare[k2] -= (at - level_at[k2]) * unfrozen[k2];
        level_at[k2] = at;
        --unfrozen[k2];
      }
    };
    caps.clear();
    if (!capped_.empty())
      for (int g : comp_flows)
        if (flow_cap_[size_t(g)] < kInf) caps.emplace_back(flow_cap_[size_t(g)], g);
    std::sort(caps.begin(), caps.end());
    size_t next_cap = 0;
    double level = 0;
    for (;;) {
      double link_at = 0;
      bool links_left = fill.peek(unfrozen.data(), fill_level, link_at);
      if (next_cap < caps.size() && (!links_left || caps[next_cap].first <= link_at)) {
        if (frozen_mark[size_t(caps[next_cap].second)] != epoch) freeze(caps[next_cap].second, caps[next_cap].first);
        ++next_cap;
        continue;
      }
      if (!fill.next(unfrozen.data(), cap_.data(), fill_level, level, full)) break;
      for (int l : full)
        for (int k = on_begin[size_t(l)]; k < on_begin[size_t(l)] + on_size[size_t(l)]; ++k) {
          int g = on_flow[size_t(k)];
          if (flow_mark[size_t(g)] != epoch || frozen_mark[size_t(g)] == epoch) continue;
          freeze(g, level);
        }
    }
    // New rates: a flow whose rate changes has its bytes brought up to date and its end scheduled again.
    for (int g : comp_flows) {
      double r = frozen_mark[size_t(g)] == epoch ? new_rate[size_t(g)] : 0;  // a flow crossing no link never freezes
      if (started[size_t(g)]) {
        rate_[size_t(g)] = r;
        schedule_end(g);
      } else if (r != rate_[size_t(g)]) {
        remaining_[size_t(g)] = left_at(g, now);
        since[size_t(g)] = now;
        rate_[size_t(g)] = r;
        schedule_end(g);
      }
    }
  };

  // Per queue (FlowSpec::queue): its flows issued and waiting; queues whose head may start.
  std::vector<std::vector<int>> queued(queue_head_.size());
  std::fill(queue_head_.begin(), queue_head_.end(), -1);
  waiting_.assign(e_.waits_.begin(), e_.waits_.end());
  init_ready();
  std::vector<int> freed;
  double t = 0, makespan = 0;
  int left = flows;
  while (left > 0) {
    // Flows issued by now start; one of a queue waits while another of its queue moves, and when none does, the
    // first issued of those waiting (ties by flow order) starts.
    started_now.clear();
    // A queue has a flow moving: its head, unless that is paused itself.
    auto moving = [&](int q) { return queue_head_[size_t(q)] >= 0 && !paused[size_t(queue_head_[size_t(q)])]; };
    // A flow moves from now on: its bytes as they are (a new flow's all of them), its links solved again.
    auto resume = [&](int f) {
      paused[size_t(f)] = 0;
      active_[size_t(f)] = 1;
      if (begin_[size_t(f)] == kInf) begin_[size_t(f)] = t;
      since[size_t(f)] = t;
      started[size_t(f)] = 1;
      started_now.push_back(f);
      enter(f);
      for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) seeds.push_back(hop_link[h]);
    };
    auto start = [&](int f) {
      state[size_t(f)] = 1;
      remaining_[size_t(f)] = bytes_[size_t(f)];
      since[size_t(f)] = t;
      int by = e_.flows_[size_t(f)].paused_by;
      if (by >= 0 && moving(by)) {
        paused[size_t(f)] = 1;  // in flight, waiting for its pausing queue (FlowSpec::paused_by)
        return;
      }
      resume(f);
    };
    // A flow in flight stops and keeps its bytes: its links are solved again, as when a flow ends.
    auto pause = [&](int f) {
      remaining_[size_t(f)] = left_at(f, t);
      since[size_t(f)] = t;
      least_ended = std::min(least_ended, rate_[size_t(f)]);
      rate_[size_t(f)] = 0;
      ends.erase(f);
      nearly.erase(f);
      active_[size_t(f)] = 0;
      paused[size_t(f)] = 1;
      if (begin_[size_t(f)] == t) begin_[size_t(f)] = kInf;  // started at this event: it has not moved yet
      leave(f);
      for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) seeds.push_back(hop_link[h]);
    };
    while (!arrivals.empty() && arrivals.top_key() <= t) {
      int f = arrivals.top();
      arrivals.erase(f);
      if (int q = e_.flows_[size_t(f)].queue; q >= 0) {
        queued[size_t(q)].push_back(f);
        freed.push_back(q);
      } else {
        start(f);
      }
    }
    for (int q : freed) {
      auto& w = queued[size_t(q)];
      if (queue_head_[size_t(q)] >= 0 || w.empty()) continue;
      auto first = std::min_element(w.begin(), w.end(), [&](int a, int b) {
        return issue_[size_t(a)] < issue_[size_t(b)] || (issue_[size_t(a)] == issue_[size_t(b)] && a < b);
      });
      queue_head_[size_t(q)] = *first;
      start(*first);
      w.erase(first);
    }
    // The flows a queue pauses (FlowSpec::paused_by) stop when it has a flow moving and go on when it has none.
    for (int q : freed)
      for (int f : pauses_[size_t(q)]) {
        if (state[size_t(f)] != 1) continue;
        if (moving(q) && !paused[size_t(f)]) pause(f);
        else if (!moving(q) && paused[size_t(f)]) resume(f);
      }
    freed.clear();
    // Duplex links whose reverse started or stopped carrying flows change capacity: their components are solved
    // again whole (like a start, any rate may change).
    duplex_changed = !e_.duplex_.empty() && apply_duplex([&](int l) { return on_size[size_t(l)] > 0; }, &seeds);
    if (!seeds.empty() || !started_now.empty()) {
      // A flow that crosses no link (an empty route) is its own component: a kernel's (FlowSpec::timed) moves at one
      // unit per second, another has no rate.
      for (int f : started_now)
        if (path_begin[f] == path_begin[f + 1]) {
          rate_[size_t(f)] = e_.flows_[size_t(f)].timed ? 1 : 0;
          schedule_end(f);
        }
      solve(t);
    }
    for (int f : started_now) started[size_t(f)] = 0;
    seeds.clear();
    least_ended = kInf;
    // The next event: the earliest end or issue.
    double next = arrivals.empty() ? kInf : arrivals.top_key();
    if (!ends.empty()) next = std::min(next, ends.top_key());
    if (next < t) next = t;
    if (next == kInf) {
      if (error) *error = fmt::format("at {} s no flow can progress: {} get no bandwidth", t, stuck_flows());
      return std::nan("");
    }
    if (out && next > t) record_step(*out, t, next);
    // The flows done at `next`: those whose end has come, and those whose bytes left are then within finished()'s
    // tolerance (a flow found not to be yet keeps its entry in `ends`).
    auto take = [&](FlowHeap& heap, bool checked) {
      while (!heap.empty() && heap.top_key() <= next) {
        int f = heap.top();
        if (checked && !finished_at(f, next)) {
          heap.erase(f);
          continue;
        }
        ends.erase(f);
        nearly.erase(f);
        state[size_t(f)] = 2;
        active_[size_t(f)] = 0;
        remaining_[size_t(f)] = left_at(f, next);
        since[size_t(f)] = next;
        end_[size_t(f)] = next;
        makespan = std::max(makespan, next);
        --left;
        least_ended = std::min(least_ended, rate_[size_t(f)]);
        leave(f);
        if (int q = e_.flows_[size_t(f)].queue; q >= 0) {
          queue_head_[size_t(q)] = -1;
          freed.push_back(q);
        }
        for (int h = path_begin[f]; h < path_begin[f + 1]; ++h) seeds.push_back(hop_link[h]);
        release(f, next, [&](int d) { arrivals.set(d, issue_[size_t(d)]); });
      }
    };
    take(ends, false);
    take(nearly, true);
    t = next;
  }
  return finish(out, makespan);
}

}  // namespace gpm::engines::congestion
