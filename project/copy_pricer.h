// copy_pricer.h: the time of one copy on one machine, from the same copy models as `gpmc eval` (AHEAD eq. 9-10).
#pragma once
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include "backend/interp/point.h"
#include "driver/pipeline.h"
#include "project/trace.h"

namespace gpm::project {

// Prices copies on MACHINE by evaluating stdlib/project/host_copy.gpm or d2d_copy.gpm with it, compiled once per
// (kind, memory) and then evaluated per size with the interpreter's values-only path. The copy runs on the
// machine's first GPU, on one stream, exactly as `copy h2d N pinned` in an app evaluated by `gpmc eval`.
class CopyPricer {
 public:
  CopyPricer(driver::Options options, std::string machine_file);
  ~CopyPricer();

  // The predicted time of a copy of `bytes`; false after recording errors (print them with flush_errors).
  bool price(CopyKind kind, HostMemory memory, double bytes, double& seconds);
  // The model's bandwidth for the copy at large sizes: 2^30 B / (T(2^31 B) - T(2^30 B)). Used for the
  // back-of-the-envelope projection (AHEAD section VI-D), which scales measured times by a ratio of bandwidths.
  bool bandwidth(CopyKind kind, HostMemory memory, double& bytes_per_s);
  // The machine's name (after the first successful price or bandwidth call), for reports.
  const std::string& machine_name() const { return machine_name_; }
  const std::string& machine_file() const { return machine_file_; }
  // Writes the diagnostics of the failed compilation or evaluation.
  void flush_errors(std::ostream& out);

 private:
  struct Model {
    std::unique_ptr<driver::Compiled> compiled;
    int32_t bytes_slot = -1;
  };
  bool model_for(CopyKind kind, HostMemory memory, Model*& out);

  driver::Options options_;
  std::string machine_file_, machine_name_;
  std::unique_ptr<driver::Session> host_session_, device_session_;
  std::unique_ptr<driver::Compiled> host_base_;
  std::map<std::pair<int, int>, Model> models_;
  driver::Session* failed_ = nullptr;
  backend::PointScratch scratch_;
};

}  // namespace gpm::project
