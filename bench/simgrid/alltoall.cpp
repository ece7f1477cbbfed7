// alltoall.cpp: the SimGrid side of bench/simgrid_crosscheck.sh: an all-to-all of BYTES per ordered pair of the
// hosts h0..h(N-1) of a platform file, every transfer started at time 0 (Comm::sendto_init, then start), and each
// transfer's completion time printed as `src,dst,end_s` in the order src-major, dst-minor (the order gpmc's flows
// are written).
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
  // One actor starts every transfer and waits for them all; each transfer's end is the simulated time its network
  // action finished (Activity::get_finish_time), so no actor has to wake at each completion (a wait_any per
  // completion over a source's open transfers made the driver itself quadratic in the hosts).
  std::vector<sg4::Host*> hosts;
  for (int s = 0; s < n; ++s) hosts.push_back(sg4::Host::by_name("h" + std::to_string(s)));
  sg4::Actor::create("starter", hosts[0], [&] {
    std::vector<sg4::CommPtr> comms;
    comms.reserve(size_t(n) * size_t(n - 1));
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        sg4::CommPtr c = sg4::Comm::sendto_init(hosts[size_t(s)], hosts[size_t(d)]);
        c->set_payload_size(bytes);
        c->start();
        comms.push_back(c);
      }
    sg4::Comm::wait_all(comms);
    size_t k = 0;
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d)
        if (s != d) end[size_t(s) * size_t(n) + size_t(d)] = comms[k++]->get_finish_time();
  });
  engine.run();
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) std::printf("%d,%d,%.17g\n", s, d, end[size_t(s) * size_t(n) + size_t(d)]);
  return 0;
}
