// timeline.cpp: the whole run as Chrome trace events (`--timeline FILE.json`, loadable in Perfetto): phases as
// spans, every operation as a slice on its resource's track at the time the task tree places it, and each
// offload's engine schedule as a process of its own.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "backend/report/report.h"

namespace gpm::backend {

namespace {

constexpr double kUs = 1e6;  // trace times are in microseconds

class TimelineBuilder {
 public:
  explicit TimelineBuilder(nlohmann::ordered_json& events) : events_(events) {}
  size_t slices = 0;
  bool truncated = false;

  void process(int pid, const std::string& name) {
    events_.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
  }

  // The rows of one phase from `begin` (all of depth `depth` and deeper), laid out from `start` as the block `kind`
  // (seq, par or iterate `count` times) lays out its children.
  void place_children(const std::vector<Row>& rows, size_t begin, size_t end, int depth, const std::string& kind,
                      double count, double start) {
    std::vector<size_t> children;
    for (size_t i = begin; i < end; ++i)
      if (rows[i].depth == depth) children.push_back(i);
    children.push_back(end);
    double t = start;
    double repeats = kind == "iterate" ? count : 1;
    for (double k = 0; k < repeats; ++k) {
      if (full()) return;  // the rest of the iterations are not drawn (the note in the document says so)
      for (size_t c = 0; c + 1 < children.size(); ++c) {
        double each = place(rows, children[c], children[c + 1], t);
        if (kind != "par") t += each;
      }
    }
  }

  // One row (and the rows inside it, up to `end`) from `start`; returns its time.
  double place(const std::vector<Row>& rows, size_t at, size_t end, double start) {
    const Row& row = rows[at];
    if (row.is_block) {
      place_children(rows, at + 1, end, row.depth + 1, row.block, row.iterations, start);
      return row.each_s;
    }
    if (full()) return row.each_s;
    std::string track = row.track.empty() ? "operations" : row.track;
    int tid = track_for(track, start, start + row.each_s);
    events_.push_back({{"name", row.name},
                       {"cat", row.part.empty() ? "operation" : row.part},
                       {"ph", "X"},
                       {"pid", 1},
                       {"tid", tid},
                       {"ts", start * kUs},
                       {"dur", row.each_s * kUs},
                       {"args", {{"model", row.model}}}});
    ++slices;
    if (row.detail.is_object() && row.detail.contains("timeline")) schedule(row, start);
    return row.each_s;
  }

  void phase_span(const PhaseResult& phase, double start) {
    events_.push_back({{"name", phase.name},
                       {"cat", "phase"},
                       {"ph", "X"},
                       {"pid", 1},
                       {"tid", 1},
                       {"ts", start * kUs},
                       {"dur", phase.time_s * kUs}});
    ++slices;
  }

  void name_tracks() {
    events_.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "phases"}}}});
    for (const auto& [name, lanes] : tracks_)
      for (size_t lane = 0; lane < lanes.size(); ++lane)
        events_.push_back({{"name", "thread_name"},
                           {"ph", "M"},
                           {"pid", 1},
                           {"tid", lanes[lane].tid},
                           {"args", {{"name", lane == 0 ? name : fmt::format("{} ({})", name, lane + 1)}}}});
  }

 private:
  static constexpr size_t kMaxSlices = 200'000;
  struct Lane {
    int tid;
    double end;
  };

  bool full() {
    if (slices >= kMaxSlices) truncated = true;
    return truncated;
  }

  // A track of `name` free from `start`: its first lane whose last slice has ended, or a new lane beside it, so
  // that operations running at once on one resource are drawn side by side.
  int track_for(const std::string& name, double start, double end) {
    auto& lanes = tracks_[name];
    for (Lane& lane : lanes)
      if (lane.end <= start * (1 + 1e-12) + 1e-18) {
        lane.end = end;
        return lane.tid;
      }
    lanes.push_back({next_tid_++, end});
    return lanes.back().tid;
  }

  // An offload's engine schedule (its detail's `timeline`), as a process of its own from the operation's start.
  void schedule(const Row& row, double start) {
    int pid = next_pid_++;
    process(pid, fmt::format("{} at {:.6g} s", row.name, start));
    // A track per engine and stream; items of one that overlap (the flows of a `flows` block run side by side) go
    // to further lanes of it, named `(2)`, `(3)`, ...
    struct Track {
      std::string engine;
      int stream, lane, tid;
      double end;
    };
    std::vector<Track> tracks;
    for (const auto& item : row.detail["timeline"]) {
      std::string engine = item["engine"].get<std::string>();
      int stream = item["stream"].get<int>();
      double from = item["start_s"].get<double>(), to = item["end_s"].get<double>();
      int lane = 0, tid = -1;
      for (Track& t : tracks) {
        if (t.engine != engine || t.stream != stream) continue;
        lane = std::max(lane, t.lane + 1);
        if (tid < 0 && t.end <= from * (1 + 1e-12) + 1e-18) {
          tid = t.tid;
          t.end = to;
        }
      }
      if (tid < 0) {
        tid = int(tracks.size()) + 1;
        tracks.push_back({engine, stream, lane, tid, to});
        events_.push_back({{"name", "thread_name"},
                           {"ph", "M"},
                           {"pid", pid},
                           {"tid", tid},
                           {"args", {{"name", lane == 0 ? fmt::format("{} / stream {}", engine, stream)
                                                        : fmt::format("{} / stream {} ({})", engine, stream, lane + 1)}}}});
      }
      events_.push_back({{"name", item["op"]},
                         {"cat", item["kind"]},
                         {"ph", "X"},
                         {"pid", pid},
                         {"tid", tid},
                         {"ts", (start + from) * kUs},
                         {"dur", (to - from) * kUs}});
      ++slices;
    }
  }

  nlohmann::ordered_json& events_;
  std::map<std::string, std::vector<Lane>> tracks_;
  int next_tid_ = 2;  // tid 1 holds the phases
  int next_pid_ = 2;  // pid 1 is the app
};

}  // namespace

nlohmann::ordered_json timeline_json(const Evaluation& e) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  TimelineBuilder builder(events);
  builder.process(1, fmt::format("{} on {}", e.app, e.machine));
  double t = 0;
  for (const auto& phase : e.phases) {
    builder.phase_span(phase, t);
    builder.place_children(phase.rows, 0, phase.rows.size(), 0, phase.block, phase.iterations, t);
    t += phase.time_s;
  }
  builder.name_tracks();
  nlohmann::ordered_json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ns";
  if (builder.truncated)
    doc["otherData"] = {{"note", fmt::format("the first {} slices are drawn; later iterations are not", builder.slices)}};
  return doc;
}

}  // namespace gpm::backend
