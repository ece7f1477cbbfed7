// lower_app.cpp: lowers an app's statements to the task tree, each operation with its model's time.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <functional>
#include <set>

#include "engines/congestion/engine.h"
#include "engines/mpi/fabric_engine.h"
#include "lower/lower.h"
#include "ir/topology.h"

namespace gpm::lower {

using namespace frontend;

int Lowerer::gpu_for(const std::optional<CompRef>& on, SourceRange site) {
  if (on) {
    auto found = resolve(*on, "");
    if (found.empty()) return -1;
    if (found.size() > 1 || m_.topology.components[size_t(found[0])].kind != "gpu") {
      diags_.error(DiagKind::UnknownComponent, on->range,
                   fmt::format("`{}` must name one gpu", source_text(on->range)));
      return -1;
    }
    return found[0];
  }
  auto gpus = components_of_kind(m_.topology, "gpu");
  if (gpus.empty()) {
    diags_.error(DiagKind::MissingComponent, site, fmt::format("machine `{}` has no gpu to run this on", m_.machine_name));
    return -1;
  }
  return gpus[0];  // the first gpu in declaration order
}

ValueId Lowerer::gpu_attr(int gpu, const std::string& attr, SourceRange site, const std::string& why) {
  const Component& c = m_.topology.components[size_t(gpu)];
  auto it = c.attrs.find(attr);
  if (it != c.attrs.end()) return it->second;
  diags_.error(DiagKind::MissingAttribute, site, fmt::format("gpu `{}` has no `{}`, which {} needs", c.path, attr, why));
  diags_.note(c.range, "the gpu is declared here");
  return kNoValue;
}

std::string Lowerer::peak_attr_name(const Attr* precision) {
  if (!precision) return "peak_fp64";
  double p = eager_value(lower_expr(*precision->value));
  if (p != 64 && p != 32 && p != 16) {
    diags_.error(DiagKind::InvalidKeyword, precision->value->range,
                 fmt::format("precision must be 64, 32 or 16, not {}", p));
    return {};
  }
  return fmt::format("peak_fp{}", int(p));
}

Task Lowerer::lower_run(const AppDecl& app, const Stmt& s) {
  Task task = Task::make(TaskKind::Op, "run " + s.name, s.range);
  task.part = "kernels";
  const KernelDecl* kernel = nullptr;
  for (const auto& k : app.kernels)
    if (k->name == s.name) kernel = k.get();
  std::map<std::string, const Attr*> attrs;
  for (const auto& a : kernel->attrs) attrs[a.name] = &a;
  // Kernel work and times are never negative.
  auto attr_value = [&](const char* name, const char* what) {
    ValueId v = lower_expr(*attrs[name]->value);
    add_check(CheckKind::NonNegative, v, attrs[name]->value->range, fmt::format("the {} of kernel `{}`", what, kernel->name));
    return v;
  };
  std::string peak_name = peak_attr_name(attrs.count("precision") ? attrs["precision"] : nullptr);
  if (peak_name.empty()) return task;
  bool placed = s.on || kernel->on;
  bool mapped = !s.attrs.empty();  // `run k { mapped_in = ...; mapped_out = ... }`: lower_mapped_run.cpp
  int gpu = placed || mapped || !attrs.count("time") ? gpu_for(s.on ? s.on : kernel->on, s.range) : -1;
  if (gpu >= 0) task.name += " on " + m_.topology.components[size_t(gpu)].path;
  task.track = gpu >= 0 ? m_.topology.components[size_t(gpu)].path + " kernels" : "kernels";
  // The kernel's working set must fit in the GPU's memory (checked at evaluation, like a copy's buffer).
  if (attrs.count("footprint") && gpu >= 0)
    check_fits(gpu, attr_value("footprint", "footprint"), s.range,
               fmt::format("the footprint of kernel `{}`", kernel->name), "kernel");
  if (attrs.count("time")) {
    task.model = "explicit time";
    task.value = attr_value("time", "time");
    return mapped && gpu >= 0 ? lower_mapped_run(s, std::move(task), gpu) : task;
  }
  if (gpu < 0) return task;
  // Roofline: time = max(flops / peak, bytes / memory bandwidth), stdlib/roofline.gpm.
  ValueId compute = kNoValue, memory = kNoValue;
  if (attrs.count("flops")) {
    ValueId peak = gpu_attr(gpu, peak_name, kernel->name_range, fmt::format("kernel `{}` (it has flops)", kernel->name));
    if (peak == kNoValue) return task;
    compute = call_stdlib("roofline_compute_time", {attr_value("flops", "flops"), peak}, s.range);
    task.terms.push_back({"compute time", compute, true});
  }
  if (attrs.count("bytes")) {
    ValueId bw = gpu_attr(gpu, "mem_bw", kernel->name_range, fmt::format("kernel `{}` (it has bytes)", kernel->name));
    if (bw == kNoValue) return task;
    memory = call_stdlib("roofline_memory_time", {attr_value("bytes", "bytes"), bw}, s.range);
    task.terms.push_back({"memory time", memory, true});
  }
  // Quantitative roofline (E2E paper section 3.3): L2 and shared-memory traffic at the GPU's attainable
  // rates are further limits; the kernel takes as long as the largest term.
  std::vector<ValueId> extra;
  struct Level { const char* count; const char* rate; const char* fn; const char* term; const char* what; };
  for (const Level& lv : {Level{"l2_bytes", "l2_bw", "qroof_l2_time", "L2 time", "L2 bytes"},
                          Level{"shared_bytes", "shared_bw", "qroof_shared_time", "shared memory time", "shared bytes"}}) {
    if (!attrs.count(lv.count)) continue;
    ValueId bw = gpu_attr(gpu, lv.rate, kernel->name_range, fmt::format("kernel `{}` (it has {})", kernel->name, lv.count));
    if (bw == kNoValue) return task;
    ValueId t = call_stdlib(lv.fn, {attr_value(lv.count, lv.what), bw}, s.range);
    task.terms.push_back({lv.term, t, true});
    extra.push_back(t);
  }
  if (compute != kNoValue && memory != kNoValue) {
    task.value = call_stdlib("roofline_time", {compute, memory}, s.range);
    task.model = "roofline";
  } else if (compute != kNoValue || memory != kNoValue) {
    task.value = compute != kNoValue ? compute : memory;
    task.model = compute != kNoValue ? "roofline (compute only)" : "roofline (memory only)";
  } else {
    task.value = kNoValue;
  }
  for (ValueId t : extra) {
    task.value = task.value == kNoValue ? t : call_stdlib("qroof_time", {task.value, t}, s.range);
    task.model = "quantitative roofline";
  }
  task.gpu = gpu;
  // A GPU that declares its host's kernel issue time: the kernel takes at least that long (stdlib/roofline.gpm).
  const auto& gpu_attrs = m_.topology.components[size_t(gpu)].attrs;
  if (auto issue = gpu_attrs.find("kernel_issue"); issue != gpu_attrs.end() && task.value != kNoValue) {
    task.terms.push_back({"kernel issue", issue->second, true});
    task.value = call_stdlib("issued_kernel_time", {task.value, issue->second}, s.range);
    task.model += ", at least the kernel issue";
  }
  return mapped && task.value != kNoValue ? lower_mapped_run(s, std::move(task), gpu) : task;
}

// A path's L+O is the sum of its links' latencies and of the latencies of the switches and root complexes it
// crosses; its bandwidth is the slowest link's; its gap the largest (each in the direction travelled).
LinkCostFn Lowerer::link_costs() {
  return [this](int link, int direction) {
    const Link& l = m_.topology.links[size_t(link)];
    return LinkCost{eager_value(l.latency[direction]), eager_value(l.bw[direction])};
  };
}

Lowerer::PathCost Lowerer::path_cost(const std::vector<Hop>& path) {
  ValueId lo = kNoValue, bw = kNoValue, gap = kNoValue;
  for (size_t i = 0; i < path.size(); ++i) {
    const Hop& hop = path[i];
    const Link& link = m_.topology.links[size_t(hop.link)];
    ValueId l = link.latency[hop.direction], w = link.bw[hop.direction], g = link.gap[hop.direction];
    if (g != kNoValue) gap = gap == kNoValue ? g : b_.binary(Opcode::Max, gap, g, link.range);
    lo = lo == kNoValue ? l : b_.binary(Opcode::Add, lo, l, link.range);
    bw = bw == kNoValue ? w : b_.binary(Opcode::Min, bw, w, link.range);
    if (i + 1 == path.size()) break;
    const Component& crossed = m_.topology.components[size_t(hop.direction == 0 ? link.b : link.a)];
    if (crossed.kind != "switch" && crossed.kind != "root") continue;
    if (auto it = crossed.attrs.find("latency"); it != crossed.attrs.end())
      lo = b_.binary(Opcode::Add, lo, it->second, crossed.range);
  }
  return {lo, bw, gap};
}

// Every component of a route from its first to its last: `s[0].ddr4 -> s[0].p9 -> s[0].g[0]`.
std::string Lowerer::route_name(int from, const std::vector<Hop>& path) const {
  std::string route = m_.topology.components[size_t(from)].path;
  for (const Hop& hop : path) {
    const Link& link = m_.topology.links[size_t(hop.link)];
    route += " -> " + m_.topology.components[size_t(hop.direction == 0 ? link.b : link.a)].path;
  }
  return route;
}

Task Lowerer::lower_copy(const Stmt& s) {
  // A word parameter standing for the direction or the host memory kind gives its value, shown in the name.
  std::string direction = word_of(s.direction_param, s.direction);
  std::string host_kind = word_of(s.host_kind_param, s.host_kind);
  std::vector<std::pair<SourceRange, std::string>> shown;
  if (s.direction_param) shown.emplace_back(s.direction_range, direction);
  if (s.host_kind_param) shown.emplace_back(s.host_kind_range, host_kind);
  // The name is the statement up to its attribute block (`{ streams = n }` shows as the `streams` term).
  SourceRange written = s.range;
  written.end = s.expr->range.end;
  if (s.host_kind_range.valid()) written.end = std::max(written.end, s.host_kind_range.end);
  if (s.on) written.end = std::max(written.end, s.on->range.end);
  if (s.peer_to) written.end = std::max(written.end, s.peer_to->range.end);
  Task task = Task::make(TaskKind::Op, source_text(written, shown), s.range);
  task.part = "overhead";  // E2E section 3.4: the measured overhead includes the CPU-GPU copies
  ValueId bytes;
  if (s.buffer) {
    bytes = lower_expr(*s.buffer->size);
    host_kind = s.buffer->host_kind;
  } else {
    bytes = lower_expr(*s.expr);
    m_.checks.push_back({CheckKind::WholeNumber, bytes, kNoValue, kNoValue, s.expr->range, "a copy size in bytes"});
  }
  if (s.direction == "p2p") return lower_peer_copy(s, std::move(task), bytes);
  int gpu = gpu_for(s.on, s.range);
  if (gpu < 0) return task;
  const std::string& gpu_path = m_.topology.components[size_t(gpu)].path;
  task.track = gpu_path + " copies";
  // A d2d copy holds its source and its destination on the GPU; h2d and d2h one buffer there.
  check_fits(gpu, direction == "d2d" ? b_.binary(Opcode::Mul, bytes, b_.constant(2, Dim::count(), s.range), s.range) : bytes,
             s.range, direction == "d2d" ? "its source and destination" : "its device buffer");
  if (direction == "d2d") {
    // AHEAD section IV-C: device-to-device copies use eq. 10 with the GPU memory bandwidth.
    ValueId lo = gpu_attr(gpu, "d2d_latency", s.range, "a d2d copy (AHEAD: the one-byte copy time)");
    ValueId bw = gpu_attr(gpu, "mem_bw", s.range, "a d2d copy");
    if (lo == kNoValue || bw == kNoValue) return task;
    task.model = "AHEAD eq. 10, device to device";
    task.gpu = gpu;
    task.value = call_stdlib("ahead_d2d_copy_time", {lo, bytes, bw}, s.range);
    task.terms = {{"L+O", lo}, {"gpu memory bandwidth", bw}};
    return task;
  }
  int memory = -1;
  if (s.host_memory) {  // `from MEM` / `to MEM`: the memory named, wherever it is (a remote socket's crosses its link)
    auto found = resolve(*s.host_memory, "");
    if (found.empty()) return task;
    if (found.size() > 1 || m_.topology.components[size_t(found[0])].kind != "memory") {
      diags_.error(DiagKind::UnknownComponent, s.host_memory->range,
                   fmt::format("`{}` must name one memory", source_text(s.host_memory->range)));
      return task;
    }
    memory = found[0];
  } else {
    memory = nearest_of_kind(m_.topology, gpu, "memory");
  }
  if (memory < 0) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("no host memory is linked to gpu `{}`; add a `memory` and links to it", gpu_path));
    return task;
  }
  bool h2d = direction == "h2d";
  auto path = h2d ? shortest_path(m_.topology, memory, gpu, {}, link_costs())
                  : shortest_path(m_.topology, gpu, memory, {}, link_costs());
  const std::string& mem_path = m_.topology.components[size_t(memory)].path;
  if (!path) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("no path of links carries data from `{}` to `{}`", h2d ? mem_path : gpu_path,
                             h2d ? gpu_path : mem_path));
    return task;
  }
  auto [lo, bw, gap] = path_cost(*path);
  task.name += " (" + route_name(h2d ? memory : gpu, *path) + ")";
  for (const Hop& hop : *path) task.route.emplace_back(hop.link, hop.direction);
  task.terms = {{"L+O", lo}, {"path bandwidth", bw}};
  const Component& mem = m_.topology.components[size_t(memory)];
  auto mem_bw = mem.attrs.find("bw");
  if (host_kind == "pageable" && mem_bw == mem.attrs.end()) {
    diags_.error(DiagKind::MissingAttribute, s.range,
                 fmt::format("a pageable copy needs the bandwidth `bw` of host memory `{}`", mem.path));
    diags_.note(mem.range, "the memory is declared here");
    return task;
  }
  ValueId host_bw = host_kind == "pageable" ? mem_bw->second : kNoValue;
  // As a flow (in a `par` whose copies share a link), a pageable copy: the driver stages the copy through a pinned
  // buffer in chunks, its staging copies through host memory (2 n / host_bw) and its DMA transfers (n / bw) one after
  // another, so the flow moves at most at bw host_bw / (host_bw + 2 bw) and alone ends at eq. 9's time.
  ValueId rate = kNoValue;
  if (host_bw != kNoValue)
    rate = b_.binary(Opcode::Div, b_.binary(Opcode::Mul, bw, host_bw, s.range),
                     b_.binary(Opcode::Add, host_bw,
                               b_.binary(Opcode::Mul, b_.constant(2, Dim::count(), s.range), bw, s.range), s.range),
                     s.range);
  if (!s.attrs.empty()) {
    task.split.src = h2d ? memory : gpu;  // its ends, for a copy over streams in a par (Task::split)
    task.split.dst = h2d ? gpu : memory;
    if (host_bw != kNoValue) {
      task.split.staging = memory;
      task.split.rate = rate;
    }
    return lower_stream_copy(s, task, host_bw, lo, bytes, bw, gap);
  }
  if (host_kind == "pinned") {
    task.model = "AHEAD eq. 10, pinned";
    task.value = call_stdlib("ahead_pinned_copy_time", {lo, bytes, bw}, s.range);
    task.flow = {h2d ? memory : gpu, h2d ? gpu : memory, bytes, lo};
    return task;
  }
  task.model = "AHEAD eq. 9, pageable";
  task.value = call_stdlib("ahead_pageable_copy_time", {lo, bytes, mem_bw->second, bw}, s.range);
  task.terms.push_back({"host memory bandwidth", mem_bw->second});
  task.flow = {h2d ? memory : gpu, h2d ? gpu : memory, bytes, lo, memory, rate};
  return task;
}

// A copy split over n streams (`{ streams = n }`). Pinned: van Werkhoven et al. section V, LogGP with the path's
// L+O, G = 1 / path bandwidth and the largest gap g of the path's links: T = L+o + kG + g (n - 1). Pageable
// (`host_bw` given): an asynchronous copy from pageable memory is staged through a pinned buffer and returns
// only when done (the paper's section V considers pinned memory alone for this reason), so the n per-stream
// copies of k / n bytes run one after another, each AHEAD eq. 9: T = n (L+O) + 2k / host_bw + k / bw.
Task Lowerer::lower_stream_copy(const Stmt& s, Task task, ValueId host_bw, ValueId lo, ValueId bytes, ValueId bw,
                                ValueId gap) {
  const Attr& streams = s.attrs[0];
  ValueId n = lower_expr(*streams.value);
  if (host_bw != kNoValue) {
    m_.checks.push_back({CheckKind::WholeNumber, n, kNoValue, kNoValue, streams.value->range, "a stream count"});
    add_check(CheckKind::Positive, n, streams.value->range, "a stream count");
    task.model = "AHEAD eq. 9 per stream, pageable (synchronous, one stream after another)";
    task.value = call_stdlib("pageable_stream_copy_time", {lo, bytes, host_bw, bw, n}, s.range);
    task.terms.push_back({"host memory bandwidth", host_bw});
    task.terms.push_back({"streams", n});
    task.split.bytes = bytes;  // in a par: its per-stream copies (Lowerer::split_pageable_copy)
    task.split.latency = lo;
    task.split.streams = n;
    return task;
  }
  if (gap == kNoValue && eager_value(n) == 1) {  // one stream: no gap is paid, AHEAD eq. 10 alone
    task.model = "AHEAD eq. 10, pinned";
    task.value = call_stdlib("ahead_pinned_copy_time", {lo, bytes, bw}, s.range);
    task.flow = {task.split.src, task.split.dst, bytes, lo};  // one copy: a flow in a par like any other
    task.split = {};
    return task;
  }
  if (gap == kNoValue) {
    diags_.error(DiagKind::MissingAttribute, streams.name_range,
                 "a copy over streams needs the LogGP gap of its path: give a link on it `gap` (or `gap_fwd` and "
                 "`gap_rev`)");
    return task;
  }
  m_.checks.push_back({CheckKind::WholeNumber, n, kNoValue, kNoValue, streams.value->range, "a stream count"});
  add_check(CheckKind::Positive, n, streams.value->range, "a stream count");
  task.model = "LogGP streams (van Werkhoven et al. section V; AHEAD eq. 10 at one stream)";
  task.value = call_stdlib("loggp_copy_time", {lo, bytes, bw, gap, n}, s.range);
  task.split.bytes = bytes;
  task.split.latency = lo;
  task.split.gap = gap;
  task.split.streams = n;
  task.terms.push_back({"gap g", gap});
  task.terms.push_back({"streams", n});
  return task;
}

// A pinned copy over streams as its pieces: one copy of bytes / n per stream, each after the route's L+O and in its
// turn on the GPU's copy engine, LogGP's gap g after the piece before it (van Werkhoven et al. section V: alone,
// L+o + kG + g (n - 1)). The stream count shapes the module (eager_value).
Task Lowerer::split_copy(const Task& t) {
  Task p = Task::make(TaskKind::Op, t.name, t.range);
  double n = eager_value(t.split.streams);
  if (!(n >= 1 && n <= 4096 && n == std::floor(n))) return p;
  p.part = t.part;
  p.track = t.track;
  const bool h2d = m_.topology.components[size_t(t.split.dst)].kind == "gpu";
  ValueId each = b_.binary(Opcode::Div, t.split.bytes, b_.constant(n, Dim::count(), t.range), t.range);
  for (int i = 0; i < int(n); ++i) {
    Task::FlowOp op;
    op.name = fmt::format("{}, stream {}", t.name, i);
    op.kind = h2d ? "h2d" : "d2h";
    op.src = t.split.src;
    op.dst = t.split.dst;
    op.route = t.route;
    op.size = each;
    op.delay = t.split.latency;
    op.engine = h2d ? 0 : 1;
    if (i > 0) {
      op.turn_after = i - 1;
      op.turn_gap = t.split.gap;
    }
    p.flow_form.push_back(std::move(op));
  }
  return p;
}

// A pageable copy over streams as its per-stream copies: n copies of bytes / n, one after another (each returns
// only when done, section 3.6), each an AHEAD eq. 9 copy: the route's L+O, then a flow staged through host memory at
// most at eq. 9's rate, so that alone they end at n (L+O) + 2k / B_mem + k / BW, the closed form's time. As a
// pageable copy, each takes its GPU's turn for pageable copies in its direction (lower_par_copies.cpp). The stream
// count shapes the module (eager_value); empty when it is not a whole number from 1 to 4096.
std::vector<Task> Lowerer::split_pageable_copy(const Task& t) {
  std::vector<Task> copies;
  double n = eager_value(t.split.streams);
  if (!(n >= 1 && n <= 4096 && n == std::floor(n))) return copies;
  ValueId each = b_.binary(Opcode::Div, t.split.bytes, b_.constant(n, Dim::count(), t.range), t.range);
  for (int i = 0; i < int(n); ++i) {
    Task c = Task::make(TaskKind::Op, fmt::format("{}, stream {}", t.name, i), t.range);
    c.part = t.part;
    c.track = t.track;
    c.route = t.route;
    c.flow = {t.split.src, t.split.dst, each, t.split.latency, t.split.staging, t.split.rate};
    copies.push_back(std::move(c));
  }
  return copies;
}

static std::string stmt_title(const Stmt& s, const std::string& text) {
  switch (s.kind) {
    case StmtKind::Seq: return "seq";
    case StmtKind::Par: return "par";
    case StmtKind::Phase: return s.name;
    default: return text;
  }
}

Task Lowerer::lower_stmt(const AppDecl& app, const Stmt& s) {
  switch (s.kind) {
    case StmtKind::Run: return lower_run(app, s);
    case StmtKind::Copy: return lower_copy(s);
    case StmtKind::Flows: return lower_flows(s);
    case StmtKind::Mpi: return lower_mpi(s);
    case StmtKind::Offload: return lower_offload(s);
    case StmtKind::Overhead: {
      Task task = Task::make(TaskKind::Op, "overhead " + source_text(s.expr->range), s.range);
      task.model = "overhead as written";
      task.part = "overhead";
      task.track = "host";
      task.value = lower_expr(*s.expr);
      add_check(CheckKind::NonNegative, task.value, s.expr->range, "an overhead");
      task.range = s.range;
      return task;
    }
    default: break;
  }
  Task task;
  task.range = s.range;
  task.kind = s.kind == StmtKind::Seq ? TaskKind::Seq
              : s.kind == StmtKind::Par ? TaskKind::Par
              : s.kind == StmtKind::Phase ? TaskKind::Phase
                                          : TaskKind::Iterate;
  task.name = stmt_title(s, "iterate " + (s.expr ? source_text(s.expr->range) : ""));
  if (s.kind == StmtKind::Iterate) {
    task.value = lower_expr(*s.expr);
    m_.checks.push_back({CheckKind::WholeNumber, task.value, kNoValue, kNoValue, s.expr->range, "an iteration count"});
  }
  for (const auto& child : s.body) lower_into(app, *child, task.children);
  if (task.kind == TaskKind::Par) return share_par_copies(s, std::move(task));
  return task;
}

// A copy's bytes, or a kernel's footprint, on a GPU whose `mem_size` is known must fit in it (checked at evaluation,
// where sizes are known).
void Lowerer::check_fits(int gpu, ValueId bytes, SourceRange site, const std::string& what, const char* who) {
  const Component& c = m_.topology.components[size_t(gpu)];
  auto size = c.attrs.find("mem_size");
  if (size == c.attrs.end()) return;
  m_.checks.push_back({CheckKind::AtMost, bytes, kNoValue, size->second, site,
                       fmt::format("the memory this {} needs on gpu `{}` ({})", who, c.path, what)});
}

void Lowerer::check_rank_buffer(const Stmt& s, ValueId bytes, const std::string& what) {
  if (!gpu_memory_looked_) {
    gpu_memory_looked_ = true;
    std::set<ValueId> sizes;
    bool all = true;
    for (const Component& c : m_.topology.components) {
      if (c.kind != "gpu") continue;
      auto size = c.attrs.find("mem_size");
      if (size == c.attrs.end()) {
        all = false;  // a GPU of unknown memory could hold any buffer
        break;
      }
      sizes.insert(size->second);
    }
    if (all)
      for (ValueId v : sizes)
        largest_gpu_memory_ = largest_gpu_memory_ == kNoValue ? v : b_.binary(Opcode::Max, largest_gpu_memory_, v, {});
  }
  if (largest_gpu_memory_ == kNoValue) return;
  m_.checks.push_back({CheckKind::AtMost, bytes, kNoValue, largest_gpu_memory_, s.range,
                       fmt::format("the memory a rank of `mpi {}` needs on its GPU ({})", s.name, what)});
}


void Lowerer::lower_app(const AppDecl& app) {
  m_.app_name = app.name;
  m_.root = Task::make(TaskKind::Seq, app.name);
  for (const auto& d : app.data) {
    ValueId size = lower_expr(*d->size);
    m_.checks.push_back({CheckKind::WholeNumber, size, kNoValue, kNoValue, d->size->range,
                         fmt::format("the size of `{}` in bytes", d->names[0].first)});
  }
  std::vector<Task> tasks;
  for (const auto& s : app.body) lower_into(app, *s, tasks);
  for (Task& t : tasks) {
    if (t.kind == TaskKind::Op || t.kind == TaskKind::Engine) {  // every top-level statement is a phase; a lone operation gets a phase of its own
      Task phase = Task::make(TaskKind::Phase, t.name, t.range);
      phase.children.push_back(std::move(t));
      t = std::move(phase);
    }
    m_.root.children.push_back(std::move(t));
  }
}

}  // namespace gpm::lower
