// lower_offload.cpp: lowers `offload` statements (van Werkhoven et al. section VII's four strategies) to an
// overlap-engine task: the operations of each stream, the host link's LogGP parameters and the kernel's time.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engines/overlap/overlap_engine.h"
#include "lower/lower.h"
#include "ir/topology.h"

namespace gpm::lower {

using namespace frontend;
using engines::OverlapOp;
using engines::OverlapOpKind;

namespace {

// The LogGP parameters of the host path in one direction: L+O (sum), bandwidths (minimum), gap (maximum).
struct PathParams {
  ValueId lo = kNoValue, bw = kNoValue, gap = kNoValue, duplex = kNoValue, mapped = kNoValue;
  bool all_duplex = true, all_mapped = true;
  std::string route;
};

// The place of an operation kind in the breadth-first issue order.
int issue_rank(const std::string& op) { return op == "h2d" ? 0 : op == "kernel" ? 1 : 2; }

// The streams `which` names from stream i of n: first, previous, next, last or all.
std::vector<int> streams_named(const std::string& which, int i, int n) {
  if (which == "first") return {0};
  if (which == "previous") return i > 0 ? std::vector<int>{i - 1} : std::vector<int>{};
  if (which == "next") return i + 1 < n ? std::vector<int>{i + 1} : std::vector<int>{};
  if (which == "last") return {n - 1};
  std::vector<int> all(size_t(n), 0);
  for (int k = 0; k < n; ++k) all[size_t(k)] = k;
  return all;
}

}  // namespace

// Cross-stream dependencies (`kernel after h2d(next)`): the CUDA events of van Werkhoven et al. section VII,
// which make the kernel of level k wait for the copies of levels 1, k - 1 and k (buoydiff), or a stencil's
// kernel for its neighbour level's input. Operations are laid out as issued: h2d of streams 0..n-1, then the
// kernels, then the d2h copies; a wait on the operation's own stream, or on itself, adds nothing and is dropped.
void Lowerer::add_offload_waits(const Stmt& s, int streams, std::vector<OverlapOp>& ops) {
  for (const auto& wait : s.waits)
    for (int i = 0; i < streams; ++i) {
      OverlapOp& op = ops[size_t(issue_rank(wait.op) * streams + i)];
      for (const auto& target : wait.targets)
        for (int j : streams_named(target.which, i, streams)) {
          bool earlier = issue_rank(target.op) < issue_rank(wait.op) ? j != i : j < i;
          int index = issue_rank(target.op) * streams + j;
          if (earlier && std::find(op.after.begin(), op.after.end(), index) == op.after.end()) op.after.push_back(index);
        }
      std::sort(op.after.begin(), op.after.end());
    }
}

Task Lowerer::lower_offload(const Stmt& s) {
  // `--strategy` (and `--compare strategy`) overrides the strategy as written or as a word parameter's value.
  std::string strategy = strategy_override_.empty() ? word_of(s.strategy_param, s.strategy) : strategy_override_;
  Task task = Task::make(TaskKind::Engine, fmt::format("offload {} ({})", s.name, strategy), s.range);
  std::map<std::string, const Attr*> attrs;
  for (const auto& a : s.attrs) attrs[a.name] = &a;
  int gpu = gpu_for(s.on, s.range);
  if (gpu < 0) return task;
  const Component& g = m_.topology.components[size_t(gpu)];
  task.name = fmt::format("offload {} on {} ({})", s.name, g.path, strategy);
  task.track = g.path + " offload";

  // The device class (Table III): copy engines and implicit synchronisation decide the schedule's shape.
  ValueId ce = gpu_attr(gpu, "copy_engines", s.range, "an offload (the overlap model's device class)");
  ValueId is = gpu_attr(gpu, "implicit_sync", s.range, "an offload (the overlap model's device class)");
  if (ce == kNoValue || is == kNoValue) return task;
  double ce_v = eager_value(ce), is_v = eager_value(is);
  if (ce_v != 1 && ce_v != 2) {
    diags_.error(DiagKind::InvalidKeyword, s.range,
                 fmt::format("the overlap model knows GPUs with 1 or 2 copy engines; `{}` has {}", g.path, ce_v));
    return task;
  }
  if (is_v != 0 && is_v != 1) {
    diags_.error(DiagKind::InvalidKeyword, s.range, fmt::format("`implicit_sync` of `{}` must be 0 or 1, not {}", g.path, is_v));
    return task;
  }
  engines::OverlapDevice device{int(ce_v), is_v == 1};

  // The kernel: an explicit time, or the roofline on this GPU.
  auto attr_value = [&](const char* name, const char* what) {
    ValueId v = lower_expr(*attrs[name]->value);
    add_check(CheckKind::NonNegative, v, attrs[name]->value->range, fmt::format("the {} of offload `{}`", what, s.name));
    return v;
  };
  ValueId t_e = kNoValue, work = kNoValue, traffic = kNoValue, peak = kNoValue;
  if (attrs.count("time")) {
    t_e = attr_value("time", "kernel time");
  } else {
    std::string peak_name = peak_attr_name(attrs.count("precision") ? attrs["precision"] : nullptr);
    if (peak_name.empty()) return task;
    work = attr_value("flops", "flops");
    traffic = attr_value("bytes", "device memory bytes");
    peak = gpu_attr(gpu, peak_name, s.range, fmt::format("offload `{}` (its kernel has flops)", s.name));
    ValueId mem_bw = gpu_attr(gpu, "mem_bw", s.range, fmt::format("offload `{}` (its kernel has bytes)", s.name));
    if (peak == kNoValue || mem_bw == kNoValue) return task;
    t_e = call_stdlib("roofline_time", {call_stdlib("roofline_compute_time", {work, peak}, s.range),
                                        call_stdlib("roofline_memory_time", {traffic, mem_bw}, s.range)},
                      s.range);
  }
  ValueId b_hd = attr_value("bytes_in", "bytes in");
  ValueId b_dh = attr_value("bytes_out", "bytes out");
  m_.checks.push_back({CheckKind::WholeNumber, b_hd, kNoValue, kNoValue, attrs["bytes_in"]->value->range, "a size in bytes"});
  m_.checks.push_back({CheckKind::WholeNumber, b_dh, kNoValue, kNoValue, attrs["bytes_out"]->value->range, "a size in bytes"});
  ValueId mb_hd = attrs.count("mapped_bytes_in") ? attr_value("mapped_bytes_in", "mapped bytes in") : b_hd;
  ValueId mb_dh = attrs.count("mapped_bytes_out") ? attr_value("mapped_bytes_out", "mapped bytes out") : b_dh;
  ValueId n = attrs.count("streams") ? lower_expr(*attrs["streams"]->value) : b_.constant(1, Dim::count(), s.range);
  if (attrs.count("streams")) {
    m_.checks.push_back({CheckKind::WholeNumber, n, kNoValue, kNoValue, attrs["streams"]->value->range, "a stream count"});
    add_check(CheckKind::Positive, n, attrs["streams"]->value->range, "a stream count");
  }
  double n_v = eager_value(n);
  if (!(n_v >= 1 && n_v <= 4096 && n_v == std::floor(n_v))) {
    diags_.error(DiagKind::ParamOutOfRange, attrs.count("streams") ? attrs["streams"]->value->range : s.range,
                 fmt::format("an offload runs 1 to 4096 streams, not {}", n_v));
    return task;
  }
  int streams = strategy == "streams" || strategy == "hybrid" ? int(n_v) : 1;

  // The host link, both directions.
  int memory = nearest_of_kind(m_.topology, gpu, "memory");
  if (memory < 0) {
    diags_.error(DiagKind::NoPath, s.range, fmt::format("no host memory is linked to gpu `{}`", g.path));
    return task;
  }
  PathParams dir[2];
  std::vector<Hop> hops[2];  // each direction's route
  for (int d = 0; d < 2; ++d) {
    auto path = d == 0 ? shortest_path(m_.topology, memory, gpu, {}, link_costs())
                         : shortest_path(m_.topology, gpu, memory, {}, link_costs());
    if (!path) {
      diags_.error(DiagKind::NoPath, s.range, fmt::format("no path of links joins `{}` and host memory {}", g.path,
                                                          d == 0 ? "(host to device)" : "(device to host)"));
      return task;
    }
    PathParams& p = dir[d];
    hops[d] = *path;
    for (size_t i = 0; i < path->size(); ++i) {
      const Hop& hop = (*path)[i];
      task.route.emplace_back(hop.link, hop.direction);  // both directions: a `par` checks them against its branches
      const Link& link = m_.topology.links[size_t(hop.link)];
      auto add = [&](ValueId& acc, ValueId v, Opcode op) { acc = acc == kNoValue ? v : b_.binary(op, acc, v, link.range); };
      add(p.lo, link.latency[hop.direction], Opcode::Add);
      add(p.bw, link.bw[hop.direction], Opcode::Min);
      if (link.gap[hop.direction] != kNoValue) add(p.gap, link.gap[hop.direction], Opcode::Max);
      // A link without its own duplex or mapped bandwidth contributes its plain one.
      ValueId du = link.bw_duplex[hop.direction], ma = link.bw_mapped[hop.direction];
      add(p.duplex, du != kNoValue ? du : link.bw[hop.direction], Opcode::Min);
      add(p.mapped, ma != kNoValue ? ma : link.bw[hop.direction], Opcode::Min);
      if (i + 1 < path->size()) {
        const Component& crossed = m_.topology.components[size_t(hop.direction == 0 ? link.b : link.a)];
        if (crossed.kind == "switch" || crossed.kind == "root")
          if (auto it = crossed.attrs.find("latency"); it != crossed.attrs.end()) add(p.lo, it->second, Opcode::Add);
      }
    }
  }
  if (streams > 1 && (dir[0].gap == kNoValue || dir[1].gap == kNoValue)) {
    diags_.error(DiagKind::MissingAttribute, s.range,
                 "an offload over several streams needs the LogGP gap of the host link: give it `gap` (or `gap_fwd` "
                 "and `gap_rev`)");
    return task;
  }
  ValueId zero = b_.constant(0, Dim::seconds(), s.range);
  ValueId g_hd = dir[0].gap != kNoValue ? dir[0].gap : zero, g_dh = dir[1].gap != kNoValue ? dir[1].gap : zero;

  // Which bandwidths each strategy meets (Table II): explicit copies both ways at once on 2 copy engines
  // (streams), explicit copies beside mapped writes (hybrid); otherwise one direction at a time.
  ValueId bw_hd = dir[0].bw, bw_dh = dir[1].bw;
  if (strategy == "streams" && device.copy_engines == 2) bw_hd = dir[0].duplex, bw_dh = dir[1].duplex;
  if (strategy == "hybrid") bw_hd = dir[0].mapped, bw_dh = dir[1].mapped;

  // Inputs: 0-2 h2d L+o, bw, g; 3-5 d2h L+o, bw, g; 6 bytes in per stream; 7 bytes out per stream; 8 kernel time
  // per stream; 9-11 the extended roofline bounds (reported, not scheduled).
  ValueId n_real = b_.constant(streams, Dim::count(), s.range);
  ValueId in_each = b_.binary(Opcode::Div, strategy == "implicit" ? mb_hd : b_hd, n_real, s.range);
  ValueId out_each = b_.binary(Opcode::Div, strategy == "implicit" ? mb_dh : b_dh, n_real, s.range);
  ValueId t_each = b_.binary(Opcode::Div, t_e, n_real, s.range);
  std::vector<ValueId> inputs = {dir[0].lo, bw_hd, g_hd, dir[1].lo, bw_dh, g_dh, in_each, out_each, t_each};
  std::vector<std::pair<std::string, int>> reported;
  if (work != kNoValue) {
    // Section III-A with each direction's own bandwidth (stdlib/overlap.gpm).
    ValueId mem_bw = gpu_attr(gpu, "mem_bw", s.range, "the roofline");
    std::vector<ValueId> args = {work, peak, traffic, mem_bw, b_hd, dir[0].bw, b_dh, dir[1].bw};
    inputs.push_back(call_stdlib("overlap_full_bound", args, s.range));
    inputs.push_back(call_stdlib("overlap_zero_bound", args, s.range));
    inputs.push_back(call_stdlib("overlap_mapped_bound", {work, peak, traffic, dir[0].bw, dir[1].bw}, s.range));
    reported = {{"full-overlap bound", 9}, {"zero-overlap bound", 10}, {"mapped bound", 11}};
  }
  std::vector<OverlapOp> ops;
  if (strategy == "implicit") {
    ops.push_back({OverlapOpKind::MappedKernel, 0, s.name, 6, 7, 8, {}});
  } else {
    // Issued breadth first, as section IV draws them: every stream's input, then the kernels, then the outputs.
    for (int i = 0; i < streams; ++i) ops.push_back({OverlapOpKind::H2D, i, fmt::format("{} in", s.name), 6, -1, -1, {}});
    for (int i = 0; i < streams; ++i) ops.push_back({OverlapOpKind::Kernel, i, s.name, -1, -1, 8, {}});
    for (int i = 0; i < streams; ++i)
      ops.push_back({strategy == "hybrid" ? OverlapOpKind::MappedD2H : OverlapOpKind::D2H, i,
                     fmt::format("{} out", s.name), 7, -1, -1, {}});
  }
  if (strategy != "implicit") add_offload_waits(s, streams, ops);
  // An implicit offload stays eq. 6 with each direction's single-direction G (section 10.2): as flows of a par, its
  // reads and writes would meet the links' duplex bandwidth, a reading of its own; it keeps the par a maximum.
  if (strategy == "streams" || strategy == "hybrid") {
    // The schedule below as flows, for a `par` whose branches share links: each operation waits for its stream's
    // previous one, its declared waits and (a d2h copy, with implicit synchronisation) every kernel issued before it;
    // a copy then pays its L+o, and takes its turn on its engine after the operation issued before it there, with
    // LogGP's gap g after one of its own direction, L+o after one of the other (section V); a kernel takes its turn
    // on the GPU's compute. A copy moves at most at the bandwidth its strategy meets (Table II: duplex, or beside
    // mapped writes), the links' own where that is less.
    int last_on[4] = {-1, -1, -1, -1};
    std::vector<int> last_of(size_t(streams), -1);
    std::vector<int> kernels_before;
    for (size_t k = 0; k < ops.size(); ++k) {
      const OverlapOp& op = ops[k];
      Task::FlowOp f;
      const bool kernel = op.kind == OverlapOpKind::Kernel;
      const int d = op.kind == OverlapOpKind::H2D ? 0 : 1;
      f.engine = kernel ? 2 : op.kind == OverlapOpKind::H2D ? 0 : op.kind == OverlapOpKind::MappedD2H ? 3
                                                                 : device.copy_engines == 2 ? 1 : 0;
      f.kind = kernel ? "kernel" : d == 0 ? "h2d" : "d2h";
      f.name = fmt::format("offload {}: {}, stream {}", s.name,
                           op.kind == OverlapOpKind::MappedD2H ? "mapped d2h" : f.kind, op.stream);
      if (int prev = last_of[size_t(op.stream)]; prev >= 0) f.after.push_back(prev);
      f.after.insert(f.after.end(), op.after.begin(), op.after.end());
      if (op.kind == OverlapOpKind::D2H && device.implicit_sync)
        f.after.insert(f.after.end(), kernels_before.begin(), kernels_before.end());
      std::sort(f.after.begin(), f.after.end());
      f.after.erase(std::unique(f.after.begin(), f.after.end()), f.after.end());
      f.turn_after = last_on[f.engine];
      if (kernel) {
        f.src = f.dst = int32_t(gpu);
        f.size = inputs[8];
        if (f.turn_after >= 0) f.turn_gap = zero;
        kernels_before.push_back(int(k));
      } else {
        f.src = d == 0 ? memory : gpu;
        f.dst = d == 0 ? gpu : memory;
        for (const Hop& hop : hops[d]) f.route.emplace_back(hop.link, hop.direction);
        f.size = inputs[d == 0 ? 6 : 7];
        f.delay = dir[d].lo;
        ValueId bw = d == 0 ? bw_hd : bw_dh;
        if (bw != dir[d].bw) f.cap = bw;
        if (f.turn_after >= 0)
          f.turn_gap = ops[size_t(f.turn_after)].kind == op.kind ? (d == 0 ? g_hd : g_dh) : dir[d].lo;
      }
      last_on[f.engine] = int(k);
      last_of[size_t(op.stream)] = int(k);
      task.flow_form.push_back(std::move(f));
    }
  }
  auto engine = std::make_shared<engines::OverlapEngine>(device, engines::OverlapLink{0, 1, 2},
                                                         engines::OverlapLink{3, 4, 5}, engines::OverlapLink{3, 4, 5},
                                                         std::move(ops), inputs.size(), std::move(reported));
  static const std::map<std::string, std::string> models = {
      {"explicit", "Explicit: copies, kernel, copies (van Werkhoven et al. Figure 7, one stream)"},
      {"implicit", "Implicit: device-mapped memory (van Werkhoven et al. eq. 6)"},
      {"streams", "Streams (van Werkhoven et al. section IV, Figure 7 eq. 1-5)"},
      {"hybrid", "Hybrid: streams in, mapped out (van Werkhoven et al. section VII, as eq. 5)"}};
  task.model = models.at(strategy);
  // E2E section 3.4: the kernel's compute time is kernels (the engine reports it), the rest of the makespan, the
  // host-device transfers not hidden behind it, is overhead like the copies it stands for.
  task.part = "overhead";
  if (strategy == "explicit") {
    // One stream: its h2d copy (L+o + B_hd G, AHEAD eq. 10 on the same route), its kernel, its d2h copy, one after
    // another (Figure 7 with one stream). Alone, that sequence takes the engine's time; in a `par` whose branches
    // share links or the GPU, the copies become flows and the kernel takes turns on the GPU.
    auto copy_op = [&](int d, ValueId bytes) {
      bool h2d = d == 0;
      Task op = Task::make(TaskKind::Op,
                           fmt::format("copy {} of offload {} ({})", h2d ? "h2d" : "d2h", s.name,
                                       route_name(h2d ? memory : gpu, hops[d])),
                           s.range);
      op.part = "overhead";
      op.track = g.path + " copies";
      op.model = "AHEAD eq. 10, pinned (an explicit offload's copy)";
      op.value = call_stdlib("ahead_pinned_copy_time", {dir[d].lo, bytes, dir[d].bw}, s.range);
      op.terms = {{"L+O", dir[d].lo}, {"path bandwidth", dir[d].bw}};
      for (const Hop& hop : hops[d]) op.route.emplace_back(hop.link, hop.direction);
      op.flow = {h2d ? memory : gpu, h2d ? gpu : memory, bytes, dir[d].lo};
      return op;
    };
    Task kernel = Task::make(TaskKind::Op, fmt::format("kernel of offload {} on {}", s.name, g.path), s.range);
    kernel.part = "kernels";
    kernel.track = g.path + " kernels";
    kernel.model = "the offload's kernel";
    kernel.value = t_e;
    kernel.gpu = int32_t(gpu);
    task.stream_form = {copy_op(0, b_hd), std::move(kernel), copy_op(1, b_dh)};
  }
  task.engine_call = int32_t(m_.engine_calls.size());
  m_.engine_calls.push_back({engine, inputs});
  return task;
}

}  // namespace gpm::lower
