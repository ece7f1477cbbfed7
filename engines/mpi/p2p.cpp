// p2p.cpp: one message's time under the postal, max-rate or K-model, with host-staged or GPUDirect transport.
#include "engines/mpi/p2p.h"

#include <fmt/format.h>

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

MessageTime message_time(const Choice& c, std::span<const double> inputs, Locality l, double n, double k) {
  MessageTime out;
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
  // GPUDirect paper, Table I: a host-staged message adds a device-to-host copy at the sender and a host-to-device
  // copy at the receiver (latency + per-byte time each); GPUDirect adds the pinning delay.
  if (c.transport == Transport::Staged) t += 2 * (inputs[in::kCopyLatency] + n * inputs[in::kCopyPerByte]);
  if (c.transport == Transport::GpuDirect) t += inputs[in::kPinDelay];
  out.time_s = t;
  return out;
}

}  // namespace gpm::mpi
