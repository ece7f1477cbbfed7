// nccl_engine.h: collectives priced as NCCL's tuner prices them (`comm_model = nccl`): every algorithm and
// protocol the library would consider gets a latency and a bus bandwidth, the least predicted time wins unless the
// operation names one; the bandwidths come from the machine's links (fabric probes, each link rated as the library
// rates its kind), the constants from a `library` type (stdlib/nccl.gpm).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engines/mpi/fabric_engine.h"
#include "engines/mpi/pattern.h"
#include "ir/engine.h"

namespace gpm::mpi {

enum class NcclAlgo : uint8_t { Ring = 0, Tree = 1, Nvls = 2, NvlsTree = 3, P2p = 4, CollnetDirect = 5, CollnetChain = 6 };
enum class NcclProto : uint8_t { LL = 0, LL128 = 1, Simple = 2 };
constexpr int kNcclAlgos = 7, kNcclProtos = 3;
const char* nccl_algo_name(NcclAlgo a);    // ring, tree, nvls, nvls_tree, p2p, collnet_direct, collnet_chain
const char* nccl_proto_name(NcclProto p);  // LL, LL128, Simple
// The kinds of link, as the library rates them (NCCL's NVLink, PCI and network classes).
enum class LinkClass : uint8_t { NvLink = 0, Pcie = 1, Net = 2 };

// The library's constants, in the order of the engine's inputs (after `bytes`); each is an attribute of a
// `library` type (frontend/schema.cpp names them, stdlib/nccl.gpm gives them with their sources).
// NCCL runs at most MAXCHANNELS = 64 channels (src/include/device.h).
constexpr int64_t kNcclMaxChannels = 64;

namespace nccl_in {
enum : int {
  kLaunch = 0,       // launch_overhead: host time of one operation on one GPU, added to every operation
  kLaunchPerGpu,     // launch_per_gpu: host time of each further GPU the launching thread drives (gpus_per_thread)
  kEfficiency,       // nvlink_efficiency, pcie_efficiency, net_efficiency: the library's rating of a link / its bw
  kChannelBw = kEfficiency + 3,  // channel_bw: bandwidth of one channel (sets the channel count of the caps)
  kNvlsEfficiency,   // nvls_efficiency
  kNvlsMaxArity,     // nvls_max_arity: the most channels (head GPUs) of an NVLS graph
  kRingPlateau,      // ring_plateau: multi-node ring Simple all-reduce latency factor
  kNetOverhead,      // net_overhead: per-step software cost of an inter-node ring
  kBase,             // [algo ring/tree][proto] base latencies: 6
  kHwLat = kBase + 6,  // [class][algo ring/tree][proto]: 18
  kNvlsLat = kHwLat + 18,  // nvls on nvlink, nvls on net, nvls_tree on nvlink, nvls_tree on net: 4
  kLlMaxBw = kNvlsLat + 4,  // [1 node, 2 nodes, more]: 3 each from here
  kRingLl128ChBw = kLlMaxBw + 3,
  kTreeLl128ChBw = kRingLl128ChBw + 3,
  kTreeChBw = kTreeLl128ChBw + 3,
  kNvlsTreeChBw = kTreeChBw + 3,
  kCollnetLat = kNvlsTreeChBw + 3,  // CollNet Direct on nvlink, pcie, net, then CollNet Chain likewise (Simple): 6
  kCollnetDirectEfficiency = kCollnetLat + 6,  // collnet_direct_efficiency: CollNet Direct's bandwidth factor
  kDupMinBw = kCollnetDirectEfficiency + 1,  // dup_min_bw: channels at or under this rate are not duplicated
  kDupMinBwOver4,    // dup_min_bw_over_4: nor, when there are more than four, at or under this one
  kP2pLlThreshold,   // p2p_ll_threshold: a point-to-point message of at most this many bytes a channel moves with LL
  kCount = kP2pLlThreshold + 1,
  kGpusPerThread = kCount  // after the constants: the operation's gpus_per_thread (1 unless it names one)
};
}  // namespace nccl_in

// The library attribute names, in input order.
const std::vector<std::string>& nccl_library_attributes();

class NcclEngine : public ir::Engine {
 public:
  // One fabric probe: a round of messages whose bandwidth stands for one of the library's graph bandwidths, its
  // engine, and the class of each of its input links.
  struct Probe {
    std::shared_ptr<FabricCommEngine> engine;
    std::vector<LinkClass> link_class;  // per engine->link_inputs()
    double bytes_per_rank = 0;          // bytes one rank sends in the probe round at size 1
    int input_at = 0;                   // where its input block starts in the engine's inputs
    int input_count = 0;
  };
  struct Setup {
    Collective collective = Collective::Allreduce;
    int64_t ranks = 0, nodes = 1;
    LinkClass intra = LinkClass::NvLink;  // the class of the links between GPUs of a node
    bool nvls = false;                    // the GPUs share a switch that reduces in the network (NVLink SHARP)
    bool nvswitch = false;                // the GPUs of a node talk over NVLink through a switch (an NVSwitch)
    bool collnet = false;                 // the nodes' network reduces (InfiniBand SHARP: a switch with `sharp`)
    int64_t nics_per_node = 0;            // NICs of the first rank's node (CollNet Direct's heads; channels)
    int forced_algo = -1, forced_proto = -1;
    // The operation is one of a loop of the same operation issued back to back: the host's launch of the next
    // overlaps this one's run, so an operation takes the longer of the two instead of their sum.
    bool overlapped_launch = false;
    // The graphs of the collectives: none for grouped sends and receives (p2p); inter_probe only over several nodes.
    Probe ring, intra_probe, inter_probe;
    Probe p2p;  // all-to-all, send, recv, sendrecv, halo: the operation's own schedule on the fabric, at its size
    // A point-to-point operation (NCCL's ncclSend / ncclRecv in one group): its name (send, recv, sendrecv, halo;
    // empty for a collective) and the link class of its route (NVLink, PCI or the network; a halo's the network's
    // when a neighbour is on another node), whose per-step latency it pays.
    std::string p2p_op;
    LinkClass p2p_class = LinkClass::NvLink;
    // How many channels a message at the LL threshold may spread over (enqueue.cc, addP2pToPlan: a message goes LL
    // when it is at most channels x p2p_ll_threshold, the channels its size gives at the minimum part size): 2 on
    // one node whose GPUs talk over PCIe (NCCL's PCI chunk of 128 KiB makes the minimum part 16 KiB, and a PCI peer
    // gets 2 channels, paths.cc ncclTopoGetNchannels), else 1 (NVLink and network chunks make it 64 KiB).
    int64_t p2p_ll_channels = 1;
    // A barrier, run as a framework runs it on NCCL: an all-reduce of one element (`collective` is Allreduce).
    bool barrier = false;
    // An alltoallv (grouped sends and receives of their own sizes, priced as the all-to-all with the p2p probe of
    // its blocks): the report names it so.
    bool alltoallv = false;
  };
  explicit NcclEngine(Setup s) : s_(std::move(s)) {}

  std::string name() const override { return "mpi-nccl"; }
  double time(std::span<const double> inputs) const override;
  ir::EngineResult run(std::span<const double> inputs) const override;
  std::string describe() const override;
  // An operation's time from its launch and its run (Setup::overlapped_launch).
  double with_launch(double launch, double run) const;

  // Which algorithms and protocols the library considers for this operation (before the forced choice).
  bool considers(NcclAlgo a, NcclProto p) const;

 private:
  struct Candidate {
    NcclAlgo algo;
    NcclProto proto;
    double latency_s = 0, bus_bw = 0, alg_bw = 0, time_s = 0;
    bool ok = false;
  };
  struct Bandwidths {
    double ring = 0, intra = 0, inter = 0;  // bus bandwidths of the library's graphs, bytes/s
    std::string error;
  };
  Bandwidths bandwidths(std::span<const double> inputs) const;
  // A probe's time on the rated links, without latencies; at `size` bytes, or the size its inputs give (NaN), every
  // size times `scale` (2 for LL, whose lines carry half data).
  double probe_time(const Probe& p, std::span<const double> inputs, double size, double scale = 1) const;
  double probe_rate(const Probe& p, std::span<const double> inputs, std::string& error) const;
  std::vector<Candidate> candidates(std::span<const double> inputs, const Bandwidths& b, double& p2p_data_s,
                                    std::string& error) const;
  Setup s_;
};

}  // namespace gpm::mpi
