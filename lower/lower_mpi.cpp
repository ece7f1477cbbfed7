// lower_mpi.cpp: lowers a machine's `mpi` section to engine inputs and the app's `mpi` operations to engine tasks.
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/mpi/library_choice.h"
#include "engines/mpi/mpi_engine.h"
#include "frontend/mpi_schema.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"
#include "ir/topology.h"

namespace gpm::lower {

using namespace frontend;

namespace {

mpi::CommModel model_of(const std::string& word) {
  return word == "postal"    ? mpi::CommModel::Postal
         : word == "maxrate" ? mpi::CommModel::MaxRate
         : word == "fabric"  ? mpi::CommModel::Fabric
         : word == "nccl"    ? mpi::CommModel::Nccl
                             : mpi::CommModel::KModel;
}

// `tcp` is host staging whose network carries TCP/IP frames (the request's `tcp`).
mpi::Transport transport_of(const std::string& word) {
  return word == "staged" || word == "tcp" ? mpi::Transport::Staged
         : word == "gpudirect"             ? mpi::Transport::GpuDirect
                                           : mpi::Transport::Host;
}

std::string model_title(const mpi::Choice& c, const std::string& op, bool tcp) {
  if (c.model == mpi::CommModel::Nccl)
    return op == "send" || op == "recv" || op == "sendrecv" || op == "halo" || op == "alltoall" ||
                   op == "alltoallv" || op == "gather" || op == "scatter"
               ? "nccl: the library's grouped sends and receives (NCCL src/enqueue.cc), bandwidths from the machine's "
                 "links"
               : "nccl: the library's tuner (NCCL src/graph/tuning.cc), bandwidths from the machine's links";
  if (c.model == mpi::CommModel::Fabric && tcp)
    return "fabric: flows on the machine's links, TCP through host memory (the network's links at TCP/IP's payload "
           "rate in Ethernet frames)";
  if (c.model == mpi::CommModel::Fabric)
    return c.transport == mpi::Transport::Staged
               ? "fabric: flows on the machine's links, host-staged (GPUDirect paper, Table I)"
               : "fabric: flows on the machine's links, GPU to GPU";
  std::string s = c.model == mpi::CommModel::Postal    ? "postal (E2E eq. 1)"
                  : c.model == mpi::CommModel::MaxRate ? "max-rate (E2E eq. 2, 3)"
                                                       : "K-model (E2E eq. 2-5)";
  if (c.transport == mpi::Transport::Staged) s += ", host-staged (GPUDirect paper, Table I)";
  if (c.transport == mpi::Transport::GpuDirect) s += ", GPUDirect (GPUDirect paper, Table I)";
  if (c.tree.present) s += ", fat tree (GPUDirect paper IV-a)";
  return s;
}

}  // namespace

// The machine's network section (GPUDirect paper section IV-a: a tapered fat tree): the tree's shape is static
// (nodes per leaf, levels, leaves), its link bandwidth, taper and switch latency are engine inputs.
template <class Count>
void Lowerer::lower_network(const MachineDecl& machine, MpiMachineInfo& info, Count& count) {
  info.inputs[mpi::in::kLinkBw] = b_.constant(0, Dim::byte() / Dim::seconds(), machine.name_range);
  info.inputs[mpi::in::kTaper] = b_.constant(1, Dim(), machine.name_range);
  info.inputs[mpi::in::kSwitchLatency] = b_.constant(0, Dim::seconds(), machine.name_range);
  if (machine.networks.empty()) return;
  const NetworkDecl& net = *machine.networks[0];
  info.network_range = net.range;
  info.tree.present = true;
  if (const Attr* a = find_attr(net.attrs, "nodes_per_leaf"))
    if (auto v = count(*a, 1, 1 << 20)) info.tree.nodes_per_leaf = *v;
  if (const Attr* a = find_attr(net.attrs, "levels"))
    if (auto v = count(*a, 2, 3)) info.tree.levels = int(*v);
  if (const Attr* a = find_attr(net.attrs, "leaf_switches"))
    if (auto v = count(*a, 1, 1 << 20)) info.leaf_switches = *v;
  auto input = [&](const char* name, int at, CheckKind check) {
    if (const Attr* a = find_attr(net.attrs, name)) {
      ValueId v = lower_expr(*a->value);
      add_check(check, v, a->value->range, fmt::format("`{}` of the network section", name));
      info.inputs[size_t(at)] = v;
      return v;
    }
    return info.inputs[size_t(at)];
  };
  input("link_bw", mpi::in::kLinkBw, CheckKind::Positive);
  input("switch_latency", mpi::in::kSwitchLatency, CheckKind::NonNegative);
  if (const Attr* a = find_attr(net.attrs, "taper")) {
    // A taper below 1 would give a leaf more up-link than down-link capacity; 1 is a full-bisection tree.
    ValueId v = input("taper", mpi::in::kTaper, CheckKind::Positive);
    m_.checks.push_back({CheckKind::InRange, v, b_.constant(1, Dim(), a->value->range),
                         b_.constant(1e6, Dim(), a->value->range), a->value->range, "`taper` of the network section"});
  }
}

void Lowerer::lower_mpi_section(const MachineDecl& machine) {
  mpi_ = nullptr;
  if (machine.mpi.empty()) return;
  const MpiDecl& section = *machine.mpi[0];
  auto info = std::make_shared<MpiMachineInfo>();
  auto count = [&](const Attr& a, int64_t lo, int64_t hi) -> std::optional<int64_t> {
    double v = eager_value(lower_expr(*a.value));
    if (!std::isfinite(v) || v != std::floor(v) || v < double(lo) || v > double(hi)) {
      diags_.error(DiagKind::NotAnInteger, a.value->range,
                   fmt::format("`{}` must be a whole number from {} to {}, not {}", a.name, lo, hi, v));
      return std::nullopt;
    }
    return int64_t(v);
  };
  // One rank per GPU by default (E2E section 4.1, GPUDirect paper section IV): the node's GPUs, and the most GPUs
  // one socket holds.
  std::map<std::string, int64_t> per_socket;
  for (int g : components_of_kind(m_.topology, "gpu")) {
    std::string path = m_.topology.components[size_t(g)].path;
    if (path.starts_with("node[")) {  // a cluster (lower_cluster.cpp): node[0] stands for every node
      if (!path.starts_with("node[0].")) continue;
      path = path.substr(8);
    }
    size_t dot = path.find('.');
    per_socket[dot == std::string::npos ? "" : path.substr(0, dot)] += 1;
  }
  int64_t gpus = 0, most = 0;
  for (const auto& [_, n] : per_socket) {
    gpus += n;
    most = std::max(most, n);
  }
  info->ranks_per_node = std::max<int64_t>(gpus, 1);
  info->ranks_per_socket = per_socket.count("") || most == 0 ? info->ranks_per_node : most;
  if (const Attr* a = find_attr(section.attrs, "ranks_per_node")) {
    if (auto v = count(*a, 1, 1 << 20)) {
      info->ranks_per_node = *v;
      int64_t sockets = std::max<int64_t>(int64_t(per_socket.size()) - int64_t(per_socket.count("")), 1);
      info->ranks_per_socket = (*v + sockets - 1) / sockets;
    }
  }
  if (const Attr* a = find_attr(section.attrs, "ranks_per_socket"))
    if (auto v = count(*a, 1, 1 << 20)) info->ranks_per_socket = *v;
  if (const Attr* a = find_attr(section.attrs, "mapping")) {
    const Expr& e = *a->value;
    info->mapping_range = e.range;
    if (e.kind == ExprKind::Call && e.name == "block") {
      info->mapping.kind = mpi::Mapping::Kind::Block;
      double v = eager_value(lower_expr(*e.operands[0]));
      if (!std::isfinite(v) || v != std::floor(v) || v < 1 || v > double(mpi::kMaxRanks))
        diags_.error(DiagKind::NotAnInteger, e.operands[0]->range,
                     fmt::format("a block mapping needs a whole number of ranks per block, not {}", v));
      else
        info->mapping.block = int64_t(v);
    } else if (e.kind == ExprKind::Call) {
      info->mapping.kind = mpi::Mapping::Kind::Explicit;
      for (const auto& arg : e.operands) {
        double v = eager_value(lower_expr(*arg));
        if (!std::isfinite(v) || v != std::floor(v) || v < 0 || v > double(mpi::kMaxRanks)) {
          diags_.error(DiagKind::NotAnInteger, arg->range, fmt::format("a node number must be a whole number, not {}", v));
          break;
        }
        info->mapping.nodes.push_back(int64_t(v));
      }
    } else if (word_of(a->word_param, e.name) == "cyclic") {
      info->mapping.kind = mpi::Mapping::Kind::Cyclic;
    } else if (word_of(a->word_param, e.name) == "explicit") {
      diags_.error(DiagKind::InvalidMapping, e.range, "an explicit mapping lists the node of each rank: explicit(0, 0, 1, 1)");
    }
  }
  if (const Attr* a = find_attr(section.attrs, "model")) info->model = model_of(word_of(a->word_param, a->value->name));
  if (const Attr* a = find_attr(section.attrs, "library")) {
    auto it = program_.globals.find(a->value->name);
    if (it != program_.globals.end() && it->second->kind == DeclKind::Type)
      info->library = static_cast<const TypeDecl*>(it->second);
    info->library_range = a->value->range;
  }
  if (const Attr* a = find_attr(section.attrs, "mpi_library")) {
    auto it = program_.globals.find(a->value->name);
    if (it != program_.globals.end() && it->second->kind == DeclKind::Type)
      info->mpi_library = static_cast<const TypeDecl*>(it->second);
    info->mpi_library_range = a->value->range;
  }
  // The values the engines read, in the order of engines/mpi/p2p.h.
  info->inputs.assign(size_t(mpi::in::kMachineInputs), kNoValue);
  auto value_of = [&](const char* name, Dim dim, CheckKind check, bool* present) {
    if (const Attr* a = find_attr(section.attrs, name)) {
      ValueId v = lower_expr(*a->value);
      add_check(check, v, a->value->range, fmt::format("`{}` of the mpi section", name));
      if (present) *present = true;
      return v;
    }
    return b_.constant(0, dim, section.range);
  };
  info->inputs[mpi::in::kShortMax] = value_of("short_max", Dim::byte(), CheckKind::NonNegative, nullptr);
  info->inputs[mpi::in::kEagerMax] = value_of("eager_max", Dim::byte(), CheckKind::NonNegative, nullptr);
  bool latency = false, per_byte = false;
  info->inputs[mpi::in::kCopyLatency] = value_of("copy_latency", Dim::seconds(), CheckKind::NonNegative, &latency);
  info->inputs[mpi::in::kCopyPerByte] =
      value_of("copy_per_byte", Dim::seconds() / Dim::byte(), CheckKind::NonNegative, &per_byte);
  info->has_copy = latency && per_byte;
  info->inputs[mpi::in::kPinDelay] = value_of("pin_delay", Dim::seconds(), CheckKind::NonNegative, &info->has_pin);
  info->overhead = value_of("overhead", Dim::seconds(), CheckKind::NonNegative, &info->has_overhead);
  if (const Attr* a = find_attr(section.attrs, "mtu")) {
    // An IPv4 packet is 68 B at least (RFC 791: every link carries 68 B unfragmented) and 65,535 B at most.
    info->mtu = lower_expr(*a->value);
    m_.checks.push_back({CheckKind::InRange, info->mtu, b_.constant(68, Dim::byte(), a->value->range),
                         b_.constant(65535, Dim::byte(), a->value->range), a->value->range,
                         "`mtu` of the mpi section (an IPv4 packet: 68 B to 65,535 B)"});
    m_.checks.push_back({CheckKind::WholeNumber, info->mtu, kNoValue, kNoValue, a->value->range,
                         "`mtu` of the mpi section"});
  }
  info->inputs[mpi::in::kStagingChunk] =
      value_of("staging_chunk", Dim::byte(), CheckKind::NonNegative, &info->has_staging_chunk);
  info->section_range = section.range;
  lower_network(machine, *info, count);
  ValueId zero = b_.constant(0, Dim(), section.range);
  for (int i = mpi::in::kFits; i < mpi::in::kMachineInputs; ++i) info->inputs[size_t(i)] = zero;
  for (const MpiFit& f : section.fits) {
    auto l = f.locality == "intra_socket"   ? mpi::Locality::IntraSocket
             : f.locality == "inter_socket" ? mpi::Locality::InterSocket
                                            : mpi::Locality::InterNode;
    auto p = f.protocol == "short" ? mpi::Protocol::Short : f.protocol == "eager" ? mpi::Protocol::Eager : mpi::Protocol::Rendezvous;
    size_t idx = size_t(mpi::FitTable::index(l, p));
    int at = mpi::in::fit(l, p) + (f.model == "postal" ? 0 : 2);
    std::string what = fmt::format("the {} {} {} fit", f.locality, f.protocol, f.model);
    for (size_t i = 0; i < f.args.size(); ++i) {
      ValueId v = lower_expr(*f.args[i]);
      // alpha and beta are never negative; rates are positive.
      add_check(f.model == "maxrate" && f.args.size() == 3 && i > 0 ? CheckKind::Positive : CheckKind::NonNegative, v,
                f.args[i]->range, what);
      info->inputs[size_t(at) + i] = v;
    }
    if (f.model == "postal") info->fits.postal[idx] = true;
    else info->fits.maxrate[idx] = f.args.size() == 3 ? mpi::MaxRateForm::Full : mpi::MaxRateForm::Short;
  }
  mpi_ = info;
}

// An operation's whole-number attribute `name` in [lo, hi] (`fallback` when absent); nullopt after a diagnostic.
std::optional<int64_t> Lowerer::mpi_count(const Stmt& s, const char* name, int64_t lo, int64_t hi, int64_t fallback) {
  const Attr* a = find_attr(s.attrs, name);
  if (!a) return fallback;
  double v = eager_value(lower_expr(*a->value));
  if (!std::isfinite(v) || v != std::floor(v) || v < double(lo) || v > double(hi)) {
    diags_.error(DiagKind::NotAnInteger, a->value->range,
                 fmt::format("`{}` must be a whole number from {} to {}, not {}", name, lo, hi, v));
    return std::nullopt;
  }
  return int64_t(v);
}

// An operation's byte attribute `name` (checked whole and non-negative at evaluation); 0 B when absent, with an error
// saying `why` when `required`.
ValueId Lowerer::mpi_bytes(const Stmt& s, const char* name, bool required, const char* why) {
  const Attr* a = find_attr(s.attrs, name);
  if (!a) {
    if (required)
      diags_.error(DiagKind::MissingAttribute, s.range, fmt::format("`mpi {}` needs `{}`: {}", s.name, name, why));
    return b_.constant(0, Dim::byte(), s.range);
  }
  ValueId v = lower_expr(*a->value);
  add_check(CheckKind::NonNegative, v, a->value->range, fmt::format("`{}` of `mpi {}`", name, s.name));
  add_check(CheckKind::WholeNumber, v, a->value->range, fmt::format("`{}` of `mpi {}` in bytes", name, s.name));
  return v;
}

Task Lowerer::lower_mpi(const Stmt& s) {
  Task failed = Task::make(TaskKind::Op, "mpi " + s.name, s.range);
  if (!mpi_) {
    for (const auto* m : program_.machines)
      if (m->name == m_.machine_name) mpi_ = fabric_mpi_defaults(*m);
    if (!mpi_) {
      diags_.error(DiagKind::MissingAttribute, s.range,
                   fmt::format("machine `{}` has neither an `mpi` section nor a GPU, and `mpi {}` needs one of them: "
                               "the fitted models read the section, the fabric model places a rank on each GPU",
                               m_.machine_name, s.name));
      return failed;
    }
  }
  const MpiMachineInfo& info = *mpi_;
  auto ranks = mpi_count(s, "ranks", 1, mpi::kMaxRanks, info.ranks_per_node);
  if (!ranks) return failed;
  mpi::Choice choice;
  choice.fits = info.fits;
  choice.model = info.model;
  // Whether the model was asked for here or on the command line (not the machine's own choice, whose file says
  // which of its fits are N/A, as E2E Tables 3-4 do).
  bool asked = false;
  if (const Attr* a = find_attr(s.attrs, "model")) {
    choice.model = model_of(word_of(a->word_param, a->value->name));
    asked = true;
  }
  if (auto it = keywords_.find("comm_model"); it != keywords_.end()) {
    choice.model = model_of(it->second);
    asked = true;
  }
  const bool on_fabric = choice.model == mpi::CommModel::Fabric || choice.model == mpi::CommModel::Nccl;
  if (asked && choice.model != mpi::CommModel::Postal && !on_fabric) {
    // Where a max-rate fit is missing, messages of that class are priced with the postal model.
    std::vector<std::string> missing;
    for (int l = 0; l < mpi::kClasses; ++l)
      for (int p = 0; p < mpi::kProtocols; ++p) {
        int f = mpi::FitTable::index(mpi::Locality(l), mpi::Protocol(p));
        if (choice.fits.postal[size_t(f)] && choice.fits.maxrate[size_t(f)] == mpi::MaxRateForm::None)
          missing.push_back(fmt::format("{} {}", mpi::locality_name(mpi::Locality(l)), mpi::protocol_name(mpi::Protocol(p))));
      }
    if (!missing.empty())
      diags_.warning(DiagKind::ModelSubstituted, s.range,
                     fmt::format("`mpi {}` asks for the {} model, but machine `{}` has no max-rate fit for {}: messages "
                                 "of those classes are priced with its postal fit",
                                 s.name, mpi::comm_model_name(choice.model), m_.machine_name,
                                 fmt::join(missing, ", ")));
  }
  if (!on_fabric && !info.from_section) {
    diags_.error(DiagKind::MissingAttribute, s.range,
                 fmt::format("`mpi {}` asks for the {} model, which prices messages with the fits of the machine's `mpi` "
                             "section, and machine `{}` has none (the fabric model needs none)",
                             s.name, mpi::comm_model_name(choice.model), m_.machine_name));
    return failed;
  }
  bool transport_given = false, tcp = false;
  SourceRange transport_range = s.range;
  if (const Attr* a = find_attr(s.attrs, "transport")) {
    std::string word = word_of(a->word_param, a->value->name);
    choice.transport = transport_of(word);
    tcp = word == "tcp";
    transport_given = true;
    transport_range = a->value->range;
  }
  if (auto it = keywords_.find("transport"); it != keywords_.end()) {
    choice.transport = transport_of(it->second);
    tcp = it->second == "tcp";
    transport_given = true;
  }
  if (tcp && !on_fabric) {
    diags_.error(DiagKind::ConflictingAttributes, transport_range,
                 fmt::format("`transport = tcp` routes each message through host memory and over the network's links "
                             "as TCP/IP frames: the fabric model prices it (`model = fabric`), and this `mpi {}` has "
                             "the {} model, whose fits already stand for whatever the network is",
                             s.name, mpi::comm_model_name(choice.model)));
    return failed;
  }
  if (choice.model == mpi::CommModel::Nccl && !info.library) {
    diags_.error(DiagKind::MissingAttribute, s.range,
                 fmt::format("`mpi {}` asks for the nccl model, which needs the library's constants, and machine `{}` "
                             "names no library: give its mpi section `library = nccl_volta`, `nccl_ampere`, `nccl_hopper` "
                             "or `nccl_blackwell` (stdlib/nccl.gpm) or a library type of its own",
                             s.name, m_.machine_name));
    return failed;
  }
  if (on_fabric) {
    // The fabric model's ranks are GPUs: their buffers move GPU to GPU unless staged through host memory.
    if (!transport_given) choice.transport = mpi::Transport::GpuDirect;
    if (choice.transport == mpi::Transport::Host) {
      diags_.error(DiagKind::ConflictingAttributes, transport_range,
                   fmt::format("the fabric model places each rank on a GPU and moves its buffers from GPU to GPU "
                               "(`gpudirect`) or through host memory (`staged`); `transport = host` is priced by the "
                               "postal, max-rate and K-models"));
      return failed;
    }
  } else if (choice.transport == mpi::Transport::Staged && !info.has_copy) {
    diags_.error(DiagKind::MissingAttribute, s.range,
                 "host-staged MPI needs `copy_latency` and `copy_per_byte` in the machine's mpi section");
    return failed;
  }
  if (choice.model == mpi::CommModel::Nccl && choice.transport == mpi::Transport::Staged) {
    diags_.error(DiagKind::ConflictingAttributes, transport_range,
                 "the nccl model moves buffers from GPU to GPU as NCCL does (`transport = gpudirect`); host staging "
                 "and TCP are priced by the fabric model");
    return failed;
  }
  ValueId tcp_mtu = kNoValue;
  if (tcp) {
    // Ethernet's standard MTU unless the section gives one (said once per run).
    tcp_mtu = info.mtu;
    if (tcp_mtu == kNoValue) {
      tcp_mtu = b_.constant(1500, Dim::byte(), s.range);
      if (!tcp_mtu_warned_) {
        tcp_mtu_warned_ = true;
        diags_.warning(DiagKind::AssumedValue, transport_range,
                       fmt::format("`transport = tcp` takes the network's MTU as Ethernet's standard 1500 B (IEEE "
                                   "802.3): machine `{}` gives no `mtu` in its mpi section; the same holds for every "
                                   "TCP operation of this run",
                                   m_.machine_name));
        if (info.from_section) diags_.note(info.section_range, "`mtu = B` in this section sets it (9000 B: jumbo frames)");
      }
    }
    if (!tcp_stack_warned_) {
      tcp_stack_warned_ = true;
      diags_.warning(DiagKind::AssumedZero, transport_range,
                     "`transport = tcp` prices the host staging and TCP/IP's frames on the network's links; the "
                     "kernel's copies between user and socket buffers and its per-core protocol processing take no "
                     "time here (a lower bound), and each message's software latency is the section's `overhead`; the "
                     "same holds for every TCP operation of this run");
    }
  }
  if (!on_fabric && choice.transport == mpi::Transport::GpuDirect && !info.has_pin) {
    diags_.error(DiagKind::MissingAttribute, s.range, "GPUDirect MPI needs `pin_delay` in the machine's mpi section");
    return failed;
  }
  choice.tree = info.tree;
  mpi::Layout layout = mpi::make_layout(*ranks, info.ranks_per_node, info.ranks_per_socket, info.mapping);
  if (!layout.error.empty()) {
    diags_.error(DiagKind::InvalidMapping, s.range, fmt::format("`mpi {}` over {} ranks: {}", s.name, *ranks, layout.error));
    if (info.mapping_range.file != kNoFile) diags_.note(info.mapping_range, "the mapping is given here");
    return failed;
  }
  // A cyclic or block mapping deals the ranks over the nodes they need, ceil(ranks / ranks_per_node), not over
  // every node of the machine: say so when that leaves some of the machine's nodes out.
  if (info.mapping.kind == mpi::Mapping::Kind::Cyclic || info.mapping.kind == mpi::Mapping::Kind::Block) {
    double machine_nodes = m_.topology.node_count != kNoValue ? eager_value(m_.topology.node_count) : 1;
    if (double(layout.nodes) < machine_nodes) {
      diags_.warning(DiagKind::ModelSubstituted, s.range,
                     fmt::format("`mpi {}` over {} ranks: the {} mapping deals them over {} node{} (the ranks at {} per "
                                 "node), not over the machine's {} nodes; to place them on other nodes, give an "
                                 "explicit(...) mapping",
                                 s.name, *ranks, info.mapping.kind == mpi::Mapping::Kind::Cyclic ? "cyclic" : "block",
                                 layout.nodes, layout.nodes == 1 ? "" : "s", info.ranks_per_node, machine_nodes));
      if (info.mapping_range.file != kNoFile) diags_.note(info.mapping_range, "the mapping is given here");
    }
  }
  if (info.tree.present) {
    layout.nodes_per_leaf = info.tree.nodes_per_leaf;
    if (info.leaf_switches > 0 && layout.leaves() > info.leaf_switches) {
      diags_.error(DiagKind::InvalidMapping, s.range,
                   fmt::format("`mpi {}` over {} ranks uses {} nodes, more than the network's {} leaf switches of {} "
                               "nodes hold",
                               s.name, *ranks, layout.nodes, info.leaf_switches, info.tree.nodes_per_leaf));
      diags_.note(info.network_range, "the network is described here");
      return failed;
    }
  }
  std::vector<ValueId> inputs = info.inputs;  // empty for a machine without an mpi section (the fabric model)
  std::shared_ptr<mpi::CommEngine> engine;
  std::string title;
  std::string library_note;  // an MPI library's choice of the algorithm, for the model column
  MpiFabricRequest request;  // the fabric model's view of the operation
  request.tcp = tcp;
  request.mtu = tcp_mtu;
  request.name = s.name;
  request.transport = choice.transport;
  // Host staging in pieces (`staging_chunk`): the operation's, else the section's; only staged messages are split.
  bool chunk_given = info.has_staging_chunk;
  if (const Attr* a = find_attr(s.attrs, "staging_chunk")) {
    ValueId v = lower_expr(*a->value);
    add_check(CheckKind::NonNegative, v, a->value->range, fmt::format("`staging_chunk` of `mpi {}`", s.name));
    if (!inputs.empty()) inputs[mpi::in::kStagingChunk] = v;
    request.staging_chunk = v;
    chunk_given = true;
    if (choice.transport != mpi::Transport::Staged)
      diags_.warning(DiagKind::UnpricedAttribute, a->name_range,
                     fmt::format("`staging_chunk` splits host-staged messages (`transport = staged`); the messages of "
                                 "`mpi {}` are {} (transport `{}`), so it changes nothing",
                                 s.name, choice.transport == mpi::Transport::Host ? "on the host" : "sent from GPU memory",
                                 mpi::transport_name(choice.transport)));
  }
  if (request.staging_chunk == kNoValue)
    request.staging_chunk = !inputs.empty() ? inputs[mpi::in::kStagingChunk] : b_.constant(0, Dim::byte(), s.range);
  request.staging_chunk_given = chunk_given && choice.transport == mpi::Transport::Staged;
  if (s.name == "halo") {
    mpi::Grid grid;
    auto dims = mpi_count(s, "dims", 2, 3, find_attr(s.attrs, "pz") ? 3 : 2);
    if (!dims) return failed;
    grid.dims = int(*dims);
    auto neighbours = mpi_count(s, "neighbours", 1, 26, grid.dims == 2 ? 4 : 6);
    if (!neighbours) return failed;
    grid.neighbours = int(*neighbours);
    if ((grid.dims == 2 && grid.neighbours != 4 && grid.neighbours != 8) ||
        (grid.dims == 3 && grid.neighbours != 6 && grid.neighbours != 26)) {
      diags_.error(DiagKind::InvalidDecomposition, find_attr(s.attrs, "neighbours")->value->range,
                   fmt::format("a {}D halo has {} neighbours, not {}", grid.dims, grid.dims == 2 ? "4 or 8" : "6 or 26",
                               grid.neighbours));
      return failed;
    }
    const char* names[3] = {"px", "py", "pz"};
    int given = 0;
    for (int d = 0; d < grid.dims; ++d) given += find_attr(s.attrs, names[d]) != nullptr;
    if (given == grid.dims) {
      for (int d = 0; d < grid.dims; ++d) {
        auto v = mpi_count(s, names[d], 1, mpi::kMaxRanks, 1);
        if (!v) return failed;
        grid.extent[size_t(d)] = *v;
      }
    } else if (given == 0) {
      grid.extent = mpi::balanced_extents(*ranks, grid.dims);
    } else {
      diags_.error(DiagKind::InvalidDecomposition, s.name_range,
                   fmt::format("give all of {} or none of them (then the grid is balanced)",
                               grid.dims == 2 ? "px, py" : "px, py, pz"));
      return failed;
    }
    if (const Attr* a = find_attr(s.attrs, "periodic")) grid.periodic = eager_value(lower_expr(*a->value)) != 0;
    size_t sizes_at = inputs.size();
    inputs.push_back(mpi_bytes(s, "face", true, "the bytes sent to a face neighbour"));
    inputs.push_back(mpi_bytes(s, "edge", grid.dims == 3 && grid.neighbours == 26, "the bytes sent to an edge neighbour"));
    inputs.push_back(mpi_bytes(s, "corner", grid.neighbours == 8 || grid.neighbours == 26, "the bytes sent to a corner neighbour"));
    check_rank_buffer(s, b_.binary(Opcode::Max, inputs[sizes_at], b_.binary(Opcode::Max, inputs[sizes_at + 1],
                                                                        inputs[sizes_at + 2], s.range), s.range),
                      "its largest message");
    // The nccl model's protocol and launch (the neighbours' ncclSend / ncclRecv); elsewhere refused or noted.
    if (!lower_nccl_choice(s, choice.model, nullptr, "", request)) return failed;
    if (on_fabric) {
      request.halo = true;
      request.grid = grid;
      request.sizes.assign(inputs.begin() + std::ptrdiff_t(sizes_at), inputs.end());
    }
    std::string error;
    if (!on_fabric) engine = mpi::CommEngine::halo(choice, layout, grid, error);
    if (!engine && !on_fabric) {
      diags_.error(DiagKind::InvalidDecomposition, s.range, fmt::format("`mpi halo`: {}", error));
      return failed;
    }
    title = grid.dims == 2 ? fmt::format("mpi halo ({} x {} ranks, {} neighbours)", grid.extent[0], grid.extent[1],
                                         grid.neighbours)
                           : fmt::format("mpi halo ({} x {} x {} ranks, {} neighbours)", grid.extent[0], grid.extent[1],
                                         grid.extent[2], grid.neighbours);
  } else if (s.name == "send" || s.name == "recv" || s.name == "sendrecv") {
    // OSU-style point-to-point: `window` messages of `bytes` from `from` to `to` (and back, for sendrecv); a `recv`
    // is the same messages written at their receiver.
    auto from = mpi_count(s, "from", 0, *ranks - 1, 0), to = mpi_count(s, "to", 0, *ranks - 1, std::min<int64_t>(1, *ranks - 1));
    auto window = mpi_count(s, "window", 1, 1 << 20, 1);
    if (!from || !to || !window) return failed;
    if (*from == *to) {
      diags_.error(DiagKind::ConflictingAttributes, s.range,
                   fmt::format("`mpi {}` sends from rank {} to rank {}: the two ranks must differ (`ranks` is {})",
                               s.name, *from, *to, *ranks));
      return failed;
    }
    size_t sizes_at = inputs.size();
    inputs.push_back(mpi_bytes(s, "bytes", true, "the bytes of each message"));
    inputs.push_back(b_.constant(0, Dim::byte(), s.range));  // no segments
    check_rank_buffer(s, inputs[sizes_at], "a message");
    bool both = s.name == "sendrecv";
    // The nccl model's protocol and launch (ncclSend / ncclRecv); elsewhere they are refused or noted.
    if (!lower_nccl_choice(s, choice.model, nullptr, "", request)) return failed;
    if (on_fabric) {
      request.p2p = true;
      request.from = *from;
      request.to = *to;
      request.both = both;
      request.window = *window;
      request.sizes.assign(inputs.begin() + std::ptrdiff_t(sizes_at), inputs.end());
    } else {
      engine = mpi::CommEngine::point_to_point(choice, layout, s.name,
                                               mpi::p2p_rounds(layout, *from, *to, both, *window));
    }
    title = s.name == "recv" ? fmt::format("mpi recv (rank {} <- {}{}, {} ranks)", *to, *from,
                                           *window > 1 ? fmt::format(", window {}", *window) : "", *ranks)
                             : fmt::format("mpi {} (rank {} {} {}{}, {} ranks)", s.name, *from, both ? "<->" : "->",
                                           *to, *window > 1 ? fmt::format(", window {}", *window) : "", *ranks);
  } else if (s.name == "alltoallv") {
    if (!lower_alltoallv(s, info, choice, layout, on_fabric, inputs, request, engine, title, library_note))
      return failed;
  } else {
    if (!lower_collective(s, info, choice, layout, on_fabric, *ranks, inputs, request, engine, title, library_note))
      return failed;
  }
  if (diags_.has_errors()) return failed;
  EngineCall call{engine, inputs};
  if (on_fabric) {
    request.layout = std::move(layout);
    auto fabric = choice.model == mpi::CommModel::Nccl ? lower_mpi_nccl(s, info, request)
                                                       : lower_mpi_fabric(s, info, request);
    if (!fabric) return failed;
    call = std::move(*fabric);
  }
  Task task = Task::make(TaskKind::Engine, title, s.range);
  task.part = "communication";
  task.track = "mpi";
  task.model = model_title(choice, s.name, request.tcp);
  if (request.staging_chunk_given) task.model += ", pipelined in pieces of `staging_chunk`";
  if (!library_note.empty()) task.model += "; algorithm: " + library_note;
  task.engine_call = int32_t(m_.engine_calls.size());
  m_.engine_calls.push_back(std::move(call));
  return task;
}

}  // namespace gpm::lower
