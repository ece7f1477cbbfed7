// overlap_engine.cpp: the stream-overlap schedule (van Werkhoven et al. sections IV-VI) in max-plus form.
#include "engines/overlap/overlap_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpm::engines {

namespace {

const char* kind_name(OverlapOpKind k) {
  switch (k) {
    case OverlapOpKind::H2D: return "h2d";
    case OverlapOpKind::Kernel: return "kernel";
    case OverlapOpKind::D2H: return "d2h";
    case OverlapOpKind::MappedKernel: return "mapped kernel";
    case OverlapOpKind::MappedD2H: return "mapped d2h";
  }
  return "?";
}

constexpr double kNever = -std::numeric_limits<double>::infinity();

}  // namespace

OverlapEngine::OverlapEngine(OverlapDevice device, OverlapLink h2d, OverlapLink d2h, OverlapLink mapped_d2h,
                             std::vector<OverlapOp> ops, size_t input_count,
                             std::vector<std::pair<std::string, int>> reported)
    : device_(device), h2d_(h2d), d2h_(d2h), mapped_d2h_(mapped_d2h), ops_(std::move(ops)), input_count_(input_count),
      reported_(std::move(reported)) {
  if (device_.copy_engines != 1 && device_.copy_engines != 2)
    throw std::logic_error("overlap engine: 1 or 2 copy engines");
  auto in_range = [&](int i) { return i >= -1 && i < int(input_count_); };
  for (const int* i : {&h2d_.lo, &h2d_.bw, &h2d_.gap, &d2h_.lo, &d2h_.bw, &d2h_.gap, &mapped_d2h_.lo,
                       &mapped_d2h_.bw, &mapped_d2h_.gap})
    if (!in_range(*i)) throw std::logic_error("overlap engine: link input out of range");
  for (const auto& [name, i] : reported_)
    if (i < 0 || !in_range(i)) throw std::logic_error("overlap engine: reported input out of range");
  for (size_t k = 0; k < ops_.size(); ++k) {
    const OverlapOp& op = ops_[k];
    if (!in_range(op.bytes) || !in_range(op.bytes_out) || !in_range(op.time))
      throw std::logic_error("overlap engine: operation input out of range");
    for (int a : op.after)
      if (a < 0 || size_t(a) >= k) throw std::logic_error("overlap engine: a dependency must be issued earlier");
  }
}

int OverlapEngine::streams() const {
  int n = 0;
  for (const auto& op : ops_) n = std::max(n, op.stream + 1);
  return n;
}

OverlapSchedule OverlapEngine::schedule(std::span<const double> in) const {
  OverlapSchedule out;
  if (in.size() != input_count_) {
    out.error = fmt::format("expected {} inputs, got {}", input_count_, in.size());
    out.makespan_s = NAN;
    return out;
  }
  auto value = [&](int i) { return i < 0 ? 0.0 : in[size_t(i)]; };
  for (double v : in)
    if (!std::isfinite(v) || v < 0) {
      out.error = "an input is negative or not finite";
      out.makespan_s = NAN;
      return out;
    }
  // Engines: 0 = h2d copies (all copies with one copy engine), 1 = d2h copies, 2 = compute, 3 = mapped d2h.
  struct Queue {
    double free = kNever;
    OverlapOpKind last = OverlapOpKind::Kernel;
    bool copied = false;  // a copy ran on it before
  } queues[4];
  const char* names_one[4] = {"copy engine", "copy engine", "compute", "mapped d2h"};
  const char* names_two[4] = {"h2d copy engine", "d2h copy engine", "compute", "mapped d2h"};
  std::vector<double> end(ops_.size(), 0);
  std::vector<double> stream_end(size_t(streams()), 0);
  double kernels_end = 0;  // the latest end of the kernels issued so far (implicit synchronisation)
  for (size_t k = 0; k < ops_.size(); ++k) {
    const OverlapOp& op = ops_[k];
    double ready = stream_end[size_t(op.stream)];
    for (int a : op.after) ready = std::max(ready, end[size_t(a)]);
    int q = 2;
    const OverlapLink* link = nullptr;
    switch (op.kind) {
      case OverlapOpKind::H2D: q = 0; link = &h2d_; break;
      case OverlapOpKind::D2H:
        q = device_.copy_engines == 2 ? 1 : 0;
        link = &d2h_;
        if (device_.implicit_sync) ready = std::max(ready, kernels_end);
        break;
      case OverlapOpKind::MappedD2H: q = 3; link = &mapped_d2h_; break;
      default: q = 2;
    }
    Queue& queue = queues[q];
    double start = 0, finish = 0;
    if (link) {
      double lo = value(link->lo), bytes = value(op.bytes), bw = value(link->bw);
      if (bw <= 0) {
        out.error = fmt::format("operation {} ({}) has a link bandwidth of zero", k, op.label);
        out.makespan_s = NAN;
        return out;
      }
      double follow = queue.copied ? queue.free + (queue.last == op.kind ? value(link->gap) : lo) : kNever;
      double begin = std::max(follow, ready + lo);  // when the data starts to flow
      finish = begin + bytes / bw;
      start = std::max(ready, queue.free);
      queue.copied = true;
    } else {
      start = std::max(ready, queue.free == kNever ? 0.0 : queue.free);
      double t = value(op.time);
      if (op.kind == OverlapOpKind::MappedKernel) {
        double lo_hd = value(h2d_.lo), lo_dh = value(d2h_.lo), bw_hd = value(h2d_.bw), bw_dh = value(d2h_.bw);
        if (bw_hd <= 0 || bw_dh <= 0) {
          out.error = fmt::format("operation {} ({}) has a link bandwidth of zero", k, op.label);
          out.makespan_s = NAN;
          return out;
        }
        t = std::max({lo_hd + value(op.bytes) / bw_hd + lo_dh, lo_hd + t + lo_dh, lo_hd + lo_dh + value(op.bytes_out) / bw_dh});
      }
      finish = start + t;
      kernels_end = std::max(kernels_end, finish);
    }
    queue.free = finish;
    queue.last = op.kind;
    end[k] = finish;
    stream_end[size_t(op.stream)] = finish;
    out.makespan_s = std::max(out.makespan_s, finish);
    out.intervals.push_back({device_.copy_engines == 2 ? names_two[q] : names_one[q], op.stream, int(k), start, finish});
  }
  return out;
}

double OverlapEngine::time(std::span<const double> inputs) const {
  OverlapSchedule s = schedule(inputs);
  return s.error.empty() ? s.makespan_s : NAN;
}

ir::EngineResult OverlapEngine::run(std::span<const double> inputs) const {
  ir::EngineResult r;
  OverlapSchedule s = schedule(inputs);
  if (!s.error.empty()) {
    r.error = s.error;
    r.time_s = NAN;
    return r;
  }
  r.time_s = s.makespan_s;
  // E2E section 3.4's parts: the kernels' own compute time (t_E, also of a mapped kernel) counts as kernels.
  r.kernel_s = 0;
  for (const auto& op : ops_)
    if (op.kind == OverlapOpKind::Kernel || op.kind == OverlapOpKind::MappedKernel) r.kernel_s += inputs[size_t(op.time)];
  // Busy time per engine, reported as terms; the largest marks what bounds the schedule.
  std::vector<std::pair<std::string, double>> busy;
  for (const auto& iv : s.intervals) {
    auto it = std::find_if(busy.begin(), busy.end(), [&](const auto& b) { return b.first == iv.engine; });
    if (it == busy.end()) busy.push_back({iv.engine, iv.end_s - iv.start_s});
    else it->second += iv.end_s - iv.start_s;
  }
  for (const auto& [engine, t] : busy) r.terms.push_back({engine + " busy", t, support::Dim::seconds(), true});
  r.terms.push_back({"streams", double(streams()), support::Dim(), false});
  for (const auto& [name, i] : reported_) r.terms.push_back({name, inputs[size_t(i)], support::Dim::seconds(), false});
  r.detail["streams"] = streams();
  r.detail["copy_engines"] = device_.copy_engines;
  r.detail["implicit_sync"] = device_.implicit_sync;
  r.detail["makespan_s"] = s.makespan_s;
  nlohmann::ordered_json timeline = nlohmann::ordered_json::array();
  for (const auto& iv : s.intervals) {
    nlohmann::ordered_json item;
    item["engine"] = iv.engine;
    item["stream"] = iv.stream;
    item["op"] = ops_[size_t(iv.op)].label;
    item["kind"] = kind_name(ops_[size_t(iv.op)].kind);
    item["start_s"] = iv.start_s;
    item["end_s"] = iv.end_s;
    timeline.push_back(item);
  }
  r.detail["timeline"] = timeline;
  return r;
}

std::string OverlapEngine::describe() const {
  std::string out = fmt::format("{} copy engine(s), {} implicit synchronisation, {} streams, {} operations",
                                device_.copy_engines, device_.implicit_sync ? "with" : "no", streams(), ops_.size());
  size_t shown = 0;
  for (const auto& op : ops_) {
    if (++shown > 12) {
      out += fmt::format("\n... {} more", ops_.size() - 12);
      break;
    }
    out += fmt::format("\nstream {}: {} {}", op.stream, kind_name(op.kind), op.label);
    if (!op.after.empty()) out += fmt::format(" (after operations {})", fmt::join(op.after, ", "));
  }
  return out;
}

}  // namespace gpm::engines
