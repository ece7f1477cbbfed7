// alltoall.cpp: the SimGrid side of bench/simgrid_crosscheck.sh: an all-to-all of BYTES per ordered pair of the
// hosts h0..h(N-1) of a platform file, every transfer started at time 0, and each transfer's completion time printed
// as `src,dst,end_s` in the order src-major, dst-minor (the order gpmc's flows are written).
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
  std::vector<sg4::Host*> hosts;
  for (int s = 0; s < n; ++s) hosts.push_back(sg4::Host::by_name("h" + std::to_string(s)));
  // One actor per host posts a send to every other host and a receive from every other host, each pair on a mailbox
  // of its own ("s>d"), so every transfer matches at time 0; the actor then waits for all of its own. Each
  // transfer's end is the simulated time its network action finished (Activity::get_finish_time).
  // SimGrid 3.32 keeps an activity in a std::list of its owner and removes it from there when it finishes, a pass
  // over the whole list: with every transfer owned by one actor (or, from Comm::sendto_init, by the maestro) that
  // is quadratic in the n (n - 1) transfers; with an actor per host, each pass is over its 2 (n - 1).
  static char payload = 0;
  for (int s = 0; s < n; ++s)
    sg4::Actor::create("h" + std::to_string(s), hosts[size_t(s)], [&, s] {
      std::vector<sg4::CommPtr> sends, recvs;
      sends.reserve(size_t(n - 1));
      recvs.reserve(size_t(n - 1));
      void* received = nullptr;
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        sends.push_back(sg4::Mailbox::by_name(std::to_string(s) + ">" + std::to_string(d))->put_async(&payload, bytes));
        recvs.push_back(sg4::Mailbox::by_name(std::to_string(d) + ">" + std::to_string(s))->get_async(&received));
      }
      sg4::Comm::wait_all(sends);
      sg4::Comm::wait_all(recvs);
      size_t k = 0;
      for (int d = 0; d < n; ++d)
        if (s != d) end[size_t(s) * size_t(n) + size_t(d)] = sends[k++]->get_finish_time();
    });
  engine.run();
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) std::printf("%d,%d,%.17g\n", s, d, end[size_t(s) * size_t(n) + size_t(d)]);
  return 0;
}
