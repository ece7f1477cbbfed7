// schema.cpp: the attribute tables (one place to extend when a model needs a new machine parameter).
#include "frontend/schema.h"

#include <map>

namespace gpm::frontend {
namespace {

const Dim kTime = Dim::seconds();
const Dim kBytes = Dim::byte();
const Dim kRate = Dim::byte() / Dim::seconds();
const Dim kFlopRate = Dim::flop() / Dim::seconds();
const Dim kCount = Dim::count();
const Dim kFrequency = Dim::count() / Dim::seconds();

// A communication library's constants (`type nccl_hopper : library { ... }`, stdlib/nccl.gpm): the terms of NCCL's
// tuning model (engines/mpi/nccl_engine.h lists them in its input order; a unit test keeps the two lists equal).
std::vector<AttrSpec> library_schema() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const char* a : {"ring", "tree"})
      for (const char* p : {"ll", "ll128", "simple"}) v.push_back(std::string(a) + "_" + p + "_base");
    for (const char* c : {"nvlink", "pcie", "net"})
      for (const char* a : {"ring", "tree"})
        for (const char* p : {"ll", "ll128", "simple"}) v.push_back(std::string(c) + "_" + a + "_" + p);
    for (const char* n : {"nvls_nvlink", "nvls_net", "nvls_tree_nvlink", "nvls_tree_net"}) v.push_back(n);
    return v;
  }();
  static const std::vector<std::string> caps = [] {
    std::vector<std::string> v;
    for (const char* c : {"ll_max_bw", "ring_ll128_channel_bw", "tree_ll128_channel_bw", "tree_channel_bw",
                          "nvls_tree_channel_bw"})
      for (const char* n : {"1node", "2nodes", "nodes"}) v.push_back(std::string(c) + "_" + n);
    return v;
  }();
  std::vector<AttrSpec> v = {
      {"launch_overhead", kTime, "host time to launch one operation on one GPU, added to each"},
      {"launch_per_gpu", kTime, "host time of each further GPU one thread launches the operation on (one group)"},
      {"nvlink_efficiency", kCount, "the library's rating of an NVLink over its bandwidth"},
      {"pcie_efficiency", kCount, "the library's rating of a PCIe link over its bandwidth"},
      {"net_efficiency", kCount, "the library's rating of a network link over its bandwidth"},
      {"channel_bw", kRate, "bandwidth of one channel (how many channels the per-channel caps count)"},
      {"nvls_efficiency", kCount, "NVLS bandwidth efficiency (0: no NVLS on this GPU generation)"},
      {"nvls_max_arity", kCount, "the most channels (head GPUs) of an NVLS graph"},
      {"ring_plateau", kCount, "latency factor of a multi-node ring all-reduce with the Simple protocol"},
      {"net_overhead", kTime, "software cost of each step of an inter-node ring"}};
  for (const auto& n : names) v.push_back({n.c_str(), kTime, "latency of the algorithm, protocol and link class"});
  for (const auto& n : caps) v.push_back({n.c_str(), kRate, "bandwidth cap of the protocol at that node count"});
  static const std::vector<std::string> collnet = [] {
    std::vector<std::string> v;
    for (const char* a : {"collnet_direct", "collnet_chain"})
      for (const char* c : {"nvlink", "pcie", "net"}) v.push_back(std::string(a) + "_" + c);
    return v;
  }();
  for (const auto& n : collnet) v.push_back({n.c_str(), kTime, "latency of CollNet (Simple) on the link class"});
  v.push_back({"collnet_direct_efficiency", kCount, "CollNet Direct's bandwidth factor"});
  v.push_back({"dup_min_bw", kRate, "a channel across nodes at or under this rate is not duplicated"});
  v.push_back({"dup_min_bw_over_4", kRate, "nor, with more than four channels, one at or under this rate"});
  v.push_back({"p2p_ll_threshold", kBytes, "a point-to-point message of at most this size per channel moves with LL"});
  return v;
}

// An MPI library's collective selection (`type mpich : mpi_library { ... }`, stdlib/mpi.gpm): the thresholds its
// choice reads (engines/mpi/library_choice.h lists them in its order; a unit test keeps the two lists equal).
std::vector<AttrSpec> mpi_library_schema() {
  return {
      {"allreduce_short", kBytes, "allreduce: recursive doubling up to this size, else Rabenseifner's"},
      {"reduce_short", kBytes, "reduce: a binomial tree up to this size, else Rabenseifner's"},
      {"bcast_short", kBytes, "bcast: a binomial tree up to this size"},
      {"bcast_long", kBytes, "bcast, power-of-two ranks: scatter + recursive-doubling allgather up to this size"},
      {"bcast_min_ranks", kCount, "bcast: a binomial tree below this many ranks"},
      {"allgather_short", kBytes, "allgather, other rank counts: Bruck's below this output size, else a ring"},
      {"allgather_long", kBytes, "allgather, power-of-two ranks: recursive doubling below this output size"},
      {"reduce_scatter_long", kBytes, "reduce_scatter: recursive halving below this size, else pairwise"},
      {"alltoall_short", kBytes, "alltoall: Bruck's up to this size per rank (from alltoall_min_ranks ranks)"},
      {"alltoall_medium", kBytes, "alltoall: scattered up to this size per rank, else pairwise"},
      {"alltoall_min_ranks", kCount, "alltoall: Bruck's only from this many ranks"},
      {"bcast_intranode_k", kCount, "node-aware bcast: children per rank of the tree within a node"},
      {"reduce_intranode_k", kCount, "node-aware reduce: children per rank of the tree within a node (small)"},
      {"reduce_intranode_k_large", kCount, "node-aware reduce: children per rank of the tree within a node (large)"},
      {"reduce_intranode_large", kBytes, "node-aware reduce: sizes above this use reduce_intranode_k_large"}};
}

// Open MPI's collective selection (`type openmpi : openmpi_library { ... }`, stdlib/mpi.gpm): the parameters its
// fixed decisions run the algorithms with (engines/mpi/library_choice.h lists them in its order).
std::vector<AttrSpec> openmpi_library_schema() {
  return {{"bcast_knomial_radix", kCount, "bcast: children per step of a rank of the k-nomial tree"},
          {"bcast_chains", kCount, "bcast: chains of the chain algorithm"},
          {"reduce_chains", kCount, "reduce: chains of the chain algorithm"}};
}

const std::map<std::string, std::vector<AttrSpec>, std::less<>>& schemas() {
  static const std::map<std::string, std::vector<AttrSpec>, std::less<>> table = {
      {"library", library_schema()},
      {"mpi_library", mpi_library_schema()},
      {"openmpi_library", openmpi_library_schema()},
      {"machine", {{"nodes", kCount, "number of nodes"}}},
      {"cpu",
       {{"cores", kCount, "cores per CPU"},
        {"freq", kFrequency, "core clock"},
        {"peak_fp64", kFlopRate, "double-precision peak"}}},
      {"gpu",
       {{"peak_fp64", kFlopRate, "double-precision peak"},
        {"peak_fp32", kFlopRate, "single-precision peak"},
        {"peak_fp16", kFlopRate, "half-precision peak"},
        {"mem_bw", kRate, "device memory bandwidth"},
        {"l2_bw", kRate, "attainable L2 cache bandwidth (quantitative roofline)"},
        {"shared_bw", kRate, "attainable shared-memory bandwidth (quantitative roofline)"},
        {"mem_size", kBytes, "device memory capacity"},
        {"d2d_latency", kTime, "one-byte device-to-device copy time (L+O)"},
        {"kernel_issue", kTime,
         "host time to issue one kernel launch: a roofline kernel takes at least this long (kernels launched one after "
         "another start no closer together)"},
        {"copy_engines", kCount, "DMA copy engines"},
        {"peer_access", kCount,
         "1 when copies to and from other GPUs go directly (the default), 0 when the driver stages them through host "
         "memory"},
        {"implicit_sync", kCount, "1 when a dependency check waits for every earlier kernel (Fermi, GK104), else 0"},
        {"sms", kCount, "streaming multiprocessors"}}},
      {"memory", {{"bw", kRate, "peak bandwidth"}, {"size", kBytes, "capacity"}}},
      {"switch",
       {{"latency", kTime, "traversal latency"},
        {"nvls", kCount, "1 when the switch reduces in the network (NVLink SHARP: NVSwitch 3 and later), else 0"},
        {"sharp", kCount,
         "1 when the switch reduces in the network between nodes (InfiniBand SHARP: NCCL's CollNet), else 0"}}},
      {"root", {{"latency", kTime, "traversal latency"}}},
      {"nic", {{"bw", kRate, "injection bandwidth"}, {"latency", kTime, "latency"}}},
      {"link",
       {{"bw", kRate, "bandwidth in each direction"},
        {"bw_fwd", kRate, "bandwidth from the left endpoint to the right"},
        {"bw_rev", kRate, "bandwidth from the right endpoint to the left"},
        {"latency", kTime, "latency plus overhead (L+O) in each direction"},
        {"latency_fwd", kTime, "L+O from the left endpoint to the right"},
        {"latency_rev", kTime, "L+O from the right endpoint to the left"},
        {"gap", kTime, "LogGP gap g between consecutive copies in each direction"},
        {"gap_fwd", kTime, "LogGP gap g from the left endpoint to the right"},
        {"gap_rev", kTime, "LogGP gap g from the right endpoint to the left"},
        {"bw_duplex", kRate, "bandwidth per direction while explicit copies run both ways"},
        {"bw_duplex_fwd", kRate, "bw_duplex from the left endpoint to the right"},
        {"bw_duplex_rev", kRate, "bw_duplex from the right endpoint to the left"},
        {"bw_mapped", kRate, "bandwidth per direction while device-mapped accesses share the link"},
        {"bw_mapped_fwd", kRate, "bw_mapped from the left endpoint to the right"},
        {"bw_mapped_rev", kRate, "bw_mapped from the right endpoint to the left"}}},
      {"offload",
       {{"bytes_in", kBytes, "bytes copied host to device"},
        {"bytes_out", kBytes, "bytes copied device to host"},
        {"mapped_bytes_in", kBytes, "bytes read over the link through mapped memory (more when data is re-read)"},
        {"mapped_bytes_out", kBytes, "bytes written over the link through mapped memory"},
        {"streams", kCount, "CUDA streams of the streams and hybrid strategies"},
        {"flops", Dim::flop(), "floating-point operations of the kernel"},
        {"bytes", kBytes, "bytes the kernel moves to and from device memory"},
        {"time", kTime, "explicit kernel time (instead of the roofline)"},
        {"precision", kCount, "64, 32 or 16: which peak the roofline uses"}}},
      {"copy", {{"streams", kCount, "streams the copy is split over (LogGP gap per extra stream)"}}},
      {"run",
       {{"mapped_in", kBytes, "bytes the kernel reads from host memory through device-mapped memory"},
        {"mapped_out", kBytes, "bytes the kernel writes to host memory through device-mapped memory"}}},
      {"PCIe arbitration", {{"tau", kCount, "PCIe root-complex penalty (Martinasso et al. eq. 7), from 0 to 1"}}},
      {"kernel",
       {{"flops", Dim::flop(), "floating-point operations"},
        {"bytes", kBytes, "bytes moved to and from device memory"},
        {"l2_bytes", kBytes, "bytes moved through the L2 cache (quantitative roofline)"},
        {"shared_bytes", kBytes, "bytes moved through shared memory (quantitative roofline)"},
        {"time", kTime, "explicit time (instead of the roofline)"},
        {"precision", kCount, "64, 32 or 16: which peak the roofline uses"},
        {"footprint", kBytes, "device memory the kernel's data occupies, checked against the GPU's mem_size"}}},
  };
  return table;
}

}  // namespace

std::vector<std::string> attribute_owners() {
  std::vector<std::string> out;
  for (const auto& entry : schemas()) out.push_back(entry.first);
  return out;
}

const std::vector<AttrSpec>* attribute_schema(std::string_view owner) {
  auto it = schemas().find(owner);
  return it == schemas().end() ? nullptr : &it->second;
}

const AttrSpec* find_attribute(std::string_view owner, std::string_view name) {
  const auto* schema = attribute_schema(owner);
  if (!schema) return nullptr;
  for (const auto& spec : *schema)
    if (name == spec.name) return &spec;
  return nullptr;
}

bool is_component_kind(std::string_view kind) {
  return kind == "cpu" || kind == "gpu" || kind == "memory" || kind == "switch" || kind == "root" || kind == "nic";
}

std::string attribute_names(std::string_view owner) {
  std::string out;
  if (const auto* schema = attribute_schema(owner))
    for (const auto& spec : *schema) out += (out.empty() ? "" : ", ") + std::string(spec.name);
  return out;
}

}  // namespace gpm::frontend
