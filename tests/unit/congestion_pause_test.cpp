// congestion_pause_test.cpp: max-min flows with a rate cap (FlowSpec::cap_input) and flows that pause while a queue
// has a flow moving (FlowSpec::paused_by), as pageable copies beside pinned ones are priced, and copies that take their
// turn after the one enqueued before them with a gap (FlowSpec::turn_after), as an offload's are, in both event loops.
#include <doctest/doctest.h>

#include <cmath>

#include "engines/congestion/engine.h"
#include "test_support.h"

using namespace gpm;
using namespace gpm::engines::congestion;

namespace {

using test::approx;
using test::Net;

// Host memory and a GPU joined by one link (10 GB/s each way).
struct HostGpu {
  Net net;
  int host = net.add("memory", "host_mem"), gpu = net.add("gpu", "g[0]");
  HostGpu() { net.link(host, gpu); }
};

std::shared_ptr<CongestionEngine> build(const ir::Topology& t, std::vector<FlowSpec> flows) {
  BuildError error;
  auto e = CongestionEngine::build(t, FabricMap{{-1}}, std::move(flows), false, error);
  INFO(error.message);
  REQUIRE(e);
  return e;
}

// The schedule from the incremental loop, checked equal (to 1e-12) to the loop that solves every flow each event.
CongestionEngine::Schedule both_loops(CongestionEngine& e, const std::vector<double>& in) {
  e.set_incremental(true);
  auto fast = e.simulate(in, e.written_rank());
  e.set_incremental(false);
  auto full = e.simulate(in, e.written_rank());
  e.set_incremental(true);
  REQUIRE(fast.error.empty());
  REQUIRE(full.error.empty());
  for (size_t f = 0; f < fast.end.size(); ++f) {
    CHECK(fast.end[f] == doctest::Approx(full.end[f]).epsilon(1e-12));
    CHECK(fast.start[f] == doctest::Approx(full.start[f]).epsilon(1e-12));
  }
  return fast;
}

}  // namespace

TEST_CASE("congestion: a capped flow moves at its cap and leaves the rest of the link to the others") {
  HostGpu n;
  FlowSpec capped{"x", n.host, n.gpu};
  capped.cap_input = 0;
  auto e = build(n.net.t, {capped, {"y", n.host, n.gpu}});
  REQUIRE(e->cap_input_count() == 1);
  REQUIRE(e->input_count() == 4);
  // 10 GB/s link; 10 GB each; x at most 2 GB/s: y gets 8 GB/s and ends at 1.25 s, x at 5 s.
  auto s = both_loops(*e, {10e9, 10e9, 10e9, 2e9});
  CHECK(s.end[0] == approx(5.0));
  CHECK(s.end[1] == approx(1.25));
  // A cap above the fair share changes nothing: both at 5 GB/s, 2 s.
  auto wide = both_loops(*e, {10e9, 10e9, 10e9, 7e9});
  CHECK(wide.end[0] == approx(2.0));
  CHECK(wide.end[1] == approx(2.0));
}

TEST_CASE("congestion: a cap of zero or none is an error, not a stalled flow") {
  HostGpu n;
  FlowSpec capped{"x", n.host, n.gpu};
  capped.cap_input = 0;
  auto e = build(n.net.t, {capped});
  auto s = e->simulate(std::vector<double>{10e9, 1e9, 0.0}, e->written_rank());
  CHECK(s.error.find("rate cap") != std::string::npos);
  CHECK(std::isnan(e->time(std::vector<double>{10e9, 1e9, NAN})));
}

TEST_CASE("congestion: a flow paused by a queue stops while that queue moves a flow and goes on after") {
  // A pageable copy (capped at 2 GB/s, its own queue 1, paused by copy-engine queue 0) from 0 s; a pinned copy on
  // queue 0 from 1 s: the pageable one moves 2 GB by 1 s, waits while the pinned one moves its 10 GB at the whole
  // 10 GB/s (1 s .. 2 s), then moves its last 8 GB: 2 s .. 6 s.
  HostGpu n;
  FlowSpec pageable{"pageable", n.host, n.gpu};
  pageable.cap_input = 0;
  pageable.queue = 1;
  pageable.paused_by = 0;
  FlowSpec pinned{"pinned", n.host, n.gpu};
  pinned.queue = 0;
  pinned.has_start = true;
  auto e = build(n.net.t, {pageable, pinned});
  // Inputs: link, sizes (2), start (pinned), cap.
  auto s = both_loops(*e, {10e9, 10e9, 10e9, 1.0, 2e9});
  CHECK(s.start[0] == 0.0);
  CHECK(s.end[0] == approx(6.0));
  CHECK(s.start[1] == approx(1.0));
  CHECK(s.end[1] == approx(2.0));
  // The pinned one first (at 0 s): the pageable one waits from its start, then takes its 5 s: 1 s .. 6 s.
  auto first = both_loops(*e, {10e9, 10e9, 10e9, 0.0, 2e9});
  CHECK(first.end[1] == approx(1.0));
  CHECK(first.start[0] == approx(1.0));
  CHECK(first.end[0] == approx(6.0));
}

TEST_CASE("congestion: the flows of one queue paused by another take turns, each paused in its turn") {
  // Two pageable copies in one staging queue (1), paused by copy-engine queue 0, and a pinned copy on queue 0 from
  // 2 s: the first pageable copy 0 .. 2 s (4 GB), paused 2 .. 3 s, then 3 .. 6 s; the second 6 .. 11 s.
  HostGpu n;
  FlowSpec a{"a", n.host, n.gpu}, b{"b", n.host, n.gpu}, pinned{"pinned", n.host, n.gpu};
  a.cap_input = b.cap_input = 0;
  a.queue = b.queue = 1;
  a.paused_by = b.paused_by = 0;
  pinned.queue = 0;
  pinned.has_start = true;
  auto e = build(n.net.t, {a, b, pinned});
  auto s = both_loops(*e, {10e9, 10e9, 10e9, 10e9, 2.0, 2e9});
  CHECK(s.end[0] == approx(6.0));
  CHECK(s.start[1] == approx(6.0));
  CHECK(s.end[1] == approx(11.0));
  CHECK(s.end[2] == approx(3.0));
}

TEST_CASE("congestion: a copy takes its turn after the copy enqueued before it, plus the gap, whatever its own wait") {
  // Two uploads over one 10 GB/s link, the second enqueued after the first (FlowSpec::turn_after) with a gap of
  // 0.25 s: x moves 10 GB from its start delay 0.5 s to 1.5 s; y, its own start delay 0.5 s (issued at 0.5 s), takes its
  // turn at 1.5 + 0.25 s and ends at 2.75 s. With a start delay of 2 s, that wait is the later one: 2 s to 3 s.
  HostGpu n;
  FlowSpec x{"x", n.host, n.gpu}, y{"y", n.host, n.gpu};
  x.has_start = y.has_start = true;
  y.turn_after = 0;
  y.turn_gap_input = 0;
  auto e = build(n.net.t, {x, y});
  REQUIRE(e->turn_gap_input_count() == 1);
  REQUIRE(e->input_count() == 6);  // bandwidth, two sizes, two starts, one gap
  auto s = both_loops(*e, {10e9, 10e9, 10e9, 0.5, 0.5, 0.25});
  CHECK(s.end[0] == approx(1.5));
  CHECK(s.start[1] == approx(1.75));
  CHECK(s.end[1] == approx(2.75));
  auto late = both_loops(*e, {10e9, 10e9, 10e9, 0.5, 2.0, 0.25});
  CHECK(late.start[1] == approx(2.0));
  CHECK(late.end[1] == approx(3.0));
  // A gap that is negative is an input error.
  CHECK(e->simulate(std::vector<double>{10e9, 1e9, 1e9, 0, 0, -1}, e->written_rank()).error.find("gap") !=
        std::string::npos);
  // A turn after a later flow, or without a gap, is refused when the engine is built.
  BuildError error;
  FlowSpec bad = x;
  bad.turn_after = 0;
  CHECK(!CongestionEngine::build(n.net.t, FabricMap{{-1}}, {x, bad}, false, error));
  CHECK(error.message.find("gap") != std::string::npos);
}
