// nccl_engine.cpp: NCCL's cost model of a collective (its tuner: a latency and a bus bandwidth per algorithm and
// protocol, the least time chosen) with the bandwidths taken from the machine's links.
//
// Source of the model: NCCL's tuning model, src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime), as
// published in the library's repository: time = latency + bytes / algorithm bandwidth; a ring's bus bandwidth is
// its channels' bandwidth, LL moves half of it (capped by ll_max_bw), LL128 92 % (capped per channel), a tree 92 %
// of its graph's bandwidth (capped per channel) at half the algorithm bandwidth, NVLS its intra-node bandwidth times
// an efficiency, doubled for an all-reduce; latencies are a base per algorithm and protocol plus a hardware latency
// per step (NVLink, PCI or network class). What the library reads from its topology search (channels times the
// bandwidth of a channel) is here the bandwidth the machine's links give a round of the same messages (fabric
// probes), each link rated as the library rates its class (an NVLink at NCCL's per-link figure, a PCIe link at its
// width x speed rating, a NIC at its rate). docs/models.md section 10 lists what is and is not modelled.
#include "engines/mpi/nccl_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpm::mpi {

const char* nccl_algo_name(NcclAlgo a) {
  switch (a) {
    case NcclAlgo::Ring: return "ring";
    case NcclAlgo::Tree: return "tree";
    case NcclAlgo::Nvls: return "nvls";
    case NcclAlgo::NvlsTree: return "nvls_tree";
    case NcclAlgo::CollnetDirect: return "collnet_direct";
    case NcclAlgo::CollnetChain: return "collnet_chain";
    default: return "p2p";
  }
}

const char* nccl_proto_name(NcclProto p) {
  return p == NcclProto::LL ? "LL" : p == NcclProto::LL128 ? "LL128" : "Simple";
}

const std::vector<std::string>& nccl_library_attributes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {"launch_overhead", "launch_per_gpu", "nvlink_efficiency", "pcie_efficiency", "net_efficiency",
                                  "channel_bw",      "nvls_efficiency",   "nvls_max_arity",   "ring_plateau",
                                  "net_overhead"};
    const char* algos[] = {"ring", "tree"};
    const char* protos[] = {"ll", "ll128", "simple"};
    for (const char* a : algos)
      for (const char* p : protos) v.push_back(fmt::format("{}_{}_base", a, p));
    for (const char* c : {"nvlink", "pcie", "net"})
      for (const char* a : algos)
        for (const char* p : protos) v.push_back(fmt::format("{}_{}_{}", c, a, p));
    for (const char* s : {"nvls_nvlink", "nvls_net", "nvls_tree_nvlink", "nvls_tree_net"}) v.push_back(s);
    for (const char* s : {"ll_max_bw", "ring_ll128_channel_bw", "tree_ll128_channel_bw", "tree_channel_bw",
                          "nvls_tree_channel_bw"})
      for (const char* n : {"1node", "2nodes", "nodes"}) v.push_back(fmt::format("{}_{}", s, n));
    for (const char* a : {"collnet_direct", "collnet_chain"})
      for (const char* c : {"nvlink", "pcie", "net"}) v.push_back(fmt::format("{}_{}", a, c));
    v.push_back("collnet_direct_efficiency");
    v.push_back("dup_min_bw");
    v.push_back("dup_min_bw_over_4");
    v.push_back("p2p_ll_threshold");
    return v;
  }();
  return names;
}

namespace {

constexpr double kProbeBytes = 1 << 20;  // the probes' message size; the probes have no latency, so any size works

// The host's launch of one operation: launch_overhead for the first GPU the thread drives, launch_per_gpu for each
// further one (a group launched from one thread is launched GPU after GPU; validation/h200_node/launch.csv).
double launch_time(std::span<const double> inputs) {
  return inputs[1 + nccl_in::kLaunch] + (inputs[1 + nccl_in::kGpusPerThread] - 1) * inputs[1 + nccl_in::kLaunchPerGpu];
}

int ilog2(int64_t v) {
  int r = 0;
  while (v > 1) {
    v >>= 1;
    ++r;
  }
  return r;
}

// NCCL's tree correction (src/tuning/cost_model.cc, treeCorrectionFactor, applied by the tree model to an
// all-reduce's bandwidth): "trees are not perfectly sticking to the model for medium sizes", a factor per protocol
// (LL, LL128, Simple) and per power of two of the size in 64-byte units (index floor(log2(nBytes / 64)), 0 below
// 128 B); 1 beyond the table.
constexpr double kTreeCorrection[kNcclProtos][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

double tree_correction(NcclProto pr, double n_bytes) {
  if (!(n_bytes >= 0) || n_bytes >= 0x1p62) return 1;
  int index = ilog2(int64_t(n_bytes) >> 6);
  return index < 24 ? kTreeCorrection[int(pr)][index] : 1;
}

}  // namespace

bool NcclEngine::considers(NcclAlgo a, NcclProto p) const {
  const Collective c = s_.collective;
  // Point-to-point operations and the all-to-all (NCCL's grouped sends and receives) move each message with LL or
  // Simple (enqueue.cc, addP2pToPlan); an alltoallv's messages, whose sizes differ, are all taken as Simple.
  if (!s_.p2p_op.empty() || c == Collective::Alltoall)
    return a == NcclAlgo::P2p && (p == NcclProto::Simple || (p == NcclProto::LL && !s_.alltoallv));
  if (a == NcclAlgo::P2p) return false;
  // tuning.cc: broadcast and reduce run rings only; all-gather and reduce-scatter rings or NVLS; all-reduce every
  // algorithm. NVLS runs the Simple protocol only, on one node (more nodes need the network's reduction, CollNet);
  // NVLS trees join nodes. LL128 only where the GPUs of a node talk over NVLink (NCCL enables it there by default).
  if (p == NcclProto::LL128 && s_.intra != LinkClass::NvLink) return false;
  switch (a) {
    case NcclAlgo::Ring: return true;
    case NcclAlgo::Tree: return c == Collective::Allreduce;
    case NcclAlgo::Nvls:
      return s_.nvls && p == NcclProto::Simple && s_.nodes == 1 &&
             (c == Collective::Allreduce || c == Collective::Allgather || c == Collective::ReduceScatter);
    case NcclAlgo::NvlsTree:
      return s_.nvls && p == NcclProto::Simple && s_.nodes > 1 && c == Collective::Allreduce;
    // CollNet (the network's in-switch reduction, SHARP) joins nodes for an all-reduce with the Simple protocol
    // (all-gather and reduce-scatter need a plugin's iallgather / ireducescatter, not assumed); Direct only on an
    // NVSwitch system (tuning.cc: "Disable CollNet+Direct if not on an NVSwitch system").
    case NcclAlgo::CollnetDirect:
      return s_.collnet && s_.nvswitch && s_.nics_per_node > 0 && p == NcclProto::Simple && s_.nodes > 1 &&
             c == Collective::Allreduce;
    case NcclAlgo::CollnetChain:
      return s_.collnet && p == NcclProto::Simple && s_.nodes > 1 && c == Collective::Allreduce;
    default: return false;
  }
}

// One operation: its launch, then its run; overlapped (back-to-back operations, as in nccl-tests' timed loop, where the
// host launches operation k + 1 while the GPUs run operation k), the longer of the two: the host's launches and the
// GPUs' runs are two pipeline stages, and the slower one sets the period.
double NcclEngine::with_launch(double launch, double run) const {
  return s_.overlapped_launch ? std::max(launch, run) : launch + run;
}

double NcclEngine::probe_time(const Probe& p, std::span<const double> inputs, double size, double scale) const {
  const auto& links = p.engine->link_inputs();
  std::vector<double> in(inputs.begin() + p.input_at, inputs.begin() + p.input_at + p.input_count);
  const FabricCommEngine& e = *p.engine;
  in[size_t(e.overhead_input())] = 0;  // no software overhead: the library's latencies stand for it
  in[size_t(e.staging_chunk_input())] = 0;
  const double* eff = inputs.data() + 1 + nccl_in::kEfficiency;
  for (size_t i = 0; i < links.size(); ++i) {
    in[size_t(e.latency_input(0)) - links.size() + i] *= eff[int(p.link_class[i])];  // the link's bandwidth
    in[size_t(e.latency_input(int(i)))] = 0;  // the library's per-step latencies stand for the links'
  }
  if (!std::isnan(size)) in[size_t(e.size_input(0))] = size;
  if (e.size_inputs() == kSizeKinds) {  // a halo exchange's face, edge and corner messages
    for (int k = 0; k < kSizeKinds; ++k) in[size_t(e.size_input(k))] *= scale;
  } else {
    in[size_t(e.size_input(0))] *= scale;
    in[size_t(e.size_input(1))] = 0;  // no pipeline segments
  }
  return e.time(in);
}

double NcclEngine::probe_rate(const Probe& p, std::span<const double> inputs, std::string& error) const {
  double t = probe_time(p, inputs, kProbeBytes);
  if (!std::isfinite(t) || t <= 0) {
    error = t == 0 ? "the machine's links, each rated by the library's efficiency for its kind, give an infinite "
                     "bandwidth (an efficiency or a link bandwidth too large to compute with)"
                   : "the machine's links give the library no bandwidth (a link of zero bandwidth?)";
    return NAN;
  }
  return p.bytes_per_rank * kProbeBytes / t;
}

NcclEngine::Bandwidths NcclEngine::bandwidths(std::span<const double> inputs) const {
  Bandwidths b;
  if (!s_.ring.engine) return b;  // grouped sends and receives only: their own probe prices them
  b.ring = probe_rate(s_.ring, inputs, b.error);
  b.intra = s_.intra_probe.engine ? probe_rate(s_.intra_probe, inputs, b.error) : b.ring;
  b.inter = s_.inter_probe.engine ? probe_rate(s_.inter_probe, inputs, b.error) : b.ring;
  return b;
}

// tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime, for one operation.
std::vector<NcclEngine::Candidate> NcclEngine::candidates(std::span<const double> inputs, const Bandwidths& b,
                                                          double& p2p_data_s, std::string& error) const {
  const double* k = inputs.data() + 1;
  const double bytes = inputs[0];
  const int64_t p = s_.ranks, n_nodes = s_.nodes;
  const double ppn = double(p) / double(n_nodes);
  const Collective c = s_.collective;
  // NCCL's nBytes: the whole buffer (an all-gather's gathered output); gpmc's all-gather `bytes` is one rank's part.
  const double n_bytes = c == Collective::Allgather ? bytes * double(p) : bytes;
  const int64_t nsteps = c == Collective::Allreduce                                      ? 2 * (p - 1)
                         : c == Collective::ReduceScatter || c == Collective::Allgather ? p - 1
                                                                                         : p;
  const int index2 = n_nodes == 1 ? 0 : n_nodes == 2 ? 1 : 2;
  const double channel_bw = k[nccl_in::kChannelBw];
  // The channel count the per-channel caps use: on one node the ring's bandwidth in channels of channel_bw. Across
  // nodes NCCL's search gives a channel to each NIC at the NIC's speed and duplicates them (ncclTopoDupChannels)
  // only above dup_min_bw a channel, and with more than four channels only above dup_min_bw_over_4 (from compute
  // capability 9.0). NCCL compares its search's speed, rounded down to its list (no 25 or 50 GB/s in it: a
  // 200 Gb/s NIC runs at 24, a 400 Gb/s one at 48): here the NIC's own rate, compared strictly.
  double channels = std::max(1.0, std::floor(b.ring / channel_bw + 1e-9));
  if (n_nodes > 1 && s_.nics_per_node > 0) {
    const double nics = double(s_.nics_per_node), per_nic = b.ring / nics;
    const bool dup = per_nic > k[nccl_in::kDupMinBw] && !(nics > 4 && per_nic <= k[nccl_in::kDupMinBwOver4]);
    channels = nics * (dup ? 2 : 1);
  }
  auto hw = [&](LinkClass cls, NcclAlgo a, NcclProto pr) {
    return k[nccl_in::kHwLat + int(cls) * 6 + int(a) * 3 + int(pr)];
  };
  const LinkClass step_class = n_nodes == 1 ? s_.intra : LinkClass::Net;
  std::vector<Candidate> out;
  for (int ai = 0; ai < kNcclAlgos; ++ai)
    for (int pi = 0; pi < kNcclProtos; ++pi) {
      NcclAlgo a = NcclAlgo(ai);
      NcclProto pr = NcclProto(pi);
      if (!considers(a, pr)) continue;
      Candidate cand{a, pr};
      if (a == NcclAlgo::P2p) {
        if (!s_.p2p.engine) continue;
        // NCCL's rule, not a least time (enqueue.cc, addP2pToPlan): a message of at most p2p_ll_threshold bytes a
        // channel goes LL, a larger one Simple; a protocol the operation names replaces the rule. `bytes` is each
        // message's size (an all-to-all's block to each rank; a halo's largest message, whose protocol the
        // operation takes: its smaller ones under the threshold beside a larger one are priced as Simple).
        const bool ll_by_rule = !s_.alltoallv && bytes <= k[nccl_in::kP2pLlThreshold] * double(s_.p2p_ll_channels);
        if (s_.forced_proto < 0 && (pr == NcclProto::LL) != ll_by_rule) continue;
        // LL carries 8 bytes of data in each 16-byte line, the rest flags (prims_ll.h, ncclLLFifoLine; addP2pToPlan
        // halves an LL chunk's data size): its messages take the links twice as long as their bytes.
        p2p_data_s = probe_time(s_.p2p, inputs, NAN, pr == NcclProto::LL ? 2.0 : 1.0);
        // Every message of the group is posted at once (NCCL's grouped send/receive): one step's latency of the
        // protocol on the route's link class (the ring's, as the library's table has no point-to-point row).
        const LinkClass cls = s_.p2p_op.empty() ? step_class : s_.p2p_class;
        cand.latency_s = k[nccl_in::kBase + 0 * 3 + int(pr)] + hw(cls, NcclAlgo::Ring, pr);
        cand.time_s = cand.latency_s + p2p_data_s;
        cand.ok = std::isfinite(cand.time_s);
        if (!cand.ok)
          error = fmt::format("the {}'s messages have no time on the machine's links (a link of zero bandwidth, or "
                              "one too large to compute with once rated by the library's efficiency for its kind)",
                              s_.p2p_op.empty() ? "all-to-all" : s_.p2p_op.c_str());
        out.push_back(cand);
        continue;
      }
      double bw;  // the graph's bandwidth: channels x bandwidth of a channel
      if (a == NcclAlgo::Ring) bw = b.ring;
      // A tree over two nodes runs at its graph's intra-node bandwidth (tuning.cc: bwIntra for nNodes <= 2), which
      // the search raises while it is under twice the inter-node one (search.cc): each node sends its reduced data
      // across once and receives the other's, so the tree's bus bandwidth may exceed the network's. Over more
      // nodes, the inter-node bandwidth (bwInter).
      else if (a == NcclAlgo::Tree)
        bw = n_nodes == 1 ? b.intra : n_nodes == 2 ? std::min(b.intra, 2 * b.inter) : std::min(b.intra, b.inter);
      else bw = b.intra;
      double bus = bw;
      if (a == NcclAlgo::Nvls || a == NcclAlgo::NvlsTree) {
        // The NVLS graph (search.cc): one channel per GPU of the node pulling from the switch (its head), at most
        // NCCL_MAX_NVLS_ARITY; each channel moves its bandwidth between the switch and every GPU, twice for its
        // head, so a GPU's link carries (channels + 1) times a channel's bandwidth each way. The channels the
        // kernels run on at run time (nvls.cc's nvlsChannels) are not the graph's and do not enter the tuner.
        const double nch = std::min(k[nccl_in::kNvlsMaxArity], std::floor(ppn));
        if (nch < 2) continue;  // NVLS needs two channels
        double intra = bw / (nch + 1) * k[nccl_in::kNvlsEfficiency] * (nch - 1) / nch;
        intra *= c == Collective::Allreduce ? 2.0 : (ppn - 1) / ppn;  // an all-reduce pipelines two operations
        double per_channel = intra;
        if (a == NcclAlgo::NvlsTree) {
          double inter = b.inter / nch * (n_nodes <= 2 ? 2.0 : 1.0);
          per_channel = std::min({intra, inter, k[nccl_in::kNvlsTreeChBw + index2]});
        }
        bus = nch * per_channel;
        if (k[nccl_in::kNvlsEfficiency] <= 0) continue;  // the library has no NVLS on this GPU generation
      }
      // CollNet Direct: the intra-node graph's bandwidth over the GPU-to-NIC ratio, half of it made up again
      // (factor = ppn / heads, less (factor - 1) / 2), times the library's efficiency (0.85 from SM90).
      if (a == NcclAlgo::CollnetDirect) {
        double factor = ppn / double(s_.nics_per_node);
        factor -= (factor - 1) / 2;
        bus = bus / factor * k[nccl_in::kCollnetDirectEfficiency];
      }
      if (a == NcclAlgo::Ring && pr == NcclProto::LL) bus = std::min(k[nccl_in::kLlMaxBw + index2], bus * 0.5);
      if (a == NcclAlgo::Ring && pr == NcclProto::LL128)
        bus = std::min(bus * 0.92, channels * k[nccl_in::kRingLl128ChBw + index2]);
      if (a == NcclAlgo::Tree) bus = std::min(bus * 0.92, channels * k[nccl_in::kTreeChBw + index2]);
      if (a == NcclAlgo::Tree && pr == NcclProto::LL) bus = std::min(bus / 3.8, k[nccl_in::kLlMaxBw + index2]);
      if (a == NcclAlgo::Tree && pr == NcclProto::LL128)
        bus = std::min(bus * (n_nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), channels * k[nccl_in::kTreeLl128ChBw + index2]);
      if (a == NcclAlgo::Tree && c == Collective::Allreduce) bus *= tree_correction(pr, n_bytes);
      cand.bus_bw = bus;
      const bool collnet = a == NcclAlgo::CollnetDirect || a == NcclAlgo::CollnetChain;
      double ratio = (a == NcclAlgo::Tree || collnet) ? 0.5 : double(p) / double(nsteps);
      cand.alg_bw = bus * ratio;
      // Latency.
      double lat = a == NcclAlgo::Ring || a == NcclAlgo::Tree ? k[nccl_in::kBase + int(a) * 3 + int(pr)] : 0;
      // Ring and tree latencies of their classes (the library's table has them for ring and tree only).
      double intra_lat = hw(s_.intra, a == NcclAlgo::Tree ? NcclAlgo::Tree : NcclAlgo::Ring, pr);
      double inter_lat =
          hw(LinkClass::Net, ppn == 1 || a == NcclAlgo::Tree ? NcclAlgo::Tree : NcclAlgo::Ring, pr);
      if (a == NcclAlgo::Ring) {
        if (c == Collective::Reduce || c == Collective::Bcast) {
          // A chain over the ring: every step's latency (Simple: the tree's chunk latency).
          double step = hw(step_class, pr == NcclProto::Simple ? NcclAlgo::Tree : NcclAlgo::Ring, pr);
          lat += double(nsteps) * step;
        } else {
          if (n_nodes > 1) {
            double net_overhead = k[nccl_in::kNetOverhead] * (pr == NcclProto::Simple ? 3 : 1);
            intra_lat = std::max(intra_lat, net_overhead);
          }
          int64_t inter_steps = n_nodes == 1 ? 0 : c == Collective::Allreduce ? 2 * (n_nodes - 1) : n_nodes - 1;
          lat += double(nsteps - inter_steps) * intra_lat + double(inter_steps) * inter_lat;
        }
      } else if (a == NcclAlgo::Tree) {
        lat += 2 * ((ppn - 1) * intra_lat + double(ilog2(n_nodes)) * inter_lat);
      } else if (a == NcclAlgo::Nvls) {
        lat = k[nccl_in::kNvlsLat + 0];
      } else if (collnet) {
        // CollNet (Simple; base latency 0): the intra-node latency of its class (NVLink or PCI), the network's (with
        // one rank per node the tree's network latency); Direct adds 0.4 us of arity serialisation per further rank
        // of a node (tuning.cc), Chain a step per further rank each way.
        const double* cl = k + nccl_in::kCollnetLat + (a == NcclAlgo::CollnetChain ? 3 : 0);
        double intra = cl[s_.intra == LinkClass::NvLink ? 0 : 1];
        double inter = ppn == 1 ? hw(LinkClass::Net, NcclAlgo::Tree, pr) : cl[2];
        lat = a == NcclAlgo::CollnetDirect ? 2 * (std::min(1.0, ppn - 1) * intra + (ppn - 1) * 0.4e-6) + inter
                                           : 2 * (ppn - 1) * intra + inter;
      } else {
        lat = k[nccl_in::kNvlsLat + 2] + 2 * double(ilog2(n_nodes)) * k[nccl_in::kNvlsLat + 3];
      }
      if (a == NcclAlgo::Ring && pr == NcclProto::Simple && n_nodes > 1 && c == Collective::Allreduce &&
          n_bytes / (channels * double(p)) >= 64)
        lat *= k[nccl_in::kRingPlateau];  // the ring's plateau (tuning.cc)
      cand.latency_s = lat;
      if (cand.alg_bw <= 0 || !std::isfinite(cand.alg_bw)) continue;
      cand.time_s = lat + n_bytes / cand.alg_bw;
      cand.ok = std::isfinite(cand.time_s);
      out.push_back(cand);
    }
  return out;
}

ir::EngineResult NcclEngine::run(std::span<const double> inputs) const {
  ir::EngineResult r;
  Bandwidths b = bandwidths(inputs);
  if (!b.error.empty()) {
    r.error = b.error;
    r.time_s = NAN;
    return r;
  }
  std::string error;
  double p2p_data = 0;
  auto cands = candidates(inputs, b, p2p_data, error);
  const double launch = launch_time(inputs);
  const Candidate* best = nullptr;
  for (const auto& c : cands) {
    if (!c.ok) continue;
    bool forced = s_.forced_algo >= 0 || s_.forced_proto >= 0;
    if (forced && ((s_.forced_algo >= 0 && int(c.algo) != s_.forced_algo) ||
                   (s_.forced_proto >= 0 && int(c.proto) != s_.forced_proto)))
      continue;
    if (!best || c.time_s < best->time_s) best = &c;  // ties: the first in NCCL's order (tree before ring...)
  }
  if (!best) {
    r.error = !error.empty() ? error
                             : "the library runs no algorithm and protocol of those named for this operation on this "
                               "machine";
    r.time_s = NAN;
    return r;
  }
  r.time_s = with_launch(launch, best->time_s);
  auto& d = r.detail;
  d["operation"] = !s_.p2p_op.empty() ? s_.p2p_op.c_str()
                   : s_.barrier        ? "barrier"
                   : s_.alltoallv      ? "alltoallv"
                                       : collective_name(s_.collective);
  d["comm_model"] = "nccl";
  d["algorithm"] = nccl_algo_name(best->algo);
  d["protocol"] = nccl_proto_name(best->proto);
  d["chosen_by"] = s_.forced_algo >= 0 || s_.forced_proto >= 0 ? "the operation"
                  : s_.alltoallv               ? "the model (an alltoallv's messages all Simple)"
                  : best->algo == NcclAlgo::P2p ? "the library's rule (p2p_ll_threshold)"
                                                : "the tuner (least time)";
  d["ranks"] = s_.ranks;
  d["nodes"] = s_.nodes;
  if (s_.ring.engine) d["ring_bus_bw"] = b.ring;
  if (s_.intra_probe.engine) d["intra_bus_bw"] = b.intra;
  if (s_.inter_probe.engine) d["inter_bus_bw"] = b.inter;
  d["launch_s"] = launch;
  d["gpus_per_thread"] = inputs[1 + nccl_in::kGpusPerThread];
  d["launch"] = s_.overlapped_launch ? "overlapped" : "serial";
  if (int64_t period = s_.ring.engine ? s_.ring.engine->symmetric_period() : 0; period > 0)
    d["ring_probe_period_nodes"] = period;
  auto all = nlohmann::ordered_json::array();
  for (const auto& c : cands) {
    nlohmann::ordered_json j;
    j["algorithm"] = nccl_algo_name(c.algo);
    j["protocol"] = nccl_proto_name(c.proto);
    j["latency_s"] = c.latency_s;
    if (c.algo != NcclAlgo::P2p) j["bus_bw"] = c.bus_bw;
    j["time_s"] = c.ok ? with_launch(launch, c.time_s) : NAN;
    all.push_back(std::move(j));
  }
  d["candidates"] = std::move(all);
  r.terms.push_back({"latency", best->latency_s, support::Dim::seconds(), false});
  if (best->algo != NcclAlgo::P2p)
    r.terms.push_back({"bus bandwidth", best->bus_bw, support::Dim::byte() / support::Dim::seconds(), false});
  if (launch > 0 && s_.overlapped_launch) {  // the alternatives of the max: the larger one bounds the operation
    r.terms.push_back({"launch", launch, support::Dim::seconds(), true});
    r.terms.push_back({"run", best->time_s, support::Dim::seconds(), true});
  } else if (launch > 0) {
    r.terms.push_back({"launch", launch, support::Dim::seconds(), false});
  }
  return r;
}

double NcclEngine::time(std::span<const double> inputs) const {
  Bandwidths b = bandwidths(inputs);
  if (!b.error.empty()) return NAN;
  std::string error;
  double p2p_data = 0;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& c : candidates(inputs, b, p2p_data, error)) {
    if (!c.ok) continue;
    if (s_.forced_algo >= 0 && int(c.algo) != s_.forced_algo) continue;
    if (s_.forced_proto >= 0 && int(c.proto) != s_.forced_proto) continue;
    best = std::min(best, c.time_s);
  }
  return std::isfinite(best) ? with_launch(launch_time(inputs), best) : NAN;
}

std::string NcclEngine::describe() const {
  std::string out = fmt::format("nccl {} over {} ranks on {} node{}; intra-node links: {}{}\n",
                                !s_.p2p_op.empty() ? s_.p2p_op.c_str()
                                : s_.barrier       ? "barrier (an all-reduce of one element)"
                                : s_.alltoallv     ? "alltoallv"
                                                   : collective_name(s_.collective),
                                s_.ranks, s_.nodes, s_.nodes == 1 ? "" : "s",
                                s_.intra == LinkClass::NvLink ? "NVLink" : "PCIe", s_.nvls ? "; NVLS switch" : "");
  if (s_.collnet) out += fmt::format("  the network reduces (CollNet), {} NICs per node\n", s_.nics_per_node);
  if (s_.overlapped_launch) out += "  launches overlapped with the previous operation's run\n";
  for (int a = 0; a < kNcclAlgos; ++a)
    for (int p = 0; p < kNcclProtos; ++p)
      if (considers(NcclAlgo(a), NcclProto(p)))
        out += fmt::format("  considers {}/{}\n", nccl_algo_name(NcclAlgo(a)), nccl_proto_name(NcclProto(p)));
  return out;
}

}  // namespace gpm::mpi
