// sweep.cpp: evaluates the points of a sweep on std::threads, each point on its own, with either backend.
#include <algorithm>
#include <cmath>
#include <thread>

#include "backend/interp/point.h"
#include "driver/sweep.h"

namespace gpm::driver {

Sweep::Sweep(const ir::Module& module, const backend::SlotValues& bound, std::vector<SweepAxis> axes,
             Backend backend)
    : module_(module), bound_(bound), axes_(std::move(axes)), backend_(backend) {
  bound_.resize(module.params.size());
  size_ = point_count(axes_);
  phases_ = module.root.children.size();
  if (backend_ == Backend::Jit) {
    backend::jit::Options options;
    for (const auto& axis : axes_) options.inputs.push_back(axis.slot);
    jitted_ = backend::jit::CompiledModel::compile(module, bound_, options);
    compile_seconds_ = jitted_->compile_seconds();
  }
}

Sweep::~Sweep() = default;

void Sweep::coordinates(uint64_t index, double* out) const {
  for (size_t k = axes_.size(); k-- > 0;) {
    uint64_t n = axes_[k].values.size();
    out[k] = axes_[k].values[index % n];
    index /= n;
  }
}

backend::SlotValues Sweep::bound_at(uint64_t index) const {
  std::vector<double> at(axes_.size());
  coordinates(index, at.data());
  backend::SlotValues bound = bound_;
  for (size_t k = 0; k < axes_.size(); ++k) bound[size_t(axes_[k].slot)] = at[k];
  return bound;
}

// One thread's share: walks the points like an odometer (the last axis fastest), allocating nothing per point.
void Sweep::run_range(uint64_t begin, uint64_t end, double* totals, double* phases) const {
  size_t dims = axes_.size();
  std::vector<size_t> digit(dims);
  for (size_t k = dims, index = begin; k-- > 0;) {
    digit[k] = index % axes_[k].values.size();
    index /= axes_[k].values.size();
  }
  std::vector<double> inputs(std::max<size_t>(dims, 1));
  for (size_t k = 0; k < dims; ++k) inputs[k] = axes_[k].values[digit[k]];
  backend::SlotValues bound = bound_;
  backend::PointScratch scratch;
  backend::jit::PointFn point = jitted_ ? jitted_->point() : nullptr;
  for (uint64_t i = begin; i < end; ++i) {
    double* phases_out = phases + (i - begin) * phases_;
    if (point) {
      totals[i - begin] = point(inputs.data(), phases_out);
    } else {
      for (size_t k = 0; k < dims; ++k) bound[size_t(axes_[k].slot)] = inputs[k];
      totals[i - begin] = backend::evaluate_point(module_, bound, scratch, phases_out);
    }
    for (size_t k = dims; k-- > 0;) {  // next point
      if (++digit[k] < axes_[k].values.size()) {
        inputs[k] = axes_[k].values[digit[k]];
        break;
      }
      digit[k] = 0;
      inputs[k] = axes_[k].values[0];
    }
  }
}

int64_t Sweep::run(uint64_t begin, uint64_t end, unsigned threads, double* totals, double* phases) const {
  uint64_t n = end - begin;
  threads = unsigned(std::max<uint64_t>(1, std::min<uint64_t>(threads, n)));
  if (threads == 1) {
    run_range(begin, end, totals, phases);
  } else {
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
      uint64_t from = begin + n * t / threads, to = begin + n * (t + 1) / threads;
      workers.emplace_back([=, this] { run_range(from, to, totals + (from - begin), phases + (from - begin) * phases_); });
    }
    for (auto& w : workers) w.join();
  }
  for (uint64_t i = 0; i < n; ++i)
    if (std::isnan(totals[i])) return int64_t(begin + i);
  return -1;
}

}  // namespace gpm::driver
