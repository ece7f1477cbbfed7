// suggest_test.cpp: unit tests of "did you mean" suggestions.
#include <doctest/doctest.h>

#include "support/suggest.h"

using namespace gpm::support;

TEST_CASE("suggest: the closest name within two edits is proposed") {
  CHECK(closest_name("bandwith", {"latency", "bandwidth", "bytes"}) == "bandwidth");
  CHECK(closest_name("byts", {"bytes", "iters"}) == "bytes");
  CHECK(closest_name("mem_bww", {"mem_bw", "mem_size"}) == "mem_bw");
}

TEST_CASE("suggest: nothing is proposed for distant or very short names") {
  CHECK(closest_name("zzzzzz", {"bytes", "iters"}).empty());
  CHECK(closest_name("ff", {"f", "g"}).empty());  // two letters: one edit is half the name
  CHECK(closest_name("n", {"m"}).empty());
  CHECK(closest_name("", {"a"}).empty());
  CHECK(closest_name("bytes", {"bytes"}).empty());  // the name itself is not a suggestion
}

TEST_CASE("suggest: ties go to the first candidate and did_you_mean formats the hint") {
  CHECK(closest_name("cat", {"cut", "cot"}) == "cut");
  CHECK(did_you_mean("stencli", {"pack", "stencil"}) == "; did you mean `stencil`?");
  CHECK(did_you_mean("qqqqqq", {"pack"}).empty());
}

TEST_CASE("suggest: two adjacent letters swapped are one edit") {
  CHECK(closest_name("rign", {"recursive_doubling", "ring", "rabenseifner", "binomial_tree"}) == "ring");
  CHECK(closest_name("pageabel", {"pinned", "pageable"}) == "pageable");
  // A name much longer than every candidate is not compared letter by letter.
  CHECK(closest_name(std::string(100000, 'r'), {"ring"}).empty());
}
