// fabric_routes.h: the route of an MPI message on the fabric: between two nodes it leaves through the NIC nearest
// its sender's GPU and enters through the NIC nearest its receiver's GPU, as the communication libraries choose
// their network device; within a node, and wherever that does not apply, the router's route (ir/topology.h).
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/topology.h"

namespace gpm::mpi {

// Which NIC a GPU's messages to other nodes use, and their routes. NCCL binds each GPU to the network devices
// closest to it in its topology (src/graph/topo.cc, ncclTopoGetLocalNetType: the NICs of the best path type from
// the GPU, the GPUs that share them starting at different ones, by device index), and UCX ranks the devices by their distance to the buffer's memory;
// neither sends a GPU's bytes through another GPU's NIC and across the receiving host's PCIe fabric, which a
// fewest-links route may do where the two are the same length (a rail-optimised cluster: into the receiver's node
// on the sender's rail, then over its PCIe root complex).
//
// The rule: a GPU's NIC is the nearest component of kind `nic` in its node (fewest links, not passing through
// another GPU);
// where several are equally near, the GPUs of its node that have the same nearest set take them in turn (the i-th
// such GPU in declaration order takes the (i mod k)-th NIC of k). A message from a GPU to a GPU of another node
// (components under different `node[N].` paths) is the route from the sender's GPU to its NIC, from that NIC to
// the receiver's NIC, and from there to the receiver's GPU; without a NIC on either side, or where a leg has no
// route, the router's route.
class MessageRouter {
 public:
  MessageRouter(const ir::Topology& topology, ir::Router& router);
  std::optional<std::vector<ir::Hop>> route(int from, int to);
  // The NIC a GPU's messages to other nodes use (-1: none).
  int nic_of(int gpu);
  // The number that spreads the messages into `gpu` over equal paths between NICs (the router's step 4, d-mod-k):
  // its place when the GPUs are numbered switch by switch, those whose NICs plug into the first network switch
  // first (component order within), as a fat tree numbers its hosts leaf by leaf. On a tree whose nodes fill its
  // leaves in order this is the GPU's rank; on a rail-optimised one, whose leaf holds one rail's NICs of many nodes,
  // the GPUs behind one leaf get consecutive numbers and so spread over the spines (by rank, every GPU of a rail
  // would take the same spine). A GPU without a NIC outside its node: its rank.
  int spread_number(int gpu);

 private:
  // The components of kind `nic` nearest to `gpu` (one layer of the search), in component order.
  const std::vector<int>& nearest_nics(int gpu);
  // The `node[N].` prefix of a component's path, or empty outside a cluster's nodes.
  static std::string node_prefix(const std::string& path);

  const ir::Topology& t_;
  ir::Router& router_;
  std::vector<std::vector<int>> adj_;  // undirected, built on first use
  std::vector<int> stamp_;             // per component: the search that last reached it
  int search_ = 0;
  std::unordered_map<int, std::vector<int>> nearest_;
  std::unordered_map<int, int> nic_;
  // Per GPU: the legs to its NIC and back (nullopt: no route), kept since every message between nodes takes them.
  std::unordered_map<int, std::optional<std::vector<ir::Hop>>> out_leg_, in_leg_;
  std::unordered_map<std::string, std::vector<int>> gpus_of_node_;  // by node prefix, in component order
  std::vector<int> spread_;  // per component (GPUs): spread_number, built on first use
};

}  // namespace gpm::mpi
