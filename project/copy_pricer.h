// copy_pricer.h: the time of one copy on one machine, from the same copy models as `gpmc eval` (AHEAD eq. 9-10).
#pragma once
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "backend/interp/point.h"
#include "driver/pipeline.h"
#include "project/trace.h"

namespace gpm::project {

// Prices copies on MACHINE by evaluating stdlib/project/host_copy.gpm or d2d_copy.gpm with it, compiled once per
// (kind, memory) and then evaluated per size with the interpreter's values-only path. The copy runs on the
// machine's first GPU, on one stream, exactly as `copy h2d N pinned` in an app evaluated by `gpmc eval`. A copy
// on CUDA device i is `copy h2d N pinned on G` with G the machine's i-th GPU, in an app written for it. A peer
// copy between CUDA devices i and j is `copy p2p N from A to B` where A and B are the machine's i-th and j-th
// GPUs in declaration order (arrays expanded), in an app written for that pair (`stdlib/project/p2p_copy.gpm`).
class CopyPricer {
 public:
  CopyPricer(driver::Options options, std::string machine_file);
  ~CopyPricer();

  // What a copy is, apart from its size.
  struct Shape {
    CopyKind kind = CopyKind::H2D;
    HostMemory memory = HostMemory::Pinned;
    int64_t src_gpu = -1, dst_gpu = -1;  // p2p only
    int64_t gpu = -1;                    // h2d, d2h, d2d: the GPU; -1: the machine's first
    auto operator<=>(const Shape&) const = default;
  };
  static Shape shape_of(const TraceCopy& copy) {
    return {copy.kind, copy.memory, copy.src_gpu, copy.dst_gpu, copy.gpu};
  }

  // The predicted time of a copy of `bytes`; false after recording errors (print them with flush_errors).
  bool price(const Shape& shape, double bytes, double& seconds);
  // The model's bandwidth for the copy at large sizes: 2^30 B / (T(2^31 B) - T(2^30 B)). Used for the
  // back-of-the-envelope projection (AHEAD section VI-D), which scales measured times by a ratio of bandwidths.
  bool bandwidth(const Shape& shape, double& bytes_per_s);
  // Compiles the machine alone (with an app that does nothing); false after recording its errors.
  bool check_machine() {
    std::vector<std::string>* gpus = nullptr;
    return gpu_paths(gpus);
  }
  // The machine's name (after the first successful call above), for reports.
  const std::string& machine_name() const { return machine_name_; }
  const std::string& machine_file() const { return machine_file_; }
  // Writes the diagnostics of the failed compilation or evaluation.
  void flush_errors(std::ostream& out);
  // The diagnostics of the failed compilation or evaluation (null when none failed), for the Python module.
  const support::DiagnosticEngine* failed_diags() const { return failed_ ? &failed_->diags() : nullptr; }
  // The source managers of the sessions that compiled models so far (their files are the inputs of the pricing).
  std::vector<const support::SourceManager*> sources() const;

 private:
  struct Model {
    std::unique_ptr<driver::Compiled> compiled;
    int32_t bytes_slot = -1;
    driver::Session* session = nullptr;  // the one that compiled it
  };
  bool model_for(const Shape& shape, Model*& out);
  bool gpu_paths(std::vector<std::string>*& out);

  driver::Options options_;
  std::string machine_file_, machine_name_;
  std::unique_ptr<driver::Session> host_session_, device_session_, gpu_list_session_;
  std::map<Shape, std::unique_ptr<driver::Session>> generated_sessions_;  // copies on given GPUs
  std::unique_ptr<driver::Compiled> host_base_;
  std::map<Shape, Model> models_;
  std::vector<std::string> gpus_;  // the machine's GPUs in declaration order, once listed
  bool gpus_listed_ = false;
  driver::Session* failed_ = nullptr;
  backend::PointScratch scratch_;
};

}  // namespace gpm::project
