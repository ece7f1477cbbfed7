// lower_mpi.h: what the lowering of MPI operations shares between lower_mpi.cpp (the machine's section, the
// fitted models) and lower_mpi_fabric.cpp (operations priced on the machine's links).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/mpi/fabric_engine.h"
#include "engines/mpi/pattern.h"
#include "frontend/ast.h"
#include "ir/ir.h"

namespace gpm::lower {

// The statement's attribute of that name, or null.
inline const frontend::Attr* find_attr(const std::vector<frontend::Attr>& attrs, std::string_view name) {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

// Whether a component is a switch of the cluster's network (lower_cluster.cpp names them leaf, spine, core, router).
inline bool is_network_switch(const ir::Component& c) {
  return c.path.starts_with("leaf[") || c.path.starts_with("spine[") || c.path.starts_with("core[") ||
         c.path.starts_with("router[");
}

// What the operations need from the machine's section: the input values (thresholds, fits, copy costs), which fits
// exist, and the static layout choices (ranks per node and socket, mapping, default model). A machine without an
// `mpi` section gets the defaults: one rank per GPU of a node, a linear mapping, the fabric model.
struct MpiMachineInfo {
  std::vector<ir::ValueId> inputs;  // mpi::in::kMachineInputs values
  mpi::FitTable fits;
  mpi::CommModel model = mpi::CommModel::KModel;
  mpi::Mapping mapping;
  ir::SourceRange mapping_range;
  int64_t ranks_per_node = 1, ranks_per_socket = 1;
  bool has_copy = false, has_pin = false;
  mpi::FatTree tree;            // the machine's network section, if any
  int64_t leaf_switches = 0;    // > 0: the tree's leaves, which bound the nodes an operation may use
  ir::SourceRange network_range;
  ir::ValueId overhead = ir::kNoValue;  // the fabric model's software latency of each message
  bool has_overhead = false;            // the section gives `overhead` (otherwise 0, with an AssumedZero warning)
  bool has_staging_chunk = false;       // the section gives `staging_chunk` (inputs[mpi::in::kStagingChunk])
  ir::ValueId mtu = ir::kNoValue;       // `transport = tcp`: the network's IP MTU (kNoValue: not given)
  ir::SourceRange section_range;        // the `mpi` section (none for the defaults)
  bool from_section = true;     // false: the defaults of a machine without an `mpi` section
  const frontend::TypeDecl* library = nullptr;  // the nccl model's constants: the section's `library` type
  ir::SourceRange library_range;
  const frontend::TypeDecl* mpi_library = nullptr;  // the section's `mpi_library` type: collectives' algorithms
  ir::SourceRange mpi_library_range;
};

// One operation to price on the fabric: its ranks' layout, its transport, and its pattern (a halo's grid or a
// collective and its algorithm); `sizes` are its size inputs (face, edge, corner, or bytes and segment).
struct MpiFabricRequest {
  std::string name;  // the statement's operation: "halo", "allreduce", ...
  mpi::Layout layout;
  mpi::Transport transport = mpi::Transport::GpuDirect;
  ir::ValueId staging_chunk = ir::kNoValue;  // host staging: bytes of each piece (0: whole messages)
  // `transport = tcp` (transport Staged): the network's links carry TCP/IP in Ethernet frames of `mtu` bytes.
  bool tcp = false;
  ir::ValueId mtu = ir::kNoValue;
  bool staging_chunk_given = false;          // the section or the operation gives `staging_chunk`
  bool halo = false;
  mpi::Grid grid;
  mpi::Collective collective = mpi::Collective::Allreduce;
  mpi::Algorithm algorithm = mpi::Algorithm::Ring;
  bool p2p = false;  // `send` or `sendrecv`: `window` messages from `from` to `to` (and back when `both`)
  int64_t from = 0, to = 1, window = 1;
  int64_t channels = 1;  // a ring's channels (collective_rounds)
  mpi::NodeAware node_aware;  // an MPI library's node-aware composition (collective_rounds)
  mpi::Variant variant;       // the algorithm's chains, radix or parts (collective_rounds)
  std::string chosen_by;      // the MPI library that chose the algorithm, or empty
  int nccl_algorithm = -1, nccl_protocol = -1;  // the nccl model: the operation's choice (mpi::NcclAlgo, NcclProto)
  int64_t gpus_per_thread = 1;                   // the nccl model: GPUs one host thread launches the operation on
  bool overlapped_launch = false;                // the nccl model: `launch = overlapped` (back-to-back operations)
  bool both = false;
  bool alltoallv = false;      // an alltoallv: `algorithm` pairwise or scattered, the blocks' bytes in `matrix`
  std::vector<double> matrix;  // alltoallv: bytes[src * ranks + dst]
  std::vector<ir::ValueId> sizes;
};

// What builds a fabric-model operation with every flow when its engine took the fast path (Lowerer::fabric_whole_):
// kept only where its messages are few enough for a `par` to write out, and the engine once a `par` built it.
struct FabricWholeSpec {
  mpi::FabricCommEngine::Operation op;
  mpi::FabricPlacement placement;
  std::vector<mpi::Round> rounds;
  std::shared_ptr<const mpi::FabricCommEngine> whole;
  bool tried = false;
};

}  // namespace gpm::lower
