// sweep.cpp: evaluates the points of a sweep on std::threads, each point on its own, with either backend.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "backend/interp/point.h"
#include "driver/sweep.h"

namespace gpm::driver {

Sweep::Sweep(const ir::Module& module, const backend::SlotValues& bound, std::vector<SweepAxis> axes,
             Backend backend)
    : Sweep({SweepVariant{&module, bound}}, {0}, std::move(axes), backend) {}

Sweep::Sweep(std::vector<SweepVariant> variants, std::vector<uint32_t> variant_of_group, std::vector<SweepAxis> axes,
             Backend backend)
    : variants_(std::move(variants)), variant_of_group_(std::move(variant_of_group)), axes_(std::move(axes)),
      backend_(backend) {
  if (variants_.empty()) throw std::logic_error("sweep: no compiled model");
  size_ = point_count(axes_);
  phases_ = variants_[0].module->root.children.size();
  shaped_ = std::any_of(axes_.begin(), axes_.end(), [](const SweepAxis& a) { return a.shape; });
  for (auto& variant : variants_) {
    variant.bound.resize(variant.module->params.size());
    if (variant.module->root.children.size() != phases_) throw std::logic_error("sweep: variants differ in phases");
  }
  if (backend_ == Backend::Jit) {
    backend::jit::Options options;
    for (const auto& axis : axes_)
      if (!axis.shape) options.inputs.push_back(axis.slot);
    for (const auto& variant : variants_) {
      jitted_.push_back(backend::jit::CompiledModel::compile(*variant.module, variant.bound, options));
      compile_seconds_ += jitted_.back()->compile_seconds();
    }
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

// The variant of point `index`: its shape axes' value indices read as one number, the first outermost.
size_t Sweep::variant_at(uint64_t index) const {
  if (!shaped_) return 0;
  std::vector<uint64_t> digit(axes_.size());
  for (size_t k = axes_.size(); k-- > 0;) {
    digit[k] = index % axes_[k].values.size();
    index /= axes_[k].values.size();
  }
  uint64_t group = 0;
  for (size_t k = 0; k < axes_.size(); ++k)
    if (axes_[k].shape) group = group * axes_[k].values.size() + digit[k];
  return variant_of_group_.at(size_t(group));
}

const ir::Module& Sweep::module_at(uint64_t index) const { return *variants_[variant_at(index)].module; }

backend::SlotValues Sweep::bound_at(uint64_t index) const {
  std::vector<double> at(axes_.size());
  coordinates(index, at.data());
  backend::SlotValues bound = variants_[variant_at(index)].bound;
  for (size_t k = 0; k < axes_.size(); ++k)
    if (axes_[k].slot >= 0) bound[size_t(axes_[k].slot)] = at[k];  // a keyword axis chose the model instead
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
  const ir::Module& module = *variants_[0].module;
  backend::SlotValues bound = variants_[0].bound;
  backend::PointScratch scratch;
  backend::jit::PointFn point = jitted_.empty() ? nullptr : jitted_[0]->point();
  for (uint64_t i = begin; i < end; ++i) {
    double* phases_out = phases + (i - begin) * phases_;
    if (point) {
      totals[i - begin] = point(inputs.data(), phases_out);
    } else {
      for (size_t k = 0; k < dims; ++k) bound[size_t(axes_[k].slot)] = inputs[k];
      totals[i - begin] = backend::evaluate_point(module, bound, scratch, phases_out);
    }
    if (!std::isfinite(totals[i - begin])) totals[i - begin] = NAN;  // an overflow: an invalid point
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

// The same walk over a sweep with shape axes: each point runs its variant's function, whose inputs are the
// values of the other axes only (the shape axes' values are compiled into it).
void Sweep::run_range_shaped(uint64_t begin, uint64_t end, double* totals, double* phases) const {
  size_t dims = axes_.size();
  std::vector<size_t> digit(dims);
  for (size_t k = dims, index = begin; k-- > 0;) {
    digit[k] = index % axes_[k].values.size();
    index /= axes_[k].values.size();
  }
  std::vector<size_t> input_of(dims, 0);  // each value axis's place among the inputs
  size_t value_axes = 0;
  for (size_t k = 0; k < dims; ++k)
    if (!axes_[k].shape) input_of[k] = value_axes++;
  std::vector<double> inputs(std::max<size_t>(value_axes, 1));
  for (size_t k = 0; k < dims; ++k)
    if (!axes_[k].shape) inputs[input_of[k]] = axes_[k].values[digit[k]];
  std::vector<backend::SlotValues> bounds;  // interpreter: each variant's bound slots, copied on first use
  std::vector<backend::PointScratch> scratch;
  if (jitted_.empty()) bounds.resize(variants_.size()), scratch.resize(variants_.size());
  for (uint64_t i = begin; i < end; ++i) {
    double* phases_out = phases + (i - begin) * phases_;
    uint64_t group = 0;
    for (size_t k = 0; k < dims; ++k)
      if (axes_[k].shape) group = group * axes_[k].values.size() + digit[k];
    size_t v = variant_of_group_[size_t(group)];
    if (!jitted_.empty()) {
      totals[i - begin] = jitted_[v]->point()(inputs.data(), phases_out);
    } else {
      if (bounds[v].empty()) bounds[v] = variants_[v].bound;
      for (size_t k = 0; k < dims; ++k)
        if (!axes_[k].shape) bounds[v][size_t(axes_[k].slot)] = inputs[input_of[k]];
      totals[i - begin] = backend::evaluate_point(*variants_[v].module, bounds[v], scratch[v], phases_out);
    }
    if (!std::isfinite(totals[i - begin])) totals[i - begin] = NAN;  // an overflow: an invalid point
    for (size_t k = dims; k-- > 0;) {  // next point
      bool carry = ++digit[k] == axes_[k].values.size();
      if (carry) digit[k] = 0;
      if (!axes_[k].shape) inputs[input_of[k]] = axes_[k].values[digit[k]];
      if (!carry) break;
    }
  }
}

int64_t Sweep::run(uint64_t begin, uint64_t end, unsigned threads, double* totals, double* phases) const {
  uint64_t n = end - begin;
  threads = unsigned(std::max<uint64_t>(1, std::min<uint64_t>(threads, n)));
  auto work = [this](uint64_t from, uint64_t to, double* t, double* p) {
    if (shaped_) run_range_shaped(from, to, t, p);
    else run_range(from, to, t, p);
  };
  if (threads == 1) {
    work(begin, end, totals, phases);
  } else {
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
      uint64_t from = begin + n * t / threads, to = begin + n * (t + 1) / threads;
      workers.emplace_back([=, this] { work(from, to, totals + (from - begin), phases + (from - begin) * phases_); });
    }
    for (auto& w : workers) w.join();
  }
  for (uint64_t i = 0; i < n; ++i)
    if (std::isnan(totals[i])) return int64_t(begin + i);
  return -1;
}

}  // namespace gpm::driver
