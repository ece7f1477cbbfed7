// alltoall.cpp: the SimGrid side of bench/simgrid_crosscheck.sh: an all-to-all of BYTES per ordered pair of the
// hosts h0..h(N-1) of a platform file, every transfer started at time 0 (Comm::sendto_async), and each transfer's
// completion time (the time its source's wait_any returns it) printed as `src,dst,end_s` in the order src-major, dst-minor (the order gpmc's flows are written).
// Run with --cfg=network/model:CM02 --cfg=network/crosstraffic:0 for pure max-min sharing.
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml HOSTS BYTES [--cfg=...]\n", argv[0]);
    return 1;
  }
  engine.load_platform(argv[1]);
  int n = std::stoi(argv[2]);
  uint64_t bytes = std::stoull(argv[3]);
  std::vector<double> end(size_t(n) * size_t(n), -1);
  // One actor per source host waits for its transfers one completion at a time (wait_any), so each end time is the
  // simulated time of that completion.
  for (int s = 0; s < n; ++s)
    sg4::Actor::create("src" + std::to_string(s), sg4::Host::by_name("h" + std::to_string(s)), [&, s] {
      std::vector<sg4::CommPtr> comms;
      std::vector<int> dst;
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        comms.push_back(sg4::Comm::sendto_async(sg4::Host::by_name("h" + std::to_string(s)),
                                                sg4::Host::by_name("h" + std::to_string(d)), bytes));
        dst.push_back(d);
      }
      while (!comms.empty()) {
        ssize_t i = sg4::Comm::wait_any(comms);
        end[size_t(s) * size_t(n) + size_t(dst[size_t(i)])] = sg4::Engine::get_clock();
        comms.erase(comms.begin() + i);
        dst.erase(dst.begin() + i);
      }
    });
  engine.run();
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) std::printf("%d,%d,%.17g\n", s, d, end[size_t(s) * size_t(n) + size_t(d)]);
  return 0;
}
