// p2p.h: point-to-point message times of the node-aware MPI models (postal, max-rate, K-model) and transports.
//
// Source: Choi et al., end-to-end model of distributed GPU applications (the E2E paper), section 2.1 eq. 1-3,
// section 3.1 eq. 4-5, section 3.2 (intra-socket, inter-socket and inter-node parameters); Khetawat et al.,
// GPUDirect versus host-staged MPI (the GPUDirect paper), Table I (copy latency and per byte, pinning delay,
// rendezvous only).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>

namespace gpm::mpi {

enum class Locality : uint8_t { IntraSocket = 0, InterSocket = 1, InterNode = 2 };
enum class Protocol : uint8_t { Short = 0, Eager = 1, Rendezvous = 2 };
// Fabric: every message a flow on the machine's links (fabric_engine.h), no fits.
enum class CommModel : uint8_t { Postal = 0, MaxRate = 1, KModel = 2, Fabric = 3, Nccl = 4 };
// Where the message buffers live: already on the host (the app copies them), on the GPU and staged through the
// host by MPI, or on the GPU and sent by GPUDirect RDMA.
enum class Transport : uint8_t { Host = 0, Staged = 1, GpuDirect = 2 };
// The max-rate fit of a class and protocol: absent (the paper's "N/A, apply postal model"), the two-parameter
// short form (eq. 3) or the three-parameter form (eq. 2).
enum class MaxRateForm : uint8_t { None = 0, Short = 1, Full = 2 };

constexpr int kClasses = 3;
constexpr int kProtocols = 3;
// Routes of a message: its locality class, and for inter-node messages whether it leaves its leaf switch (route 3,
// only on machines with a fat tree).
constexpr int kRoutes = kClasses + 1;
constexpr int kOffLeaf = kClasses;

const char* locality_name(Locality l);
const char* protocol_name(Protocol p);
const char* comm_model_name(CommModel m);
const char* transport_name(Transport t);

// E2E eq. 1: the postal model.
inline double postal_time(double alpha, double beta, double n) { return alpha + beta * n; }
// E2E eq. 2: the max-rate model, k processes of a node using the network at once.
inline double maxrate_time(double alpha, double rcb, double rci, double k, double n) {
  return alpha + k * n / (rcb + (k - 1) * rci);
}
// E2E eq. 3: the two-parameter max-rate model of the short protocol.
inline double maxrate_short_time(double alpha, double beta, double k, double n) { return alpha + k * n * beta; }
// E2E eq. 4: the K-model's k from the pattern's inter-node and total message counts (maximum over nodes).
inline double kmodel_k(double k_inter, double k_total, double k_prime) {
  return k_total > 0 ? k_inter / k_total * k_prime : 0;
}

// The static part of a machine's MPI description: which fits exist and in which form. The values themselves
// (thresholds, alphas, betas, rates) are engine inputs, at the fixed offsets below.
struct FitTable {
  std::array<bool, kClasses * kProtocols> postal{};
  std::array<MaxRateForm, kClasses * kProtocols> maxrate{};
  static int index(Locality l, Protocol p) { return int(l) * kProtocols + int(p); }
};

// Offsets of the machine's values in an engine's input vector.
namespace in {
constexpr int kShortMax = 0;     // largest message of the short protocol (B)
constexpr int kEagerMax = 1;     // largest message of the eager protocol (B)
constexpr int kCopyLatency = 2;  // host-staged: latency of each device-host copy (s)
constexpr int kCopyPerByte = 3;  // host-staged: time per byte of each copy (s/B)
constexpr int kPinDelay = 4;     // GPUDirect: pinning delay per message (s)
constexpr int kLinkBw = 5;       // fat tree: bandwidth of a node's link to its leaf switch (B/s)
constexpr int kTaper = 6;        // fat tree: a leaf's down-link to up-link capacity ratio
constexpr int kSwitchLatency = 7;  // fat tree: latency of one switch traversal (s)
constexpr int kStagingChunk = 8;  // host-staged: bytes of each piece a message is staged in (0: the whole message)
constexpr int kFits = 9;         // then, per class and protocol: postal alpha, beta; max-rate alpha, x, y
constexpr int kPerFit = 5;
constexpr int kMachineInputs = kFits + kClasses * kProtocols * kPerFit;
inline int fit(Locality l, Protocol p) { return kFits + FitTable::index(l, p) * kPerFit; }
}  // namespace in

// The static shape of the machine's network, when it has one: a fat tree of leaf switches with nodes_per_leaf
// nodes each and `levels` levels of switches (GPUDirect paper section IV-a: 45 leaves of 18 nodes, 3 levels).
struct FatTree {
  bool present = false;
  int64_t nodes_per_leaf = 1;
  int levels = 3;
  // Switches a message between leaves crosses beyond its leaf switch: up to the top level and down again.
  int extra_switches() const { return 2 * (levels - 1); }
};

// The static choices of one communication operation.
struct Choice {
  CommModel model = CommModel::KModel;
  Transport transport = Transport::Host;
  FitTable fits;
  FatTree tree;
};

// One message's time and how it was obtained. With `chunks` = 1, time_s = before_s + network_s + after_s: the
// message alone. A host-staged message with a staging chunk smaller than it goes as `chunks` equal pieces, each
// copied, sent and copied back as a message of its own (before_s, network_s, after_s are one piece's), the pieces
// pipelined through the three stages: time_s = before_s + network_s + after_s + (chunks - 1) x the slowest of them.
struct MessageTime {
  double time_s = NAN;
  double network_s = NAN;  // the message on the network under the chosen model (E2E eq. 1-5)
  double before_s = 0;     // at the sender first: the device-to-host copy (staged) or the pinning delay (GPUDirect)
  double after_s = 0;      // at the receiver last: the host-to-device copy (staged)
  double chunks = 1;       // pieces the message is staged in (host-staged with a staging chunk), each as above
  Protocol protocol = Protocol::Short;
  bool fell_back_to_postal = false;  // max-rate asked, but the machine has no max-rate fit for this case
  std::string error;                 // non-empty: no fit for this class and protocol
};

// The time of one message of n bytes of class `l` when `k` processes of its node (or socket) send such messages
// at once (k matters to max-rate and K-model only; the caller passes the K-model's k for inter-node messages).
// `k_leaf` > 0: an inter-node message that leaves its leaf switch while k_leaf ranks of the leaf do so; it crosses
// the tree's upper switches and, under max-rate and the K-model, shares the leaf's up-links (FatTree).
MessageTime message_time(const Choice& c, std::span<const double> inputs, Locality l, double n, double k,
                         double k_leaf = 0);

// A rank's messages of one operation, in order, through three stages: the sender's per-message delay (its copy
// engine or the pinning), the network, the receiver's per-message delay (its copy engine). The GPUDirect paper
// adds the copy delay to each MPI operation's messaging time and otherwise replays the MPI calls as they are
// (section III-c, Table I); with non-blocking point-to-point calls (section II-b) a message's copies then run while
// the rank's other messages are on the network, each stage taking one message at a time. This is the flow-shop
// recurrence C_s(i) = max(C_s(i-1), C_{s-1}(i)) + p_s(i); with no delays it is the plain sum of network times.
class MessagePipeline {
 public:
  // `count` identical messages; O(1) whatever the count (the recurrence's maxima are at the run's ends). A message
  // staged in pieces (MessageTime::chunks) is that many messages of one piece each.
  void add(const MessageTime& m, double count);
  double end_s() const { return receiver_; }

 private:
  double sender_ = 0, network_ = 0, receiver_ = 0;
};

}  // namespace gpm::mpi
