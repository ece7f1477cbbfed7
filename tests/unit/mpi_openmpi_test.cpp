// mpi_openmpi_test.cpp: Open MPI's choice of a collective's algorithm (engines/mpi/openmpi_choice.cpp) against its
// tuned component's fixed decisions (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c) read by hand at the edges of
// their bands, and the stdlib's `openmpi` type against the schema.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "engines/mpi/library_choice.h"
#include "frontend/schema.h"

using namespace gpm;
using namespace gpm::mpi;

namespace {

// stdlib/mpi.gpm's `openmpi`, in openmpi_library_attributes() order: knomial radix 4, one bcast chain, two reduce
// chains.
const std::vector<double> kOpenmpi = {4, 1, 2};

LibraryChoice choose(Collective c, int64_t ranks, double bytes) {
  return openmpi_choice(kOpenmpi, c, make_layout(ranks, 1, 1, Mapping{}), bytes);
}

}  // namespace

TEST_CASE("mpi openmpi: the schema's attributes are the choice's") {
  std::set<std::string> schema, engine;
  for (const auto& spec : *frontend::attribute_schema("openmpi_library")) schema.insert(spec.name);
  for (const auto& name : openmpi_library_attributes()) engine.insert(name);
  CHECK(schema == engine);
  CHECK(openmpi_library_attributes().size() == kOpenmpi.size());
}

TEST_CASE("mpi openmpi: allreduce, the commutative decision read by hand") {
  // communicator_size < 4: < 8 ring (4), < 4096 recursive doubling (3), .., < 262144 segmented ring (5), else 6.
  CHECK(choose(Collective::Allreduce, 2, 4).algorithm == Algorithm::Ring);
  CHECK(choose(Collective::Allreduce, 2, 8).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Allreduce, 3, 100000).algorithm == Algorithm::Ring);  // segmented ring, no segments
  CHECK(choose(Collective::Allreduce, 3, 262144).algorithm == Algorithm::Rabenseifner);
  // < 16: < 8192 recursive doubling, else Rabenseifner.
  CHECK(choose(Collective::Allreduce, 8, 8191).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Allreduce, 15, 8192).algorithm == Algorithm::Rabenseifner);
  // < 256: < 131072 nonoverlapping (its reduce and bcast by their own decisions), < 262144 recursive doubling.
  auto no = choose(Collective::Allreduce, 200, 1024);
  CHECK(no.algorithm == Algorithm::NonOverlapping);
  CHECK(no.variant.reduce_part == Algorithm::BinomialTree);  // reduce, < 256 ranks: binomial (5)
  CHECK(no.variant.bcast_part == Algorithm::BinaryTree);     // bcast, < 256 ranks, < 16384 B: binary tree (5)
  CHECK(choose(Collective::Allreduce, 200, 200000).algorithm == Algorithm::RecursiveDoubling);
  // The last band (4096 ranks and more): < 2048 nonoverlapping, < 16384 segmented ring, < 32768 recursive doubling.
  CHECK(choose(Collective::Allreduce, 1 << 20, 8192).algorithm == Algorithm::Ring);
  CHECK(choose(Collective::Allreduce, 1 << 20, 20000).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Allreduce, 1 << 20, 1 << 20).algorithm == Algorithm::Rabenseifner);
}

TEST_CASE("mpi openmpi: bcast and reduce, with their chains, radix and substitutions") {
  // bcast < 8 ranks: < 1048576 basic linear (1), else chain (2, fan-out 0: one chain).
  CHECK(choose(Collective::Bcast, 6, 65536).algorithm == Algorithm::Linear);
  auto chain = choose(Collective::Bcast, 6, 1 << 20);
  CHECK(chain.algorithm == Algorithm::Chain);
  CHECK(chain.variant.bcast_chains == 1);
  // < 4 ranks, < 32 B: pipeline (3) with no segment size: one chain.
  CHECK(choose(Collective::Bcast, 3, 16).algorithm == Algorithm::Chain);
  // < 128 ranks: k-nomial (7) of radix 4.
  auto k = choose(Collective::Bcast, 100, 64);
  CHECK(k.algorithm == Algorithm::Knomial);
  CHECK(k.variant.radix == 4);
  // 256 to 1023 ranks, 16384 to 32767 B: split binary tree (4).
  CHECK(choose(Collective::Bcast, 512, 20000).algorithm == Algorithm::SplitBinaryTree);
  // 16 to 31 ranks, 1 MiB and more: scatter + recursive-doubling allgather (8), a power of two of ranks or not.
  CHECK(choose(Collective::Bcast, 16, 1 << 20).algorithm == Algorithm::ScatterDoublingAllgather);
  auto odd = choose(Collective::Bcast, 24, 1 << 20);
  CHECK(odd.algorithm == Algorithm::ScatterDoublingAllgather);  // with recursive-halving hand-ons (collectives_sized)
  CHECK(odd.why.find("not a power of two") != std::string::npos);
  // reduce 4 to 7 ranks: < 4096 binary (4), < 65536 chain (2, fan-out 2), < 262144 binomial (5), < 524288 linear.
  CHECK(choose(Collective::Reduce, 6, 100).algorithm == Algorithm::BinaryTree);
  auto rc = choose(Collective::Reduce, 6, 10000);
  CHECK(rc.algorithm == Algorithm::Chain);
  CHECK(rc.variant.reduce_chains == 2);
  CHECK(choose(Collective::Reduce, 6, 100000).algorithm == Algorithm::BinomialTree);
  CHECK(choose(Collective::Reduce, 6, 300000).algorithm == Algorithm::Linear);
  // 256 to 511 ranks: 8192 to 16383 B in-order binary (6); fewer than 4 ranks, < 8 B: Rabenseifner (7).
  CHECK(choose(Collective::Reduce, 300, 10000).algorithm == Algorithm::InOrderBinaryTree);
  CHECK(choose(Collective::Reduce, 2, 4).algorithm == Algorithm::Rabenseifner);
}

TEST_CASE("mpi openmpi: allgather, reduce_scatter, alltoall(v), gather, scatter and barrier") {
  CHECK(choose(Collective::Allgather, 2, 1 << 20).algorithm == Algorithm::Ring);  // two_proc
  CHECK(choose(Collective::Allgather, 16, 1 << 20).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Allgather, 24, 1 << 20).algorithm == Algorithm::Bruck);  // not a power of two
  CHECK(choose(Collective::Allgather, 40, 4096).algorithm == Algorithm::NeighborExchange);
  CHECK(choose(Collective::Allgather, 40, 65536).algorithm == Algorithm::Ring);
  CHECK(choose(Collective::ReduceScatter, 6, 4).algorithm == Algorithm::NonOverlapping);
  CHECK(choose(Collective::ReduceScatter, 6, 1000).algorithm == Algorithm::RecursiveHalving);
  CHECK(choose(Collective::ReduceScatter, 6, 1 << 20).algorithm == Algorithm::Ring);
  CHECK(choose(Collective::ReduceScatter, 40, 4096).algorithm == Algorithm::Butterfly);
  CHECK(choose(Collective::Alltoall, 2, 100).algorithm == Algorithm::Pairwise);   // two_proc
  CHECK(choose(Collective::Alltoall, 40, 100).algorithm == Algorithm::Bruck);     // modified Bruck
  CHECK(choose(Collective::Alltoall, 40, 4096).algorithm == Algorithm::Linear);   // basic linear
  CHECK(choose(Collective::Alltoall, 40, 1 << 20).algorithm == Algorithm::Linear);  // linear_sync, no limit
  CHECK(choose(Collective::Alltoall, 100, 1 << 20).algorithm == Algorithm::Pairwise);
  std::string why;
  std::string released;
  int64_t released_at = -1;
  CHECK(openmpi_alltoallv_choice(3, nullptr, make_layout(3, 1, 1, Mapping{}), why, released, released_at) ==
        Algorithm::Pairwise);
  CHECK(openmpi_alltoallv_choice(100, nullptr, make_layout(100, 1, 1, Mapping{}), why, released, released_at) ==
        Algorithm::Pairwise);
  CHECK(openmpi_alltoallv_choice(200, nullptr, make_layout(200, 1, 1, Mapping{}), why, released, released_at) ==
        Algorithm::Linear);
  CHECK(released.empty());
  CHECK(choose(Collective::Gather, 6, 100).algorithm == Algorithm::BinomialTree);
  CHECK(choose(Collective::Gather, 6, 4096).algorithm == Algorithm::Linear);
  CHECK(choose(Collective::Gather, 6, 1 << 20).algorithm == Algorithm::LinearSync);
  CHECK(choose(Collective::Scatter, 10, 100000).algorithm == Algorithm::Linear);  // linear_nb
  CHECK(choose(Collective::Scatter, 100, 100).algorithm == Algorithm::BinomialTree);
  CHECK(choose(Collective::Barrier, 2, 0).algorithm == Algorithm::RecursiveDoubling);
  CHECK(choose(Collective::Barrier, 6, 0).algorithm == Algorithm::Linear);
  CHECK(choose(Collective::Barrier, 100, 0).algorithm == Algorithm::Dissemination);  // bruck
  CHECK(choose(Collective::Barrier, 300, 0).algorithm == Algorithm::BinomialTree);   // tree
}

TEST_CASE("mpi openmpi: a rules file, its first matching rules, and its errors with their places") {
  const std::string text = R"({
  "rule_file_version": 3, "module": "tuned",
  "collectives": {
    "allreduce": [
      { "comm_size_min": 8, "comm_size_max": 64,
        "rules": [ { "msg_size_max": 4096, "alg": "recursive_doubling" }, { "msg_size_min": 4097, "alg": 4 } ] },
      { "comm_size_min": 8, "rules": [ { "alg": "rabenseifner" } ] } ],
    "bcast": [ { "comm_rank_distribution": "single-node", "rules": [ { "alg": "chain", "faninout": 3 } ] } ] } })";
  std::string error;
  uint32_t at = 0;
  auto rules = parse_openmpi_rules(text, error, at);
  REQUIRE(rules);
  Layout sixteen = make_layout(16, 4, 4, Mapping{});
  // Open MPI takes the first communicator rule that holds, then only its message rules (bounds inclusive).
  REQUIRE(find_openmpi_rule(*rules, "allreduce", sixteen, 4096));
  CHECK(find_openmpi_rule(*rules, "allreduce", sixteen, 4096)->alg == 3);
  CHECK(find_openmpi_rule(*rules, "allreduce", sixteen, 4097)->alg == 4);
  CHECK(find_openmpi_rule(*rules, "allreduce", make_layout(100, 4, 4, Mapping{}), 1)->alg == 6);
  CHECK(!find_openmpi_rule(*rules, "allreduce", make_layout(4, 4, 4, Mapping{}), 1));
  CHECK(!find_openmpi_rule(*rules, "bcast", sixteen, 1));                  // four nodes: not single-node
  CHECK(find_openmpi_rule(*rules, "bcast", make_layout(4, 4, 4, Mapping{}), 1)->faninout == 3);
  auto chosen = openmpi_choice(kOpenmpi, Collective::Allreduce, sixteen, 1 << 20, &*rules);
  CHECK(chosen.algorithm == Algorithm::Ring);
  CHECK(chosen.rule_at > 0);
  CHECK(text.substr(size_t(chosen.rule_at), 16) == R"({ "msg_size_min")");
  // Errors: where the JSON stops, or the value that is wrong.
  CHECK(!parse_openmpi_rules(R"({ "module": )", error, at));
  CHECK(error.find("not JSON") == 0);
  const std::string bad = R"({ "rule_file_version": 3, "module": "tuned", "collectives": { "gather": [ { "rules": [ { "alg": 9 } ] } ] } })";
  CHECK(!parse_openmpi_rules(bad, error, at));
  CHECK(error.find("/collectives/gather/0/rules/0/alg") == 0);
  CHECK(bad.substr(at, 1) == "9");
  CHECK(!parse_openmpi_rules(R"({ "rule_file_version": 3, "module": "han", "collectives": {} })", error, at));
  CHECK(error.find("/module") == 0);
}

TEST_CASE("mpi openmpi: a rule's seg_size segments the pipeline, chains and trees, the split tree included") {
  const std::string text = R"({ "rule_file_version": 3, "module": "tuned", "collectives": {
    "bcast": [ { "rules": [ { "msg_size_max": 1000, "alg": "pipeline" }, { "msg_size_max": 100000, "alg": 3, "seg_size": 8192 },
                            { "msg_size_max": 2000000, "alg": "chain", "faninout": 2, "seg_size": 8192 },
                            { "alg": "split_binary_tree", "seg_size": 8192 } ] } ],
    "reduce": [ { "rules": [ { "alg": "pipeline", "seg_size": 4096 } ] } ],
    "allreduce": [ { "comm_size_max": 16, "rules": [ { "alg": "nonoverlapping" } ] },
                   { "rules": [ { "alg": "segmented_ring", "seg_size": 65536 } ] } ] } })";
  std::string error;
  uint32_t at = 0;
  auto rules = parse_openmpi_rules(text, error, at);
  REQUIRE(rules);
  Layout l = make_layout(16, 4, 4, Mapping{});
  // No seg_size: one chain carrying the whole message, as before.
  auto whole = openmpi_choice(kOpenmpi, Collective::Bcast, l, 512, &*rules);
  CHECK(whole.algorithm == Algorithm::Chain);
  CHECK(whole.segment == 0);
  // seg_size: the pipeline (a chain of the ranks in order) with the rule's segment size, in bytes as the rule gives
  // it (the lowering counts it in whole elements).
  auto piped = openmpi_choice(kOpenmpi, Collective::Bcast, l, 65536, &*rules);
  CHECK(piped.algorithm == Algorithm::Pipeline);
  CHECK(piped.segment == 8192);
  CHECK(piped.unmodelled.empty());
  auto reduce = openmpi_choice(kOpenmpi, Collective::Reduce, l, 65536, &*rules);
  CHECK(reduce.algorithm == Algorithm::Pipeline);
  CHECK(reduce.segment == 4096);
  // Two chains in segments: the chains, segmented.
  auto chains = openmpi_choice(kOpenmpi, Collective::Bcast, l, 1 << 20, &*rules);
  CHECK(chains.algorithm == Algorithm::Chain);
  CHECK(chains.variant.bcast_chains == 2);
  CHECK(chains.variant.segmented);
  CHECK(chains.segment == 8192);
  CHECK(chains.unmodelled.empty());
  // The split binary tree in segments: each half down its subtree in segments (whole elements rounded down), then
  // the halves swapped; a seg_size over half the message runs the chain of 1 in segments instead.
  auto split = openmpi_choice(kOpenmpi, Collective::Bcast, l, 4 << 20, &*rules);
  CHECK(split.unmodelled.empty());
  CHECK(split.algorithm == Algorithm::SplitBinaryTree);
  CHECK(split.variant.segmented);
  CHECK(split.segment_floor);
  CHECK(split.segment == 8192);
  auto rounds = collective_rounds(l, Collective::Bcast, Algorithm::SplitBinaryTree, true, 1, NodeAware{}, split.variant);
  REQUIRE(rounds.size() == 2);
  CHECK(rounds[0].size_factor == 0.5);
  CHECK(rounds[0].pipeline_hops == 4);       // 0 -> 1 -> 3 -> 7 -> 15
  CHECK(rounds[0].messages.size() == 15);    // every edge of the tree
  CHECK(rounds[1].messages.size() == 15);    // 7 pairs swap, the root sends rank 15 the second half
  auto split_only = parse_openmpi_rules(
      R"({ "rule_file_version": 3, "module": "tuned", "collectives": { "bcast": [ { "rules": [ { "alg": 4, "seg_size": 8192 } ] } ] } })",
      error, at);
  REQUIRE(split_only);
  auto small = openmpi_choice(kOpenmpi, Collective::Bcast, l, 12000, &*split_only);
  CHECK(small.algorithm == Algorithm::Chain);
  CHECK(small.variant.bcast_chains == 1);
  CHECK(small.variant.segmented);
  // A non-overlapping composition whose reduce and bcast run in segments of two sizes (4096 and 8192 B) is not
  // modelled (one segment size for the operation); with the bcast whole (512 B: a chain of one), the reduce's
  // pipeline takes the operation's segment.
  auto composed = openmpi_choice(kOpenmpi, Collective::Allreduce, l, 65536, &*rules);
  CHECK(composed.algorithm == Algorithm::NonOverlapping);
  CHECK(composed.unmodelled.find("one segment size for both") != std::string::npos);
  auto small_composed = openmpi_choice(kOpenmpi, Collective::Allreduce, l, 512, &*rules);
  CHECK(small_composed.algorithm == Algorithm::NonOverlapping);
  CHECK(small_composed.unmodelled.empty());
  CHECK(small_composed.segment == 4096);
  CHECK(small_composed.variant.reduce_part == Algorithm::Pipeline);
  CHECK(small_composed.variant.bcast_part == Algorithm::Chain);
  CHECK(!small_composed.variant.segmented);
  // The segmented ring all-reduce: the ring with the rule's seg_size (the lowering counts its phases).
  auto ring = openmpi_choice(kOpenmpi, Collective::Allreduce, make_layout(32, 4, 4, Mapping{}), 1 << 22, &*rules);
  CHECK(ring.algorithm == Algorithm::Ring);
  CHECK(ring.segment == 65536);
  CHECK(ring.unmodelled.empty());
}

TEST_CASE("mpi openmpi: a classic rules file, read as Open MPI main reads it, and where Open MPI 5.0 reads it otherwise") {
  // Open MPI's classic format (coll_tuned_dynamic_file.c): collectives; id, communicator sizes; size, message sizes;
  // message size, algorithm, fan-in/out, segment size (and, from version 2, a request limit on the same line).
  const std::string text = "rule-file-version-2\n"
                           "# comment\n"
                           "2\n"
                           "2 3      # allreduce, three communicator sizes\n"
                           "4 1 0 3 0 0\n"
                           "16 2 0 3 0 0 # rd\n"
                           "   65536 4 0 0 8\n"
                           "64 1 0 6 0 0\n"
                           "3 1 0 1 0 1 0 0 7 # alltoall: every size, linear, 7 requests\n";
  std::string error;
  uint32_t at = 0;
  auto rules = parse_openmpi_rules(text, error, at);
  REQUIRE_MESSAGE(rules, error);
  CHECK(rules->classic);
  const auto& allreduce = rules->collectives.at("allreduce");
  REQUIRE(allreduce.size() == 3);
  // Open MPI main: size c_k ends rule k (c_k - 1), the next starts after it, the last has no end.
  CHECK(allreduce[0].min == 0);
  CHECK(allreduce[0].max == 3);
  CHECK(allreduce[1].min == 4);
  CHECK(allreduce[1].max == 15);
  CHECK(allreduce[2].min == 16);
  CHECK(allreduce[2].max == kRuleInf);
  REQUIRE(allreduce[1].rules.size() == 2);
  CHECK(allreduce[1].rules[0].max == 65535);
  CHECK(allreduce[1].rules[1].min == 65536);
  CHECK(allreduce[1].rules[1].reqs == 8);  // version 2: the fifth number on the rule's line
  CHECK(text.substr(allreduce[1].rules[1].at, 5) == "65536");
  // The alltoall's 7 after its rule's segment size is on the same line: its request limit.
  CHECK(rules->collectives.at("alltoall")[0].rules[0].reqs == 7);
  // 8 ranks: main takes rule 1 (4-15 ranks, declared 16): from 64 KiB the ring; 5.0 the last size at most 8, the one
  // declared 4: recursive doubling.
  const Layout eight = make_layout(8, 8, 8, Mapping{});
  REQUIRE(find_openmpi_rule(*rules, "allreduce", eight, 100000));
  CHECK(find_openmpi_rule(*rules, "allreduce", eight, 100000)->alg == 4);
  REQUIRE(find_openmpi_rule_released(*rules, "allreduce", eight, 100000));
  CHECK(find_openmpi_rule_released(*rules, "allreduce", eight, 100000)->alg == 3);
  auto chosen = openmpi_choice(kOpenmpi, Collective::Allreduce, eight, 100000, &*rules);
  CHECK(chosen.algorithm == Algorithm::Ring);
  CHECK(chosen.released.find("algorithm 3 (recursive_doubling)") != std::string::npos);
  CHECK(text.substr(size_t(chosen.released_rule_at), 5) == "0 3 0");
  // 2 ranks: both the first rule (5.0: every size is larger, so the first).
  CHECK(openmpi_choice(kOpenmpi, Collective::Allreduce, make_layout(2, 2, 2, Mapping{}), 100000, &*rules)
            .released.empty());
  // 100 ranks: both the last.
  CHECK(find_openmpi_rule_released(*rules, "allreduce", make_layout(100, 8, 8, Mapping{}), 1)->alg == 6);
  CHECK(openmpi_choice(kOpenmpi, Collective::Allreduce, make_layout(100, 8, 8, Mapping{}), 1, &*rules)
            .released.empty());
  // Version 1 reads no request limit: a fifth number is the next rule's.
  auto v1 = parse_openmpi_rules("1 3 1 0 1 0 1 0 0 5\n", error, at);
  CHECK(!v1);
  CHECK(error.find("end before this") != std::string::npos);
  CHECK(at == 18);

  // Errors, each at its place.
  auto fails = [&](const std::string& file, const std::string& says, const std::string& place) {
    CAPTURE(file);
    CHECK(!parse_openmpi_rules(file, error, at));
    CHECK_MESSAGE(error.find(says) != std::string::npos, error);
    CHECK(file.substr(at, place.size()) == place);
  };
  fails("1 2 1 0 1 allreduce 3 0 0\n", "`allreduce` is not a number", "allreduce");
  fails("# rules\nrule-file-version-2\n1 2 1 0 1 0 3 0 0\n", "only at the file's first byte", "rule-file");
  fails("1 22 1 0 1 0 1 0 0\n", "Open MPI numbers its collectives 0 (allgather) to 21", "22");
  fails("1 2 1 0 1 16 3 0 0\n", "starts at 16 B", "16");
  fails("1 2 2 8 1 0 3 0 0 8 1 0 3 0 0\n", "not above the one before (8)", "8 1 0 3 0 0\n");
  fails("1 2 1 0 2 0 3 0 0 0 4 0 0\n", "not above the one before (0)", "0 4");
  fails("1 2 1 0 1 0 8 0 0\n", "allreduce's algorithms are numbered 0 to 7", "8");
  fails("2 2 1 0 1 0 3 0 0 2 1 0 1 0 3 0 0\n", "allreduce (2) has rules earlier", "2 1 0 1 0 3 0 0\n");
  fails("1 2 1 0 1 0 3 0\n", "the file ends where Open MPI reads the segment size", "");
  fails("1 2 1 0 1 0 -3 0 0\n", "is -3", "-3");
  fails("", "the file ends where Open MPI reads the number of collectives", "");
}

TEST_CASE("mpi openmpi: a request limit on the linear_sync all-to-all sends in batches on the fabric") {
  std::string error;
  uint32_t at = 0;
  auto rules = parse_openmpi_rules(
      R"({ "rule_file_version": 3, "module": "tuned", "collectives": { "alltoall": [ { "rules": [ { "alg": 4, "reqs": 3 } ] } ] } })",
      error, at);
  REQUIRE_MESSAGE(rules, error);
  const Layout eight = make_layout(8, 8, 8, Mapping{});
  auto chosen = openmpi_choice(kOpenmpi, Collective::Alltoall, eight, 1024, &*rules);
  CHECK(chosen.unmodelled.empty());
  CHECK(chosen.algorithm == Algorithm::Linear);
  CHECK(chosen.variant.requests == 3);
  // ompi_coll_base_alltoall_intra_linear_sync: 3 sends in flight, to r - 1, r - 2, ...: shifts 1-3, 4-6, 7.
  auto rounds = collective_rounds(eight, Collective::Alltoall, Algorithm::Linear, true, 1, NodeAware{}, chosen.variant);
  REQUIRE(rounds.size() == 3);
  CHECK(rounds[0].messages.size() == 24);
  CHECK(rounds[2].messages.size() == 8);
  CHECK(rounds[2].messages[0] == std::pair<int32_t, int32_t>{0, 1});  // rank 0's shift 7: to 0 - 7 mod 8
  CHECK(rounds[0].steps_each == 3);
  // Over 4 ranks the limit covers all 3 messages: every message at once.
  auto four = openmpi_choice(kOpenmpi, Collective::Alltoall, make_layout(4, 4, 4, Mapping{}), 1024, &*rules);
  CHECK(four.variant.requests == 0);
  CHECK(collective_rounds(make_layout(4, 4, 4, Mapping{}), Collective::Alltoall, Algorithm::Linear, true, 1,
                          NodeAware{}, four.variant)
            .size() == 1);
}

TEST_CASE("mpi openmpi: rules naming the algorithms the fixed decisions never choose") {
  const std::string text = R"({ "rule_file_version": 3, "module": "tuned", "collectives": {
    "allgather": [ { "comm_size_max": 8, "rules": [ { "alg": "linear" } ] },
                   { "comm_size_max": 16, "rules": [ { "msg_size_max": 32768, "alg": "sparbit" }, { "alg": 8 } ] } ],
    "allreduce": [ { "rules": [ { "alg": "allgather_reduce" } ] } ],
    "reduce": [ { "rules": [ { "msg_size_max": 4096, "alg": "knomial", "faninout": 3 }, { "alg": 8 } ] } ],
    "barrier": [ { "rules": [ { "alg": "double_ring" } ] } ] } })";
  std::string error;
  uint32_t at = 0;
  auto rules = parse_openmpi_rules(text, error, at);
  REQUIRE(rules);
  const Layout eight = make_layout(8, 4, 4, Mapping{}), sixteen = make_layout(16, 4, 4, Mapping{});
  // The allgather's linear: the gather by its own table for the block, the bcast by its table for the p blocks
  // (8 ranks: gather binomial below 1 KiB; bcast of 8 KiB: binary tree).
  auto linear = openmpi_choice(kOpenmpi, Collective::Allgather, eight, 1000, &*rules);
  CHECK(linear.algorithm == Algorithm::Linear);
  CHECK(linear.variant.gather_part == Algorithm::BinomialTree);
  CHECK(linear.variant.bcast_part == Algorithm::BinaryTree);
  CHECK(linear.unmodelled.empty());
  CHECK(openmpi_choice(kOpenmpi, Collective::Allgather, sixteen, 1024, &*rules).algorithm == Algorithm::Sparbit);
  CHECK(openmpi_choice(kOpenmpi, Collective::Allgather, sixteen, 4096, &*rules).algorithm ==
        Algorithm::DirectMessaging);
  // allgather_reduce: the allgather the same file gives for the whole buffer as each rank's block.
  auto ar = openmpi_choice(kOpenmpi, Collective::Allreduce, sixteen, 1024, &*rules);
  CHECK(ar.algorithm == Algorithm::AllgatherReduce);
  CHECK(ar.variant.allgather_part == Algorithm::Sparbit);
  auto nested = openmpi_choice(kOpenmpi, Collective::Allreduce, eight, 1000, &*rules);
  CHECK(nested.variant.allgather_part == Algorithm::Linear);
  CHECK(nested.variant.bcast_part == Algorithm::BinaryTree);
  // The k-nomial reduce: the rule's fan-out is its radix; below 2 Open MPI's tree builder never ends.
  auto knomial = openmpi_choice(kOpenmpi, Collective::Reduce, sixteen, 1024, &*rules);
  CHECK(knomial.algorithm == Algorithm::Knomial);
  CHECK(knomial.variant.radix == 3);
  CHECK(knomial.unmodelled.empty());
  CHECK(openmpi_choice(kOpenmpi, Collective::Reduce, sixteen, 1 << 20, &*rules).unmodelled.find("faninout 0") !=
        std::string::npos);
  CHECK(openmpi_choice(kOpenmpi, Collective::Barrier, sixteen, 0, &*rules).algorithm == Algorithm::DoubleRing);
}
