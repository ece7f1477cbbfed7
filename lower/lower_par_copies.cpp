// lower_par_copies.cpp: copies side by side in a `par`, alone or in streams with kernels and overheads, and the
// flows of `flows` blocks and the messages of fabric-model MPI operations among them, that share a link become flows
// of one congestion engine, each copy starting after its route's L+O, so that the links divide their bandwidth among
// them (one engine for every byte).
#include <fmt/format.h>

#include <deque>
#include <functional>
#include <map>
#include <set>

#include "engines/congestion/engine.h"
#include "engines/congestion/streams.h"
#include "engines/mpi/fabric_engine.h"
#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;
namespace cg = engines::congestion;

// AHEAD eq. 10 prices a lone pinned copy at L+O + n / BW, BW the slowest link of its route. A flow that starts at
// L+O and moves n bytes alone on that route ends at the same time; copies that cross a link in the same direction
// at once share it by max-min fairness, as the flows of a `flows` block do (docs/models.md section 8.3). A branch
// may be one such copy or a `seq` of copies, kernels and overheads, as the work of one CUDA stream: each item starts
// when the one before it ends (van Werkhoven et al., section III: a stream runs its operations one after another),
// a copy with its L+O, a kernel or an overhead taking its own time (kernels of different branches overlap, as in any
// `par`). A `flows` block (max-min, in written order) may be a branch or an item of one: its flows join the engine,
// those that start with the block after what comes before it in the branch, and what follows it after all of its
// flows (docs/models.md section 8.8). Applied when flows of two branches share a directed link, or the two
// directions of a link whose `bw_duplex` then applies (the engine's duplex links); where the links' arbitration is
// PCIe (a lone flow there is not eq. 10) or a branch holds anything else (a copy over more than 4,096 streams, a
// nested block, an MPI operation of another model, an `unordered` block, an implicit offload; an explicit offload is
// its stream's copies and kernel, Task::stream_form, a streams or hybrid offload its operations as flows,
// Task::flow_form), the par stays a par and warn_shared_links says what it does not price. An MPI operation of the fabric model may be a branch or an
// item of one as a block may: its steps' messages join the engine (docs/models.md section 8.8). Every flow keeps
// the route it has alone.
Task Lowerer::share_par_copies(const Stmt& s, Task par) {
  auto is_copy = [](const Task& t) { return t.kind == TaskKind::Op && t.flow.src >= 0; };
  // A kernel or an overhead; or a run through device-mapped host memory (eq. 6, on its route), which becomes flows
  // (Task::flow_form) below.
  auto is_mapped = [](const Task& t) { return t.kind == TaskKind::Op && t.kernel_part != kNoValue && !t.route.empty(); };
  auto is_delay = [&](const Task& t) {
    return t.kind == TaskKind::Op && t.flow.src < 0 && (t.route.empty() || is_mapped(t)) && t.value != kNoValue;
  };
  // A `flows` block of max-min links, its flows in written order (or a par of copies lowered so): its engine.
  auto block_of = [&](const Task& t) -> std::shared_ptr<const cg::CongestionEngine> {
    if (t.kind != TaskKind::Engine || t.engine_call < 0) return nullptr;
    auto e = std::dynamic_pointer_cast<const cg::CongestionEngine>(m_.engine_calls[size_t(t.engine_call)].engine);
    return e && !e->uses_tau() && !e->unordered() ? e : nullptr;
  };
  // An MPI operation of the fabric model whose messages can be written out as flows (FabricCommEngine::unrolled).
  auto fabric_of = [&](const Task& t) -> std::shared_ptr<const mpi::FabricCommEngine> {
    if (t.kind != TaskKind::Engine || t.engine_call < 0) return nullptr;
    return std::dynamic_pointer_cast<const mpi::FabricCommEngine>(m_.engine_calls[size_t(t.engine_call)].engine);
  };
  // Its phases, from the engine that builds every flow (fabric_unrolled: the operation's own, or one without its
  // fast path), kept with that engine.
  std::map<const Task*, std::vector<mpi::FabricCommEngine::PhaseView>> unrolled;
  std::map<const Task*, std::shared_ptr<const mpi::FabricCommEngine>> unrolled_by;
  auto unrolls = [&](const Task& t) {
    auto e = fabric_of(t);
    if (!e) return false;
    auto whole = fabric_unrolled(e);
    if (!whole) return false;
    std::string why;
    auto phases = whole->unrolled(kParMpiFlows, why);
    if (!why.empty()) return false;
    unrolled[&t] = std::move(phases);
    unrolled_by[&t] = std::move(whole);
    return true;
  };
  std::vector<std::vector<const Task*>> branches;  // each branch's items, in the order they run
  // Copies over streams as their pieces (Lowerer::split_copy, Lowerer::split_pageable_copy).
  std::deque<Task> pieces;
  auto split = [&](const Task& t) -> const Task* {
    Task p = split_copy(t);
    return p.flow_form.empty() ? nullptr : &pieces.emplace_back(std::move(p));
  };
  bool fits = par.children.size() >= 2, delays = false;
  for (const Task& c : par.children) {
    std::vector<const Task*>& branch = branches.emplace_back();
    // An explicit offload is its stream's operations (Task::stream_form): its copies, its kernel.
    auto add = [&](const Task& t) {
      if (t.split.streams != kNoValue && t.split.staging >= 0) {  // a pageable copy over streams: its copies
        std::vector<Task> copies = split_pageable_copy(t);
        if (copies.empty()) branch.push_back(&t);
        for (Task& c : copies) branch.push_back(&pieces.emplace_back(std::move(c)));
        return;
      }
      const Task* pieces_of = t.split.streams != kNoValue ? split(t) : nullptr;
      if (pieces_of) branch.push_back(pieces_of);
      else if (t.stream_form.empty()) branch.push_back(&t);
      for (const Task& op : t.stream_form) branch.push_back(&op);
    };
    if (c.kind == TaskKind::Seq && !c.children.empty()) {
      for (const Task& step : c.children) add(step);
    } else {
      add(c);
    }
    for (const Task* t : branch) {
      fits = fits && (is_copy(*t) || is_delay(*t) || block_of(*t) || unrolls(*t) || !t->flow_form.empty());
      delays = delays || is_delay(*t) || !t->flow_form.empty();  // an offload's kernels count apart (kernels_s)
    }
  }
  if (!fits) {
    warn_shared_links(s, par);
    warn_shared_gpus(s, par);
    return par;
  }
  // A roofline kernel on a GPU ([WERK] section III: a GPU runs the kernels of its streams one at a time), or a d2d
  // copy, which moves its bytes through the same device memory (measured on an H100: two d2d copies, or a d2d copy
  // and a triad, on two streams took 0.96-0.99 times the sum of their times alone, docs/validation.md): where two
  // branches run such work on one GPU, it becomes flows of its compute queue (FlowSpec::timed), taking turns.
  auto d2d = [](const Task& t) { return t.name.starts_with("copy d2d "); };
  auto gpu_kernel = [&](const Task& t) {
    return is_delay(t) && !is_mapped(t) && t.gpu >= 0 && (t.part == "kernels" || d2d(t));
  };
  std::map<int32_t, std::set<size_t>> kernel_branches;  // GPU -> the branches that run kernels on it
  for (size_t b = 0; b < branches.size(); ++b)
    for (const Task* t : branches[b]) {
      if (gpu_kernel(*t)) kernel_branches[t->gpu].insert(b);
      for (const Task::FlowOp& op : t->flow_form)
        if (op.kind == "kernel") kernel_branches[op.src].insert(b);
    }
  std::set<int32_t> compute_turns;  // GPUs whose kernels take turns
  for (const auto& [gpu, who] : kernel_branches)
    if (who.size() > 1) compute_turns.insert(gpu);
  auto turn_kernel = [&](const Task& t) { return gpu_kernel(t) && compute_turns.count(t.gpu) > 0; };
  // Every flow to be: a copy, or a flow of a block (its engine's flow `index`), with its route and branch.
  struct Planned {
    const Task* task;
    int index;  // the block's flow, or -1 for a copy
    size_t branch;
    std::vector<std::pair<int32_t, int32_t>> route;
  };
  std::vector<Planned> planned;
  for (size_t b = 0; b < branches.size(); ++b)
    for (const Task* t : branches[b]) {
      if (is_copy(*t)) planned.push_back({t, -1, b, t->route});
      for (const Task::FlowOp& op : t->flow_form) planned.push_back({t, -3, b, op.route});  // an offload's operation
      if (turn_kernel(*t)) planned.push_back({t, -2, b, {}});  // a kernel's flow: no route
      if (auto it = unrolled.find(t); it != unrolled.end()) {
        int index = 0;
        for (const auto& phase : it->second) {
          const cg::Plan& plan = phase.engine->plan();
          for (int f = 0; f < plan.flow_count; ++f) {
            Planned& p = planned.emplace_back(Planned{t, index++, b, {}});
            for (int h = plan.path_begin[size_t(f)]; h < plan.path_begin[size_t(f) + 1]; ++h)
              p.route.push_back(phase.engine->link_inputs()[size_t(plan.hop_link[size_t(h)])]);
          }
        }
      }
      auto block = block_of(*t);
      if (!block) continue;
      const cg::Plan& plan = block->plan();
      for (int f = 0; f < plan.flow_count; ++f) {
        Planned& p = planned.emplace_back(Planned{t, f, b, {}});
        for (int h = plan.path_begin[size_t(f)]; h < plan.path_begin[size_t(f) + 1]; ++h)
          p.route.push_back(block->link_inputs()[size_t(plan.hop_link[size_t(h)])]);
      }
    }
  std::map<std::pair<int, int>, std::set<size_t>> users;  // (link, direction) -> the branches whose flows cross it
  for (const Planned& p : planned)
    for (auto [link, direction] : p.route) users[{link, direction}].insert(p.branch);
  bool shared = false, duplex = false;
  for (const auto& [hop, who] : users) {
    shared = shared || who.size() > 1;
    const Link& link = m_.topology.links[size_t(hop.first)];
    auto other = users.find({hop.first, 1 - hop.second});
    // Both directions in use at once: by two branches (one branch's copies run one after another).
    bool crossed = other != users.end() &&
                   !(who.size() == 1 && other->second.size() == 1 && *who.begin() == *other->second.begin());
    duplex = duplex || (link.bw_duplex[hop.second] != kNoValue && crossed);
  }
  // Flows of two branches on one directed link, or on the two directions of a link whose `bw_duplex` then applies, or
  // kernels of two branches on one GPU.
  if (!shared && !duplex && compute_turns.empty()) {
    warn_shared_links(s, par);
    warn_shared_gpus(s, par);
    return par;
  }
  // Copies of two branches staging through one host memory (pageable copies, peer copies without peer access), but
  // for pageable copies of one GPU (which take turns, below; those of its two directions were measured to run side by
  // side, docs/validation.md): each is priced with the memory's whole bandwidth, said once.
  [&] {
    std::map<int32_t, std::tuple<size_t, const Task*, int32_t>> first_on;  // memory -> branch, copy, its key
    int32_t unique = -2;
    for (size_t b = 0; b < branches.size(); ++b)
      for (const Task* t : branches[b]) {
        if (!is_copy(*t) || t->flow.staging < 0) continue;
        bool host_copy = t->flow.src == t->flow.staging || t->flow.dst == t->flow.staging;
        int32_t key = !host_copy ? unique-- : t->flow.src == t->flow.staging ? t->flow.dst : t->flow.src;
        auto [it, first] = first_on.try_emplace(t->flow.staging, b, t, key);
        if (first || std::get<0>(it->second) == b || std::get<2>(it->second) == key) continue;
        diags_.warning(DiagKind::UnmodelledSharing, s.range,
                       fmt::format("the copies `{}` and `{}` in this `par` both stage through host memory `{}`, but "
                                   "each is priced with the memory's whole bandwidth (only a GPU's pageable copies "
                                   "take turns); their transfers share the links as flows",
                                   std::get<1>(it->second)->name, t->name,
                                   m_.topology.components[size_t(t->flow.staging)].path));
        diags_.note(t->range, "the second one");
        return;
      }
  }();
  // Each copy a flow, branch after branch: a branch's copy starts after the one before it (its start input then the
  // delays between them, then its L+O); the delays after a branch's last copy are its tail. A block's flows keep
  // their own `after` and start times; those that start with the block start after the branch's copy before it,
  // once the delays between have passed.
  auto sum = [&](ValueId a, ValueId b) { return a == kNoValue ? b : b_.binary(Opcode::Add, a, b, s.range); };
  std::vector<ValueId> bytes, starts, tails, kernels, each_delay;
  // The kind a timeline shows: the copy's direction (`copy h2d ...`), a kernel, an overhead, or a d2d copy.
  auto kind_of = [](const Task& t) -> std::string {
    if (t.name.starts_with("copy ")) return t.name.substr(5, 3);
    return t.part == "kernels" || t.kernel_part != kNoValue ? "kernel" : "overhead";
  };
  // A GPU's copy engines (its `copy_engines`, [WERK] section III and Table III): with one, its copies both ways
  // take turns on it; with two, each direction has its own. Other counts, or none declared: copies share links only.
  std::map<std::pair<int, int>, int> queues;  // (GPU, direction) -> queue
  auto queue_of = [&](const std::string& kind, int gpu) {
    if (kind != "h2d" && kind != "d2h") return -1;
    const auto& attrs = m_.topology.components[size_t(gpu)].attrs;
    auto engines = attrs.find("copy_engines");
    if (engines == attrs.end()) return -1;
    double n = eager_value(engines->second);
    if (n != 1 && n != 2) return -1;
    int direction = n == 2 && kind == "d2h" ? 1 : 0;
    return queues.emplace(std::pair{gpu, direction}, int(queues.size())).first->second;
  };
  // Pageable copies (AHEAD eq. 9) as the driver runs them, measured on an H100 (docs/validation.md, pageable copies
  // at once): those of one GPU in one direction take turns, whole (one staging path each way: keys 3 and 4 of the
  // queue map); each moves at most at eq. 9's rate (a cap input); and its DMA transfers wait while a pinned copy holds
  // its copy engine (paused_by), which that copy does not notice.
  // A peer copy staged through host memory (peer access off) is one flow over both legs, capped at B_mem / 2; no
  // measurement says how the driver runs two of them at once, so they take no turns.
  std::vector<ValueId> caps, turn_gaps;
  auto pageable = [&](cg::FlowSpec& f, const Task& t) {
    if (t.flow.rate == kNoValue) return;
    f.cap_input = int(caps.size());
    caps.push_back(t.flow.rate);
    std::string kind = kind_of(t);
    if (kind != "h2d" && kind != "d2h") return;
    bool h2d = kind == "h2d";
    int gpu = h2d ? t.flow.dst : t.flow.src;
    f.paused_by = f.queue;
    f.queue = queues.emplace(std::pair{gpu, h2d ? 3 : 4}, int(queues.size())).first->second;
  };
  std::vector<engines::congestion::StreamsEngine::Branch> streams;
  std::vector<cg::FlowSpec> specs;
  bool blocks = false, mpi_ops = false, offloads = false, mapped_flows = false, split_copies = false;
  int groups = 0;           // a block's flows, an MPI operation's phase: one group of flows each (FlowSpec::group)
  // What the next item of a branch waits for: the flow of the copy before it, or the group of the block or MPI
  // phase before it (one wait, however many flows: the engine's gate).
  auto wait_for = [&](cg::FlowSpec& f, const std::vector<int>& last, int last_group) {
    if (last_group >= 0) {
      f.after_group = last_group;
      return;
    }
    if (last.empty()) return;
    f.after = last[0];
    f.also_after.assign(last.begin() + 1, last.end());
  };
  for (const auto& branch : branches) {
    ValueId waited = kNoValue, kernel = kNoValue;
    std::vector<int> last;
    int last_group = -1;  // `last` is this group of an MPI phase's messages
    auto& stream = streams.emplace_back();
    for (const Task* t : branch) {
      if (!t->flow_form.empty()) {
        // An offload's operations (Task::flow_form): those that start with it after the item before it in the branch
        // and the delays between, the others after the operations they wait for; copies after their L+o, each in
        // its turn on its engine (FlowSpec::turn_after); what follows the offload waits for all of them (a group).
        const int base = int(specs.size());
        for (const Task::FlowOp& op : t->flow_form) {
          cg::FlowSpec f;
          f.name = op.name;
          f.src = op.src;
          f.dst = op.dst;
          f.timed = op.kind == "kernel";
          f.has_start = true;
          ValueId start = op.delay;
          if (op.after.empty()) {
            wait_for(f, last, last_group);
            start = sum(waited, op.delay);
          } else {
            f.after = base + op.after[0];
            for (size_t k = 1; k < op.after.size(); ++k) f.also_after.push_back(base + op.after[k]);
          }
          if (op.turn_after >= 0) {
            f.turn_after = base + op.turn_after;
            f.turn_gap_input = int(turn_gaps.size());
            turn_gaps.push_back(op.turn_gap);
          }
          if (op.cap != kNoValue) {
            f.cap_input = int(caps.size());
            caps.push_back(op.cap);
          }
          f.queue = op.engine == 2   ? queues.emplace(std::pair{int(op.src), 2}, int(queues.size())).first->second
                    : op.engine == 3 ? queues.emplace(std::pair{int(op.src), 5}, int(queues.size())).first->second
                    : op.engine < 0  ? -1
                                     : queue_of(op.kind, op.kind == "h2d" ? op.dst : op.src);
          f.group = groups;
          stream.items.push_back({int(specs.size()), -1, op.name, op.kind, true});
          stream.flows.push_back(int(specs.size()));
          specs.push_back(std::move(f));
          bytes.push_back(op.size);
          starts.push_back(start == kNoValue ? b_.constant(0, Dim::seconds(), s.range) : start);
          if (op.kind == "kernel") kernel = sum(kernel, op.size);
          if (op.engine < 0) mapped_flows = true;
          else if (std::any_of(pieces.begin(), pieces.end(), [&](const Task& p) { return &p == t; }))
            split_copies = true;
          else if (op.kind != "kernel") offloads = true;
        }
        waited = t->flow_tail;  // eq. 6's L+o_dh after the last of them
        last.clear();
        for (int k = base; k < int(specs.size()); ++k) last.push_back(k);
        last_group = groups++;
        continue;
      }
      if (turn_kernel(*t)) {
        // Its time is its flow's size; it starts when the item before it ends and its GPU's compute is free.
        cg::FlowSpec f;
        f.name = t->name;
        f.src = f.dst = t->gpu;
        f.timed = true;
        f.has_start = true;
        f.queue = queues.emplace(std::pair{int(t->gpu), 2}, int(queues.size())).first->second;
        wait_for(f, last, last_group);
        last.assign(1, int(specs.size()));
        last_group = -1;
        stream.items.push_back({int(specs.size()), -1, t->name, d2d(*t) ? "d2d" : "kernel"});
        stream.flows.push_back(int(specs.size()));
        specs.push_back(std::move(f));
        bytes.push_back(t->value);
        starts.push_back(waited == kNoValue ? b_.constant(0, Dim::seconds(), s.range) : waited);
        waited = kNoValue;
        if (!d2d(*t)) kernel = sum(kernel, t->value);
        continue;
      }
      if (is_delay(*t)) {
        stream.items.push_back({-1, int(each_delay.size()), t->name, kind_of(*t)});
        each_delay.push_back(t->value);
        waited = sum(waited, t->value);
        if (t->kernel_part != kNoValue) kernel = sum(kernel, t->kernel_part);
        else if (t->part == "kernels") kernel = sum(kernel, t->value);
        continue;
      }
      if (auto it = unrolled.find(t); it != unrolled.end()) {
        // Each phase's messages start together once the phase before has ended (or what came before in the
        // branch), after the messages' software overhead (a step's first phase) and the phase's slowest route's
        // latency: FabricCommEngine::step_time's price, link by link.
        mpi_ops = true;
        auto e = fabric_of(*t);
        const auto& whole = unrolled_by[t];
        const ir::EngineCall& call = m_.engine_calls[size_t(t->engine_call)];
        std::map<std::pair<const std::vector<int>*, bool>, ValueId> delays_of;
        std::map<std::pair<int, double>, ValueId> sizes_of;
        for (const auto& phase : it->second) {
          ValueId& delay = delays_of.try_emplace({phase.route_links, phase.first_of_step}, kNoValue).first->second;
          if (delay == kNoValue) {
            ValueId slowest = kNoValue;
            const auto& begin = *phase.route_begin;
            for (size_t r = 0; r + 1 < begin.size(); ++r) {
              ValueId route = kNoValue;
              for (int k = begin[r]; k < begin[r + 1]; ++k) {
                auto [link, direction] = whole->link_inputs()[size_t((*phase.route_links)[size_t(k)])];
                ValueId latency = m_.topology.links[size_t(link)].latency[direction];
                if (latency != kNoValue) route = sum(route, latency);
              }
              if (route == kNoValue) continue;
              slowest = slowest == kNoValue ? route : b_.binary(Opcode::Max, slowest, route, s.range);
            }
            ValueId overhead = phase.first_of_step ? ValueId(call.inputs[size_t(e->overhead_input())]) : kNoValue;
            delay = sum(overhead, slowest);
            if (delay == kNoValue) delay = b_.constant(0, Dim::seconds(), s.range);
          }
          ValueId start = sum(waited, delay);
          waited = kNoValue;
          std::vector<int> now;
          for (const cg::FlowSpec& message : phase.engine->flows()) {
            ValueId size_own = kNoValue;  // an alltoallv's message: its own size (or factor of the size input 0)
            if (phase.sizes && phase.sizes_relative)
              size_own = b_.binary(Opcode::Mul, call.inputs[size_t(e->size_input(0))],
                                   b_.constant((*phase.sizes)[size_t(message.size_input)], Dim::count(), s.range),
                                   s.range);
            else if (phase.sizes)
              size_own = b_.constant((*phase.sizes)[size_t(message.size_input)], Dim::byte(), s.range);
            ValueId& size = phase.sizes ? size_own
                                        : sizes_of.try_emplace({message.size_input, phase.size_factor}, kNoValue)
                                              .first->second;
            if (size == kNoValue) {
              size = call.inputs[size_t(e->size_input(message.size_input))];
              if (phase.size_factor != 1)
                size = b_.binary(Opcode::Mul, size, b_.constant(phase.size_factor, Dim::count(), s.range), s.range);
            }
            cg::FlowSpec f;
            f.name = fmt::format("{}: {} -> {}", phase.step, m_.topology.components[size_t(message.src)].path,
                                 m_.topology.components[size_t(message.dst)].path);
            f.src = message.src;
            f.dst = message.dst;
            f.has_start = true;
            wait_for(f, last, last_group);
            f.group = groups;
            now.push_back(int(specs.size()));
            stream.items.push_back({int(specs.size()), -1, f.name, "mpi"});
            stream.flows.push_back(int(specs.size()));
            specs.push_back(std::move(f));
            bytes.push_back(size);
            starts.push_back(start);
          }
          last = std::move(now);
          last_group = groups++;
        }
        continue;
      }
      if (auto block = block_of(*t)) {
        blocks = true;
        const ir::EngineCall& call = m_.engine_calls[size_t(t->engine_call)];
        const size_t sizes_at = block->link_inputs().size(), starts_at = sizes_at + size_t(block->size_input_count());
        const int base = int(specs.size());
        for (size_t k = 0; k < block->flows().size(); ++k) {
          cg::FlowSpec f = block->flows()[k];
          ValueId own = f.has_start ? ValueId(call.inputs[starts_at + size_t(f.start_input)]) : kNoValue;
          ValueId start = f.after >= 0 ? own : sum(waited, own);
          if (f.after >= 0) {  // within the block
            f.after += base;
            for (int& a : f.also_after) a += base;
          } else {
            wait_for(f, last, last_group);
          }
          f.has_start = start != kNoValue;
          if (f.has_start) starts.push_back(start);
          f.size_input = -1;
          f.start_input = -1;
          f.group = groups;  // what follows the block waits for this group
          bytes.push_back(call.inputs[sizes_at + size_t(block->flows()[k].size_input)]);
          stream.items.push_back({int(specs.size()), -1, f.name, "flow"});
          stream.flows.push_back(int(specs.size()));
          specs.push_back(std::move(f));
        }
        last.clear();
        last_group = groups++;
        for (int k = base; k < int(specs.size()); ++k) last.push_back(k);
        waited = kNoValue;
        continue;
      }
      cg::FlowSpec f;
      f.name = t->name;
      f.src = t->flow.src;
      f.dst = t->flow.dst;
      f.has_start = true;
      f.queue = queue_of(kind_of(*t), kind_of(*t) == "h2d" ? t->flow.dst : t->flow.src);
      pageable(f, *t);
      wait_for(f, last, last_group);
      last.assign(1, int(specs.size()));
      last_group = -1;
      stream.items.push_back({int(specs.size()), -1, t->name, kind_of(*t)});
      stream.flows.push_back(int(specs.size()));
      specs.push_back(std::move(f));
      bytes.push_back(t->flow.bytes);
      starts.push_back(sum(waited, t->flow.latency));
      waited = kNoValue;
    }
    tails.push_back(waited == kNoValue ? b_.constant(0, Dim::seconds(), s.range) : waited);
    kernels.push_back(kernel == kNoValue ? b_.constant(0, Dim::seconds(), s.range) : kernel);
  }
  // A copy engine only one branch uses changes nothing (a branch's copies run one after another): its copies take
  // no turns, and the report speaks of turns only where two branches take them. An engine also stays where another
  // branch's pageable copy waits on it (paused_by); a pageable copy waits only on an engine some copy uses.
  std::map<int, std::set<size_t>> own, users_of;  // queue -> the branches of its own flows; of those and its paused
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].queue >= 0) own[specs[i].queue].insert(planned[i].branch);
    if (specs[i].queue >= 0) users_of[specs[i].queue].insert(planned[i].branch);
    if (specs[i].paused_by >= 0) users_of[specs[i].paused_by].insert(planned[i].branch);
  }
  auto kept = [&](int q) { return !own[q].empty() && users_of[q].size() >= 2; };
  bool turns = false, kernel_turns = !compute_turns.empty(), pauses = false, pageable_turns = false;
  for (auto& f : specs) {
    if (f.paused_by >= 0 && !kept(f.paused_by)) f.paused_by = -1;
    pauses = pauses || f.paused_by >= 0;
    if (f.queue >= 0 && !kept(f.queue)) f.queue = -1;
    bool taking_turns = f.queue >= 0 && own[f.queue].size() >= 2;
    if (f.cap_input >= 0) pageable_turns = pageable_turns || taking_turns;
    else turns = turns || (taking_turns && !f.timed);
  }
  ValueId tau = kNoValue;
  cg::FabricMap fabrics = fabric_map(tau);
  cg::BuildError error;
  // Each flow keeps the route it has alone (the copy's, the block's, the fabric model's): no routing again, and the
  // same links whichever way the router would break a tie for the par's flows.
  cg::CongestionEngine::Routes routes;
  routes.reserve(planned.size());
  for (const Planned& p : planned) {
    std::vector<Hop> hops;
    hops.reserve(p.route.size());
    for (auto [link, direction] : p.route) hops.push_back(Hop{link, direction});
    routes.emplace_back(std::move(hops));
  }
  auto engine = cg::CongestionEngine::build(m_.topology, fabrics, std::move(specs), false, error, routes,
                                            component_names());
  if (!engine || engine->uses_tau()) {
    warn_shared_links(s, par);
    warn_shared_gpus(s, par);
    return par;
  }
  bool sequences = planned.size() > branches.size();
  bool only_kernels = std::all_of(planned.begin(), planned.end(), [](const Planned& p) { return p.index == -2; });
  bool any_d2d =
      std::any_of(planned.begin(), planned.end(), [&](const Planned& p) { return p.index == -2 && d2d(*p.task); });
  bool all_d2d =
      std::all_of(planned.begin(), planned.end(), [&](const Planned& p) { return p.index == -2 && d2d(*p.task); });
  std::string row = only_kernels ? (all_d2d   ? " (d2d copies taking turns on a GPU)"
                                    : any_d2d ? " (kernels and d2d copies taking turns on a GPU)"
                                              : " (kernels taking turns on a GPU)")
                    : blocks     ? " (copies and flows sharing links)"
                                 : " (copies sharing links, as flows)";
  if (mpi_ops) {
    bool copies = std::any_of(planned.begin(), planned.end(), [](const Planned& p) { return p.index == -1; });
    row = copies && blocks ? " (copies, flows and MPI messages sharing links)"
          : copies         ? " (copies and MPI messages sharing links)"
          : blocks         ? " (flows and MPI messages sharing links)"
                           : " (MPI messages sharing links)";
  }
  Task task = Task::make(TaskKind::Engine, par.name + row, s.range);
  // Copies count as overhead (docs/output.md); an engine with delays reports its kernels apart (kernels_s). A kernel
  // that takes turns is not the one to give the part, unless there is nothing else.
  auto first_other = std::find_if(planned.begin(), planned.end(), [](const Planned& p) { return p.index != -2; });
  task.part = (first_other != planned.end() ? first_other : planned.begin())->task->part;
  task.track = "flows";
  task.model = delays      ? "max-min fair sharing, each copy after its route's L+O (AHEAD eq. 10), a branch's "
                             "copies, kernels and overheads one after another"
               : sequences ? "max-min fair sharing, each copy after its route's L+O (AHEAD eq. 10), a branch's copies "
                             "one after another"
                           : "max-min fair sharing, each copy after its route's L+O (AHEAD eq. 10)";
  if (mpi_ops) {
    bool copies = std::any_of(planned.begin(), planned.end(), [](const Planned& p) { return p.index == -1; });
    bool in_turn = std::any_of(branches.begin(), branches.end(), [](const auto& b) { return b.size() > 1; });
    task.model = fmt::format("max-min fair sharing{}, an MPI operation's messages as flows (fabric model: a step's "
                             "messages after the step before it, its software overhead and its slowest route's "
                             "latency){}",
                             copies ? ", each copy after its route's L+O (AHEAD eq. 10)" : "",
                             in_turn ? ", a branch's items one after another" : "");
  }
  if (only_kernels)
    task.model = any_d2d ? "a branch's kernels, d2d copies and overheads one after another"
                         : "a branch's kernels and overheads one after another";
  auto staged = [&](bool host_copy) {
    return std::any_of(planned.begin(), planned.end(), [&](const Planned& p) {
      const auto& flow = p.task->flow;
      return p.index == -1 && flow.staging >= 0 && (flow.src == flow.staging || flow.dst == flow.staging) == host_copy;
    });
  };
  if (staged(true))
    task.model += "; a pageable copy at most at AHEAD eq. 9's rate (staged through host memory in pipelined chunks)";
  if (staged(false))
    task.model += "; a peer copy without peer access one flow through host memory, at most at half its bandwidth";
  if (pageable_turns) task.model += "; a GPU's pageable copies one at a time each way (measured)";
  if (pauses) task.model += "; a pageable copy waits while a pinned copy holds its copy engine (measured)";
  if (turns) task.model += "; a GPU's copies take turns on its copy engines ([WERK] III)";
  if (offloads)
    task.model += "; an offload's copies and kernels as flows, each in its turn on its engine (LogGP's gap after a "
                  "copy of its direction, [WERK] V)";
  if (split_copies)
    task.model += "; a copy over streams as one copy per stream, each in its turn on its copy engine (LogGP's gap, "
                  "[WERK] V)";
  if (mapped_flows)
    task.model += "; device-mapped reads and writes as flows beside their kernel, between the two directions' L+o "
                  "([WERK] eq. 6)";
  if (kernel_turns)
    task.model += any_d2d ? "; a GPU's kernels and d2d copies run one at a time, the first issued first ([WERK] III; "
                            "d2d copies measured)"
                          : "; a GPU's kernels run one at a time, the first issued first ([WERK] III)";
  // A link direction with a `bw_duplex` ([WERK] Table II) has that bandwidth while the other direction carries a
  // flow of the par: the engine switches it as flows come and go.
  std::vector<cg::CongestionEngine::Duplex> duplex_links;
  std::vector<ValueId> duplex_bw;
  {
    std::map<std::pair<int, int>, int> input_of;
    for (size_t k = 0; k < engine->link_inputs().size(); ++k) input_of[engine->link_inputs()[k]] = int(k);
    for (size_t k = 0; k < engine->link_inputs().size(); ++k) {
      auto [link, dir] = engine->link_inputs()[k];
      ValueId bw = m_.topology.links[size_t(link)].bw_duplex[dir];
      auto reverse = input_of.find({link, 1 - dir});
      if (bw == kNoValue || reverse == input_of.end()) continue;
      duplex_links.push_back({int(k), reverse->second});
      duplex_bw.push_back(bw);
    }
  }
  if (!duplex_links.empty()) {
    engine->set_duplex(std::move(duplex_links));
    task.model += "; a link's duplex bandwidth while both of its directions carry flows ([WERK] Table II)";
  }
  EngineCall call{engine, {}};
  for (auto [link, dir] : engine->link_inputs()) call.inputs.push_back(m_.topology.links[size_t(link)].bw[dir]);
  call.inputs.insert(call.inputs.end(), bytes.begin(), bytes.end());
  call.inputs.insert(call.inputs.end(), starts.begin(), starts.end());
  call.inputs.insert(call.inputs.end(), duplex_bw.begin(), duplex_bw.end());
  call.inputs.insert(call.inputs.end(), caps.begin(), caps.end());
  call.inputs.insert(call.inputs.end(), turn_gaps.begin(), turn_gaps.end());
  if (delays) {
    call.engine = std::make_shared<engines::congestion::StreamsEngine>(engine, std::move(streams));
    call.inputs.insert(call.inputs.end(), tails.begin(), tails.end());
    call.inputs.insert(call.inputs.end(), kernels.begin(), kernels.end());
    call.inputs.insert(call.inputs.end(), each_delay.begin(), each_delay.end());
  }
  // The blocks' own engine calls, now priced by this one, are dropped when they are the last ones made (as they are
  // when the branches hold nothing else that makes one), so that dump-ir lists no engine nobody calls.
  std::set<int32_t> absorbed;
  for (const Planned& p : planned)
    if ((p.index >= 0 || p.index == -3) && p.task->engine_call >= 0) absorbed.insert(p.task->engine_call);
  if (!absorbed.empty() && *absorbed.begin() == int32_t(m_.engine_calls.size() - absorbed.size()) &&
      *absorbed.rbegin() == int32_t(m_.engine_calls.size()) - 1)
    m_.engine_calls.resize(m_.engine_calls.size() - absorbed.size());
  task.engine_call = int32_t(m_.engine_calls.size());
  m_.engine_calls.push_back(std::move(call));
  return task;
}

}  // namespace gpm::lower
