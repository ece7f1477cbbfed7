// ranks_test.cpp: the split of points or orders over MPI ranks (driver/ranks.h) without a launcher, and the search
// split into ranges that it relies on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "driver/ranks.h"

using namespace gpm;

TEST_CASE("ranks: shares cover every item once, in rank order, sizes within one") {
  for (uint64_t first : {uint64_t(0), uint64_t(7), uint64_t(1) << 40}) {
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(10), uint64_t(65536), uint64_t(1679616)}) {
      for (int ranks : {1, 2, 3, 4, 7, 64}) {
        uint64_t at = first, smallest = UINT64_MAX, largest = 0;
        for (int r = 0; r < ranks; ++r) {
          driver::Share s = driver::share_of(first, first + n, r, ranks);
          CHECK(s.begin == at);
          CHECK(s.end >= s.begin);
          smallest = std::min(smallest, s.size());
          largest = std::max(largest, s.size());
          at = s.end;
        }
        CHECK(at == first + n);
        CHECK(largest - smallest <= 1);
      }
    }
  }
  // Counts near 2^64 do not overflow.
  driver::Share last = driver::share_of(0, UINT64_MAX, 2, 3);
  CHECK(last.end == UINT64_MAX);
  CHECK(last.begin == UINT64_MAX / 3 * 2 + (UINT64_MAX % 3) * 2 / 3);
}

TEST_CASE("ranks: without a launcher one process does everything and loads nothing") {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("PMI_SIZE");
  CHECK(driver::launched_ranks() == 1);
  driver::Ranks ranks;
  std::string error;
  REQUIRE(ranks.start(error));
  CHECK(error.empty());
  CHECK(ranks.size() == 1);
  CHECK(ranks.root());
  driver::Share all = ranks.share(5, 17);
  CHECK(all.begin == 5);
  CHECK(all.end == 17);
  std::vector<double> data{1, 2, 3};
  ranks.gather(data.data(), 0, 3, 1);  // nothing to gather: unchanged
  CHECK(data == std::vector<double>{1, 2, 3});
  CHECK(ranks.min(42) == 42);
  CHECK(ranks.all(true));
  CHECK_FALSE(ranks.all(false));
  CHECK(ranks.default_threads() >= 1);
}

TEST_CASE("ranks: a launcher of several ranks without the MPI plugin is refused with the reason") {
  setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  setenv("GPMC_MPI_PLUGIN", "/nonexistent/gpmc_mpi.so", 1);
  CHECK(driver::launched_ranks() == 3);
  driver::Ranks ranks;
  std::string error;
  CHECK_FALSE(ranks.start(error));
  CHECK(error.find("started 3 ranks") != std::string::npos);
  CHECK(error.find("/nonexistent/gpmc_mpi.so") != std::string::npos);
  CHECK(ranks.size() == 1);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("GPMC_MPI_PLUGIN");
  setenv("PMI_SIZE", "1", 1);  // one rank: nothing to split, nothing loaded
  CHECK(driver::launched_ranks() == 1);
  setenv("PMI_SIZE", "x", 1);  // not a count
  CHECK(driver::launched_ranks() == 1);
  unsetenv("PMI_SIZE");
}
