// p2p.cpp: one message's time under the postal, max-rate or K-model, with host-staged or GPUDirect transport.
#include "engines/mpi/p2p.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpm::mpi {

const char* locality_name(Locality l) {
  switch (l) {
    case Locality::IntraSocket: return "intra_socket";
    case Locality::InterSocket: return "inter_socket";
    default: return "inter_node";
  }
}

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::Short: return "short";
    case Protocol::Eager: return "eager";
    default: return "rendezvous";
  }
}

const char* comm_model_name(CommModel m) {
  switch (m) {
    case CommModel::Postal: return "postal";
    case CommModel::MaxRate: return "maxrate";
    case CommModel::Fabric: return "fabric";
    case CommModel::Nccl: return "nccl";
    default: return "kmodel";
  }
}

const char* transport_name(Transport t) {
  switch (t) {
    case Transport::Host: return "host";
    case Transport::Staged: return "staged";
    default: return "gpudirect";
  }
}

MessageTime message_time(const Choice& c, std::span<const double> inputs, Locality l, double n, double k,
                         double k_leaf) {
  MessageTime out;
  // A host-staged message larger than the staging chunk moves as ceil(n / chunk) equal pieces (pipelined staging, as
  // MPI libraries stage device buffers: MVAPICH2's MV2_CUDA_BLOCK_SIZE, docs/models.md section 9.1); each piece is
  // priced as a message of its own below.
  const double chunk = inputs[in::kStagingChunk];
  if (c.transport == Transport::Staged && chunk > 0 && n > chunk) {
    out.chunks = std::ceil(n / chunk);
    n /= out.chunks;
  }
  // Protocol by size (E2E section 2.1: separate fits per protocol); GPUDirect uses rendezvous only
  // (GPUDirect paper, Table I).
  Protocol p = n <= inputs[in::kShortMax] ? Protocol::Short
               : n <= inputs[in::kEagerMax] ? Protocol::Eager
                                            : Protocol::Rendezvous;
  if (c.transport == Transport::GpuDirect) p = Protocol::Rendezvous;
  out.protocol = p;
  int f = FitTable::index(l, p);
  const double* v = inputs.data() + in::fit(l, p);
  double t = NAN;
  bool use_maxrate = c.model != CommModel::Postal && c.fits.maxrate[size_t(f)] != MaxRateForm::None;
  if (use_maxrate) {
    if (c.fits.maxrate[size_t(f)] == MaxRateForm::Short) {
      t = maxrate_short_time(v[2], v[3], k, n);
    } else {
      double rate = v[3] + (k - 1) * v[4];
      if (!(rate > 0)) {
        out.error = fmt::format("the max-rate fit of {} {} messages gives no positive rate for k = {:.4g}",
                                locality_name(l), protocol_name(p), k);
        return out;
      }
      t = maxrate_time(v[2], v[3], v[4], k, n);
    }
    if (k_leaf > 0) {
      // The leaf's up-links carry (nodes_per_leaf x link_bw) / taper for all its ranks sending off the leaf at
      // once (GPUDirect paper IV-a: a tapered fat tree); like the NIC in max-rate (E2E eq. 2, after Gropp et al.'s
      // max-rate model), the message's transfer takes the longer of its NIC share and its up-link share.
      double uplink = double(c.tree.nodes_per_leaf) * inputs[in::kLinkBw] / inputs[in::kTaper];
      double nic_transfer = t - v[2];
      t = v[2] + std::max(nic_transfer, k_leaf * n / uplink);
    }
  } else {
    if (!c.fits.postal[size_t(f)]) {
      out.error = fmt::format("the machine's mpi section has no {} fit for {} {} messages",
                              c.model == CommModel::Postal ? "postal" : "postal or max-rate", locality_name(l),
                              protocol_name(p));
      return out;
    }
    out.fell_back_to_postal = c.model != CommModel::Postal;
    t = postal_time(v[0], v[1], n);
  }
  // Between leaves a message crosses the switches above its leaf and back down: 2 (levels - 1) more switch
  // traversals than within a leaf (the inter-node fits are taken as measured within one leaf).
  if (k_leaf > 0) t += c.tree.extra_switches() * inputs[in::kSwitchLatency];
  // GPUDirect paper, Table I and section III-c: a host-staged message adds a device-to-host copy at the sender and a
  // host-to-device copy at the receiver (gpu_copy_delay + bytes x gpu_copy_per_byte each); section III-d: GPUDirect
  // adds the pinning delay (gpudirect_delay) before the send.
  out.network_s = t;
  if (c.transport == Transport::Staged) {
    double copy = inputs[in::kCopyLatency] + n * inputs[in::kCopyPerByte];
    out.before_s = copy;
    out.after_s = copy;
  }
  if (c.transport == Transport::GpuDirect) out.before_s = inputs[in::kPinDelay];
  out.time_s = out.before_s + out.network_s + out.after_s +
               (out.chunks - 1) * std::max({out.before_s, out.network_s, out.after_s});
  return out;
}

void MessagePipeline::add(const MessageTime& m, double count) {
  count *= m.chunks;  // a message staged in pieces: each piece through the three stages in turn
  if (!(count > 0)) return;
  const double a = m.before_s, b = m.network_s, c = m.after_s;
  if (a == 0 && c == 0) {  // no per-message delays: the network times add up (the rank's injection is shared)
    network_ += count * b;
    receiver_ = std::max(receiver_, network_);
    return;
  }
  // Stage ends after the first of the run, and after all `count` of them: each stage's end is a maximum of terms
  // linear in the message's index within the run, so the maximum is at the first or the last message.
  const double network_first = std::max(network_, sender_ + a) + b;
  const double network_last = std::max({network_ + count * b, sender_ + a + count * b, sender_ + count * a + b});
  receiver_ = std::max({receiver_ + count * c, network_first + count * c, network_last + c});
  network_ = network_last;
  sender_ += count * a;
}

}  // namespace gpm::mpi
