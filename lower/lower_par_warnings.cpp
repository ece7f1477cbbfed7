// lower_par_warnings.cpp: what a `par` that stays a maximum of its branches does not price, said once per par: links
// its branches' copies, flows, offloads or mapped runs cross together, and GPUs two branches' kernels or d2d copies use
// at once.
#include <fmt/format.h>

#include <functional>
#include <map>

#include "engines/congestion/engine.h"
#include "engines/mpi/fabric_engine.h"
#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;
namespace cg = engines::congestion;

// `par` takes the longest of its branches, each priced alone: copies in different branches that cross one link in
// one direction (or both directions of a link whose `bw_duplex` says what that costs) would share it, which `par`
// does not model unless its branches are pinned copies or `seq`s of pinned copies, kernels and overheads
// (share_par_copies). Says so, once per par, with the first
// such pair (a `flows` block does share links).
void Lowerer::warn_shared_links(const Stmt& s, const Task& par) {
  struct Use {
    size_t branch;
    std::string name;
    bool flow;  // a flow of a `flows` block, not a copy
  };
  std::map<std::pair<int, int>, Use> used;  // (link, direction) -> the first copy or flow crossing it
  // One copy's or flow's hops; false once a link is found shared (and said so).
  auto cross = [&](const std::vector<std::pair<int32_t, int32_t>>& route, const std::string& name, bool flow,
                   SourceRange where, size_t branch) {
    for (auto [link_id, direction] : route) {
      Hop hop{link_id, direction};
      const Link& link = m_.topology.links[size_t(hop.link)];
      auto same = used.find({hop.link, hop.direction});
      auto other = used.find({hop.link, 1 - hop.direction});
      bool duplex = other != used.end() && other->second.branch != branch && link.bw_duplex[hop.direction] != kNoValue;
      if ((same != used.end() && same->second.branch != branch) || duplex) {
        const Use& first = duplex ? other->second : same->second;
        const Component& from = m_.topology.components[size_t(hop.direction == 0 ? link.a : link.b)];
        const Component& to = m_.topology.components[size_t(hop.direction == 0 ? link.b : link.a)];
        auto offload = [](const std::string& n) { return n.starts_with("offload "); };
        auto mapped = [](const std::string& n) { return n.find("(mapped over ") != std::string::npos; };
        if (offload(first.name) || offload(name) || mapped(first.name) || mapped(name)) {
          // An offload's copies (not an implicit offload's accesses) and a run's mapped accesses become flows where the
          // whole par can (share_par_copies); in a par that stays a maximum, the overlap model and eq. 6 price them.
          bool off = offload(first.name) || offload(name);
          diags_.warning(DiagKind::UnmodelledSharing, s.range,
                         fmt::format("`{}` and `{}` in this `par` move data over the link {} {} {} together, but `par` "
                                     "prices each as if it had the link to itself ({}){}",
                                     first.name, name, from.path, duplex ? "<->" : "->", to.path,
                                     off ? "an `implicit` offload's mapped accesses are priced by van Werkhoven et al. "
                                           "eq. 6 alone, and another offload's copies become flows only where every "
                                           "branch of the `par` can; otherwise the overlap model schedules them on "
                                           "their GPU alone"
                                         : "a run's device-mapped accesses become flows only where every branch of the "
                                           "`par` can; here van Werkhoven et al. eq. 6 prices them alone",
                                     duplex ? "; the link's `bw_duplex` is not applied either" : ""));
          diags_.note(where, offload(name) ? "the second offload"
                             : mapped(name) ? "the mapped run"
                             : flow         ? "the block of the second flow"
                                            : "the second copy");
          return false;
        }
        diags_.warning(DiagKind::UnmodelledSharing, s.range,
                       fmt::format("{} in this `par` cross the link {} {} {} together (`{}` and `{}`), but `par` "
                                   "prices each as if it had the link to itself{}; write them as a `flows` block, or "
                                   "as a `par` of copies, `flows` blocks and `seq`s of them, kernels and "
                                   "overheads, to share it",
                                   first.flow && flow ? "flows" : first.flow || flow ? "copies and flows" : "copies", from.path,
                                   duplex ? "<->" : "->", to.path, first.name, name,
                                   duplex ? ", and the link's `bw_duplex` is not applied" : ""));
        diags_.note(where, flow ? "the block of the second flow" : "the second copy");
        return false;
      }
      used.insert({{hop.link, hop.direction}, {branch, name, flow}});
    }
    return true;
  };
  std::function<bool(const Task&, size_t)> visit = [&](const Task& t, size_t branch) {
    if (!cross(t.route, t.name, false, t.range, branch)) return false;
    // A `flows` block's flows (any arbitration) cross their routes too.
    if (t.kind == TaskKind::Engine && t.engine_call >= 0)
      if (auto e = std::dynamic_pointer_cast<const engines::congestion::CongestionEngine>(
              m_.engine_calls[size_t(t.engine_call)].engine)) {
        const auto& plan = e->plan();
        for (int f = 0; f < plan.flow_count; ++f) {
          std::vector<std::pair<int32_t, int32_t>> route;
          for (int h = plan.path_begin[size_t(f)]; h < plan.path_begin[size_t(f) + 1]; ++h)
            route.push_back(e->link_inputs()[size_t(plan.hop_link[size_t(h)])]);
          if (!cross(route, e->flows()[size_t(f)].name, true, t.range, branch)) return false;
        }
      }
    for (const Task& child : t.children)
      if (!visit(child, branch)) return false;
    return true;
  };
  for (size_t branch = 0; branch < par.children.size(); ++branch)
    if (!visit(par.children[branch], branch)) return;
  // The fabric model's MPI operations: their messages against the copies and flows of the other branches.
  std::function<const Task*(const Task&, std::shared_ptr<const mpi::FabricCommEngine>&)> fabric_op;
  fabric_op = [&](const Task& t, std::shared_ptr<const mpi::FabricCommEngine>& out) -> const Task* {
    if (t.kind == TaskKind::Engine && t.engine_call >= 0)
      if (auto e = std::dynamic_pointer_cast<const mpi::FabricCommEngine>(m_.engine_calls[size_t(t.engine_call)].engine)) {
        out = e;
        return &t;
      }
    for (const Task& child : t.children)
      if (const Task* found = fabric_op(child, out)) return found;
    return nullptr;
  };
  // Why an operation's messages did not join the par's flows.
  auto why_apart = [&](const std::shared_ptr<const mpi::FabricCommEngine>& e) {
    std::string why;
    if (auto whole = fabric_unrolled(e))
      whole->unrolled(kParMpiFlows, why);
    else
      why = fmt::format("its rounds are solved on one period of the cluster's nodes (the fast path), and written "
                        "out they would be more than {} flows", kParMpiFlows);
    return !why.empty() ? "the operation's messages cannot be written as flows: " + why
                        : std::string("an MPI operation shares links when it is a branch of the `par`, or an item of "
                                      "a branch's `seq`, beside pinned copies, `flows` blocks, fabric-model MPI "
                                      "operations, kernels and overheads");
  };
  auto warn_at = [&](int link_id, int direction, const std::string& what, const std::string& why, SourceRange op) {
    const Link& link = m_.topology.links[size_t(link_id)];
    const Component& from = m_.topology.components[size_t(direction == 0 ? link.a : link.b)];
    const Component& to = m_.topology.components[size_t(direction == 0 ? link.b : link.a)];
    diags_.warning(DiagKind::UnmodelledSharing, s.range,
                   fmt::format("{} in this `par` cross the link {} -> {} together, but `par` prices each as if it had "
                               "the link to itself ({})",
                               what, from.path, to.path, why));
    diags_.note(op, "the MPI operation");
  };
  struct Op {
    size_t branch;
    const Task* task;
    std::shared_ptr<const mpi::FabricCommEngine> engine;
  };
  std::vector<Op> ops;
  for (size_t branch = 0; branch < par.children.size(); ++branch) {
    std::shared_ptr<const mpi::FabricCommEngine> e;
    if (const Task* op = fabric_op(par.children[branch], e)) ops.push_back({branch, op, e});
  }
  for (const Op& op : ops)
    for (const auto& [hop, use] : used) {
      if (use.branch == op.branch || !op.engine->crosses(hop.first, hop.second)) continue;
      const char* kind = use.flow                             ? "flow"
                         : use.name.starts_with("offload ")  ? "offload"
                         : use.name.find("(mapped over ") != std::string::npos ? "mapped run"
                                                                                : "copy";
      warn_at(hop.first, hop.second, fmt::format("the messages of `{}` and the {} `{}`", op.task->name, kind, use.name),
              why_apart(op.engine), op.task->range);
      return;
    }
  // Two operations in different branches on one link.
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t j = i + 1; j < ops.size(); ++j) {
      if (ops[i].branch == ops[j].branch) continue;
      for (auto [link, direction] : ops[j].engine->link_inputs()) {
        if (!ops[i].engine->crosses(link, direction)) continue;
        warn_at(link, direction, fmt::format("the messages of `{}` and of `{}`", ops[i].task->name, ops[j].task->name),
                why_apart(ops[i].engine), ops[i].task->range);
        return;
      }
    }
}

// Work of two branches on one GPU at once in a par that stays a maximum of its branches: device-to-device copies
// (each priced with the GPU's whole `mem_bw`, AHEAD section IV-C) and roofline kernels (each with the whole GPU,
// models.md section 2), which take turns where the par's items become flows. Says so, once per par, with the first
// pair.
void Lowerer::warn_shared_gpus(const Stmt& s, const Task& par) {
  std::map<int32_t, std::pair<size_t, const Task*>> first_on;  // GPU -> the first such work of a branch on it
  auto d2d = [](const Task& t) { return t.name.starts_with("copy d2d "); };
  std::function<bool(const Task&, size_t)> visit = [&](const Task& t, size_t branch) {
    if (t.kind == TaskKind::Op && t.gpu >= 0) {
      auto [it, first] = first_on.try_emplace(t.gpu, branch, &t);
      if (!first && it->second.first != branch) {
        const std::string& gpu = m_.topology.components[size_t(t.gpu)].path;
        diags_.warning(DiagKind::UnmodelledSharing, s.range,
                       fmt::format("`{}` and `{}` in this `par` use `{}` at once, but `par` prices each as if it had "
                                   "the GPU to itself ({})",
                                   it->second.second->name, t.name, gpu,
                                   d2d(*it->second.second) && d2d(t)
                                       ? "each copy reads and writes its memory at the whole `mem_bw`"
                                       : "a roofline kernel takes the GPU's whole peak and memory bandwidth, a d2d "
                                         "copy its whole `mem_bw`"));
        diags_.note(t.range, "the second one");
        return false;
      }
    }
    for (const Task& child : t.children)
      if (!visit(child, branch)) return false;
    return true;
  };
  for (size_t branch = 0; branch < par.children.size(); ++branch)
    if (!visit(par.children[branch], branch)) return;
}

}  // namespace gpm::lower
