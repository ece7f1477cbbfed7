// projection.cpp: prices each copy of a trace on both machines, matches a trace measured on B, sums the groups.
#include "project/projection.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

namespace gpm::project {

using support::DiagKind;

const char* size_class_name(double bytes) {
  if (bytes < 10) return "< 10 B";
  if (bytes <= 1e6) return "10 B - 1 MB";
  return "> 1 MB";
}

namespace {

using CopyKey = std::tuple<CopyPricer::Shape, double>;  // what the copy is, its size

// Two traces' copies pair up by kind, memory, size and, for a peer copy, its two GPUs; the GPU of a host or d2d
// copy is left out, since a trace may not record it.
CopyKey key_of(const TraceCopy& copy) {
  CopyPricer::Shape shape = CopyPricer::shape_of(copy);
  shape.gpu = -1;
  return {shape, copy.bytes};
}

std::string describe(const CopyKey& key) {
  const CopyPricer::Shape& shape = std::get<0>(key);
  std::string where = shape.kind == CopyKind::P2P ? fmt::format(" from GPU {} to GPU {}", shape.src_gpu, shape.dst_gpu)
                      : shape.memory != HostMemory::None ? fmt::format(" from {} memory", host_memory_name(shape.memory))
                                                         : "";
  return fmt::format("{} cop{{}} of {} B{}", copy_kind_name(shape.kind), std::get<1>(key), where);
}

std::string plural(const std::string& pattern, size_t count) {
  return fmt::format(fmt::runtime(pattern), count == 1 ? "y" : "ies");
}

// The k-th copy of each (kind, memory, size) of B's trace for the k-th such copy of A's; false after reporting
// the first kind, memory and size whose counts differ.
bool match_measured(const Trace& a, const Trace& b, support::DiagnosticEngine& diags,
                    std::vector<ProjectedCopy>& copies) {
  std::map<CopyKey, std::vector<const TraceCopy*>> in_a, in_b;
  for (const auto& copy : a.copies) in_a[key_of(copy)].push_back(&copy);
  for (const auto& copy : b.copies) in_b[key_of(copy)].push_back(&copy);
  for (const auto& [key, list] : in_a) {
    size_t other = in_b.count(key) ? in_b.at(key).size() : 0;
    if (other == list.size()) continue;
    diags.error(DiagKind::TraceMismatch, {},
                fmt::format("the trace from A (`{}`) has {} {} and the trace measured on B (`{}`) has {}; the first "
                            "in A is at {}. Both traces must record the same copies",
                            a.path, list.size(), plural(describe(key), list.size()), b.path, other,
                            list.front()->where));
    return false;
  }
  for (const auto& [key, list] : in_b) {
    if (in_a.count(key)) continue;
    diags.error(DiagKind::TraceMismatch, {},
                fmt::format("the trace measured on B (`{}`) has {} {} and the trace from A (`{}`) has none; the "
                            "first is at {}. Both traces must record the same copies",
                            b.path, list.size(), plural(describe(key), list.size()), a.path, list.front()->where));
    return false;
  }
  std::map<CopyKey, size_t> next;
  for (auto& projected : copies) {
    CopyKey key = key_of(*projected.copy);
    projected.measured_b_s = in_b.at(key)[next[key]++]->duration_s;
  }
  return true;
}

void add_to(CopyGroup& group, const ProjectedCopy& p) {
  group.count += 1;
  group.bytes += p.copy->bytes;
  group.measured_a_s += p.copy->duration_s;
  group.model_a_s += p.model_a_s;
  group.projected_b_s += p.projected_b_s;
  group.ratio_b_s += p.ratio_b_s;
  group.measured_b_s += p.measured_b_s;
}

// The errors of a group from its members (the sums above are kept as added, in trace order).
void summarize(CopyGroup& group, const std::vector<const ProjectedCopy*>& members, bool have_b) {
  std::vector<double> measured_a, model_a, measured_b, projected_b, ratio_b;
  for (const auto* p : members) {
    measured_a.push_back(p->copy->duration_s);
    model_a.push_back(p->model_a_s);
    measured_b.push_back(p->measured_b_s);
    projected_b.push_back(p->projected_b_s);
    ratio_b.push_back(p->ratio_b_s);
  }
  group.model_a_errors = validate::summarize_errors(measured_a, model_a);
  if (!have_b) return;
  group.projected_errors = validate::summarize_errors(measured_b, projected_b);
  group.ratio_errors = validate::summarize_errors(measured_b, ratio_b);
}

}  // namespace

bool project_trace(const Trace& from_a, CopyPricer& model_a, CopyPricer& model_b, const Trace* measured_b,
                   support::DiagnosticEngine& diags, Projection& out, CopyPricer*& failed) {
  out.trace_path = from_a.path;
  out.trace_format = from_a.format;
  out.from_file = model_a.machine_file();
  out.to_file = model_b.machine_file();
  out.skipped = from_a.skipped;
  for (const auto& kernel : from_a.kernels) out.kernel_count += 1, out.kernel_time_a_s += kernel.duration_s;
  if (from_a.copies.empty()) {
    // Nothing to price: the machines are still compiled, so that their errors show and the report names them.
    if (!model_a.check_machine()) return failed = &model_a, false;
    if (!model_b.check_machine()) return failed = &model_b, false;
  }
  // The bandwidth ratio of each shape of copy once (a p2p copy's depends on its two GPUs), then each copy on
  // both machines.
  std::map<CopyPricer::Shape, double> ratio;
  for (const auto& copy : from_a.copies) {
    ProjectedCopy p;
    p.copy = &copy;
    CopyPricer::Shape shape = CopyPricer::shape_of(copy);
    if (!ratio.count(shape)) {
      double bw_a = 0, bw_b = 0;
      if (!model_a.bandwidth(shape, bw_a)) return failed = &model_a, false;
      if (!model_b.bandwidth(shape, bw_b)) return failed = &model_b, false;
      ratio[shape] = bw_a / bw_b;
    }
    if (!model_a.price(shape, copy.bytes, p.model_a_s)) return failed = &model_a, false;
    if (!model_b.price(shape, copy.bytes, p.projected_b_s)) return failed = &model_b, false;
    p.ratio_b_s = copy.duration_s * ratio[shape];
    out.copies.push_back(p);
  }
  out.from_machine = model_a.machine_name();
  out.to_machine = model_b.machine_name();
  if (measured_b) {
    out.measured_b_path = measured_b->path;
    out.skipped_b = measured_b->skipped;
    if (!match_measured(from_a, *measured_b, diags, out.copies)) return false;
  }
  bool have_b = measured_b != nullptr;
  // Groups: the three size classes (always shown), then the kinds present in a fixed order.
  const char* classes[] = {"< 10 B", "10 B - 1 MB", "> 1 MB"};
  std::vector<std::vector<const ProjectedCopy*>> class_members(3), kind_members;
  std::map<std::pair<int, int>, size_t> kind_index;
  for (const auto& p : out.copies) {
    auto kind_key = std::make_pair(int(p.copy->kind), int(p.copy->memory));
    kind_index.emplace(kind_key, 0);
  }
  for (auto& [key, index] : kind_index) {
    index = out.kinds.size();
    CopyGroup group;
    group.name = key.second == int(HostMemory::None)
                     ? std::string(copy_kind_name(CopyKind(key.first)))
                     : fmt::format("{} {}", copy_kind_name(CopyKind(key.first)), host_memory_name(HostMemory(key.second)));
    out.kinds.push_back(group);
  }
  kind_members.resize(out.kinds.size());
  for (const char* name : classes) {
    CopyGroup group;
    group.name = name;
    out.size_classes.push_back(group);
  }
  std::vector<const ProjectedCopy*> all;
  for (const auto& p : out.copies) {
    size_t c = 0;
    while (size_class_name(p.copy->bytes) != std::string(classes[c])) ++c;
    add_to(out.size_classes[c], p);
    class_members[c].push_back(&p);
    size_t k = kind_index.at({int(p.copy->kind), int(p.copy->memory)});
    add_to(out.kinds[k], p);
    kind_members[k].push_back(&p);
    add_to(out.total, p);
    all.push_back(&p);
  }
  out.total.name = "all copies";
  for (size_t c = 0; c < 3; ++c) summarize(out.size_classes[c], class_members[c], have_b);
  for (size_t k = 0; k < out.kinds.size(); ++k) summarize(out.kinds[k], kind_members[k], have_b);
  summarize(out.total, all, have_b);
  return true;
}

}  // namespace gpm::project
