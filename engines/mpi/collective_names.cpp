// collective_names.cpp: the collectives' and algorithms' names, each operation's default algorithm and the
// algorithms it allows (docs/models.md section 9.3).
#include <fmt/format.h>

#include "engines/mpi/pattern.h"

namespace gpm::mpi {

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::Allreduce: return "allreduce";
    case Collective::Reduce: return "reduce";
    case Collective::Bcast: return "bcast";
    case Collective::Allgather: return "allgather";
    case Collective::Alltoall: return "alltoall";
    case Collective::ReduceScatter: return "reduce_scatter";
    case Collective::Gather: return "gather";
    case Collective::Scatter: return "scatter";
    default: return "barrier";
  }
}

const char* algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::BinomialTree: return "binomial_tree";
    case Algorithm::RecursiveDoubling: return "recursive_doubling";
    case Algorithm::Ring: return "ring";
    case Algorithm::Rabenseifner: return "rabenseifner";
    case Algorithm::Pairwise: return "pairwise";
    case Algorithm::ScatterAllgather: return "scatter_allgather";
    case Algorithm::Pipeline: return "pipeline";
    case Algorithm::RecursiveHalving: return "recursive_halving";
    case Algorithm::Bruck: return "bruck";
    case Algorithm::Scattered: return "scattered";
    case Algorithm::ScatterDoublingAllgather: return "scatter_doubling_allgather";
    case Algorithm::Hierarchical: return "hierarchical";
    case Algorithm::DoubleBinaryTree: return "double_binary_tree";
    case Algorithm::InNetwork: return "in_network";
    case Algorithm::Linear: return "linear";
    case Algorithm::LinearSync: return "linear_sync";
    case Algorithm::Chain: return "chain";
    case Algorithm::BinaryTree: return "binary_tree";
    case Algorithm::InOrderBinaryTree: return "in_order_binary_tree";
    case Algorithm::SplitBinaryTree: return "split_binary_tree";
    case Algorithm::Knomial: return "knomial";
    case Algorithm::NeighborExchange: return "neighbor_exchange";
    case Algorithm::Butterfly: return "butterfly";
    case Algorithm::NonOverlapping: return "nonoverlapping";
    case Algorithm::Sparbit: return "sparbit";
    case Algorithm::DirectMessaging: return "direct_messaging";
    case Algorithm::DoubleRing: return "double_ring";
    case Algorithm::AllgatherReduce: return "allgather_reduce";
    default: return "dissemination";
  }
}

std::string algorithm_title(Algorithm a, bool node_aware, const Variant& variant, Collective c) {
  return node_aware ? fmt::format("node-aware {}", algorithm_name(a)) : variant_title(a, variant, c);
}

Algorithm default_algorithm(Collective c) {
  switch (c) {
    case Collective::Allreduce: return Algorithm::RecursiveDoubling;
    case Collective::Reduce:
    case Collective::Bcast:
    case Collective::Gather:
    case Collective::Scatter: return Algorithm::BinomialTree;
    case Collective::Allgather: return Algorithm::Ring;
    case Collective::Alltoall: return Algorithm::Pairwise;
    case Collective::ReduceScatter: return Algorithm::Ring;
    default: return Algorithm::Dissemination;
  }
}

bool algorithm_allowed(Collective c, Algorithm a) {
  switch (c) {
    case Collective::Allreduce:
      return a == Algorithm::BinomialTree || a == Algorithm::RecursiveDoubling || a == Algorithm::Ring ||
             a == Algorithm::Rabenseifner || a == Algorithm::Hierarchical || a == Algorithm::DoubleBinaryTree ||
             a == Algorithm::InNetwork || a == Algorithm::Linear || a == Algorithm::NonOverlapping ||
             a == Algorithm::AllgatherReduce;
    case Collective::Reduce:
      return a == Algorithm::BinomialTree || a == Algorithm::Rabenseifner || a == Algorithm::Pipeline ||
             a == Algorithm::DoubleBinaryTree || a == Algorithm::Linear || a == Algorithm::Chain ||
             a == Algorithm::BinaryTree || a == Algorithm::InOrderBinaryTree || a == Algorithm::Knomial;
    case Collective::Bcast:
      return a == Algorithm::BinomialTree || a == Algorithm::ScatterAllgather || a == Algorithm::Pipeline ||
             a == Algorithm::ScatterDoublingAllgather || a == Algorithm::DoubleBinaryTree || a == Algorithm::Linear ||
             a == Algorithm::Chain || a == Algorithm::BinaryTree || a == Algorithm::Knomial ||
             a == Algorithm::SplitBinaryTree;
    case Collective::Allgather:
      return a == Algorithm::Ring || a == Algorithm::RecursiveDoubling || a == Algorithm::Bruck ||
             a == Algorithm::NeighborExchange || a == Algorithm::Linear || a == Algorithm::Sparbit ||
             a == Algorithm::DirectMessaging;
    case Collective::Alltoall:
      return a == Algorithm::Pairwise || a == Algorithm::Bruck || a == Algorithm::Scattered || a == Algorithm::Linear;
    case Collective::ReduceScatter:
      return a == Algorithm::Ring || a == Algorithm::RecursiveHalving || a == Algorithm::Pairwise ||
             a == Algorithm::Butterfly || a == Algorithm::NonOverlapping;
    case Collective::Gather:
      return a == Algorithm::BinomialTree || a == Algorithm::Linear || a == Algorithm::LinearSync;
    case Collective::Scatter: return a == Algorithm::BinomialTree || a == Algorithm::Linear;
    default:
      return a == Algorithm::Dissemination || a == Algorithm::RecursiveDoubling || a == Algorithm::BinomialTree ||
             a == Algorithm::Linear || a == Algorithm::DoubleRing;
  }
}

}  // namespace gpm::mpi
