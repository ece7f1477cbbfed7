// streams.cpp: a par's branches as streams of copies and delays; the copies share links as flows (streams.h).
#include "engines/congestion/streams.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpm::engines::congestion {

StreamsEngine::StreamsEngine(std::shared_ptr<const CongestionEngine> flows, std::vector<Branch> branches)
    : flows_(std::move(flows)), branches_(std::move(branches)) {
  for (const Branch& b : branches_)
    for (const Item& item : b.items) delay_inputs_ = std::max(delay_inputs_, size_t(item.delay + 1));
}

size_t StreamsEngine::flow_inputs() const {
  return flows_->input_count();
}

StreamsEngine::Ends StreamsEngine::ends(std::span<const double> inputs, CongestionEngine::Schedule* schedule) const {
  Ends e;
  const size_t n = flow_inputs(), b = branches_.size();
  if (inputs.size() < n + 2 * b + delay_inputs_) {
    e.error = "too few inputs";
    e.time = NAN;
    return e;
  }
  CongestionEngine::Schedule s = flows_->simulate(inputs.first(n), flows_->written_rank());
  if (!s.error.empty()) {
    e.error = s.error;
    e.time = NAN;
    return e;
  }
  e.branch_end.resize(b);
  for (size_t i = 0; i < b; ++i) {
    const auto& f = branches_[i].flows;
    double last = 0;  // a branch's copies end one after another; the flows of a block it ends with, in any order
    for (int k : f) last = std::max(last, s.end[size_t(k)]);
    e.branch_end[i] = last + inputs[n + i];
    if (e.branch_end[i] > e.branch_end[size_t(e.critical)]) e.critical = int(i);
  }
  e.time = b > 0 ? e.branch_end[size_t(e.critical)] : 0;
  if (schedule) *schedule = std::move(s);
  return e;
}

double StreamsEngine::time(std::span<const double> inputs) const { return ends(inputs).time; }

ir::EngineResult StreamsEngine::run(std::span<const double> inputs) const {
  CongestionEngine::Schedule schedule;
  Ends e = ends(inputs, &schedule);
  if (!e.error.empty()) {
    ir::EngineResult r;
    r.error = e.error;
    r.time_s = NAN;
    return r;
  }
  // The flows' own report (their routes, starts, ends, steps and busiest links), then each branch's end.
  ir::EngineResult r = flows_->run(inputs.first(flow_inputs()));
  r.time_s = e.time;
  r.kernel_s = inputs[flow_inputs() + branches_.size() + size_t(e.critical)];
  auto streams = nlohmann::ordered_json::array();
  for (size_t i = 0; i < branches_.size(); ++i) {
    nlohmann::ordered_json j;
    j["copies"] = branches_[i].flows.size();
    j["end_s"] = e.branch_end[i];
    j["kernels_s"] = inputs[flow_inputs() + branches_.size() + i];
    streams.push_back(std::move(j));
  }
  r.detail["streams"] = std::move(streams);
  r.detail["critical_stream"] = e.critical;
  // Each branch's items one after another: a delay for its own time, a copy from the end of the item before it (its
  // L+O, then its bytes) to its flow's end, a block's flows side by side, a kernel that took turns from its start.
  const size_t delays = flow_inputs() + 2 * branches_.size();
  auto timeline = nlohmann::ordered_json::array();
  for (size_t i = 0; i < branches_.size(); ++i) {
    double t = 0;
    for (const Item& item : branches_[i].items) {
      double end = item.flow >= 0 ? schedule.end[size_t(item.flow)] : t + inputs[delays + size_t(item.delay)];
      // A block's flows, and an MPI step's messages, run side by side, each from its issue (the end of what it
      // waits for, then its start time).
      // A kernel that took turns on its GPU (a timed flow) runs from when the GPU took it.
      const bool side_by_side = item.kind == "flow" || item.kind == "mpi";
      const bool kernel_flow = item.kind == "kernel" && item.flow >= 0;
      double start = side_by_side                      ? schedule.issued[size_t(item.flow)]
                     : kernel_flow || item.own_start ? schedule.start[size_t(item.flow)]
                                                     : t;
      nlohmann::ordered_json j;
      j["engine"] = item.kind == "flow"                                     ? "flows"
                    : item.kind == "mpi"                                   ? "mpi"
                    : item.kind == "kernel"                                ? "kernels"
                    : item.flow >= 0 || item.kind == "d2d"                 ? "copies"
                                                                           : "host";
      j["stream"] = i;
      j["op"] = item.name;
      j["kind"] = item.kind;
      j["start_s"] = start;
      j["end_s"] = end;
      timeline.push_back(std::move(j));
      t = std::max(t, end);
    }
  }
  r.detail["timeline"] = std::move(timeline);
  return r;
}

std::string StreamsEngine::describe() const {
  std::string out = flows_->describe();
  for (size_t i = 0; i < branches_.size(); ++i) {
    out += fmt::format("\nstream {}: flows", i);
    for (int f : branches_[i].flows) out += fmt::format(" {}", f);
    out += ", then its tail (input)";
  }
  return out;
}

}  // namespace gpm::engines::congestion
