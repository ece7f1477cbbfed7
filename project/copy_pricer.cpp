// copy_pricer.cpp: compiles the one-copy apps of stdlib/project/ against a machine and evaluates them per copy.
#include "project/copy_pricer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "backend/interp/interpreter.h"

namespace gpm::project {

using support::DiagKind;

CopyPricer::CopyPricer(driver::Options options, std::string machine_file)
    : options_(std::move(options)), machine_file_(std::move(machine_file)) {}

CopyPricer::~CopyPricer() = default;

namespace {

std::string stdlib_file(const driver::Options& options, const std::string& name) {
  std::string stdlib = options.stdlib_dir.empty() ? driver::default_stdlib_dir() : options.stdlib_dir;
  return (std::filesystem::path(stdlib) / "project" / name).string();
}

}  // namespace

// The machine's GPUs, from its topology, lowered with an app that does nothing.
bool CopyPricer::gpu_paths(std::vector<std::string>*& out) {
  out = &gpus_;
  if (gpus_listed_) return true;
  gpu_list_session_ = std::make_unique<driver::Session>(options_);
  std::string path = stdlib_file(options_, "gpu_list.gpm");
  gpu_list_session_->add_generated_file(
      path, "// gpu_list.gpm (written by gpmc project): an app that does nothing, to list the machine's GPUs.\n"
            "app trace_gpu_list {\n  overhead 0 s\n}\n");
  auto compiled = gpu_list_session_->compile(machine_file_, path, {});
  if (!compiled) {
    failed_ = gpu_list_session_.get();
    return false;
  }
  machine_name_ = compiled->owners[0]->name;
  for (const auto& component : compiled->module.topology.components)
    if (component.kind == "gpu") gpus_.push_back(component.path);
  gpus_listed_ = true;
  return true;
}

bool CopyPricer::model_for(const Shape& shape, Model*& out) {
  if (auto found = models_.find(shape); found != models_.end()) {
    out = &found->second;
    return true;
  }
  Model model;
  driver::Session* session = nullptr;
  if (shape.kind == CopyKind::P2P || shape.gpu >= 0) {
    // A copy on given GPUs: an app written for them (the GPUs' paths are the machine's).
    std::vector<std::string>* gpus = nullptr;
    if (!gpu_paths(gpus)) return false;
    auto devices = shape.kind == CopyKind::P2P ? std::vector<int64_t>{shape.src_gpu, shape.dst_gpu}
                                               : std::vector<int64_t>{shape.gpu};
    for (int64_t device : devices) {
      if (device >= 0 && size_t(device) < gpus->size()) continue;
      gpu_list_session_->diags().error(
          DiagKind::IndexOutOfRange, {},
          fmt::format("the trace has a copy ({}) on GPU {}, but `{}` has {} GPU{} (numbered 0 to {} in declaration "
                      "order)",
                      copy_kind_name(shape.kind), device, machine_file_, gpus->size(), gpus->size() == 1 ? "" : "s",
                      int64_t(gpus->size()) - 1));
      failed_ = gpu_list_session_.get();
      return false;
    }
    auto& own_session = generated_sessions_[shape];
    own_session = std::make_unique<driver::Session>(options_);
    session = own_session.get();
    std::string name, statement, what;
    if (shape.kind == CopyKind::P2P) {
      name = fmt::format("p2p_copy_{}_{}.gpm", shape.src_gpu, shape.dst_gpu);
      statement = fmt::format("copy p2p bytes from {} to {}", (*gpus)[size_t(shape.src_gpu)],
                              (*gpus)[size_t(shape.dst_gpu)]);
      what = fmt::format("one peer copy of `bytes` from CUDA device {} to device {}", shape.src_gpu, shape.dst_gpu);
    } else {
      name = fmt::format("{}_copy_gpu{}.gpm", copy_kind_name(shape.kind), shape.gpu);
      statement = shape.kind == CopyKind::D2D
                      ? fmt::format("copy d2d bytes on {}", (*gpus)[size_t(shape.gpu)])
                      : fmt::format("copy {} bytes {} on {}", copy_kind_name(shape.kind),
                                    host_memory_name(shape.memory), (*gpus)[size_t(shape.gpu)]);
      what = fmt::format("one {} copy of `bytes` on CUDA device {}", copy_kind_name(shape.kind), shape.gpu);
    }
    std::string path = stdlib_file(options_, name);
    session->add_generated_file(
        path, fmt::format("// {} (written by gpmc project): {}, the machine's GPUs\n// numbered in declaration "
                          "order (the copy models of stdlib/transfer.gpm, AHEAD eq. 9-10).\n"
                          "app trace_copy {{\n  param bytes = 1 B in 0 B .. 1 PiB\n  {}\n}}\n",
                          name, what, statement));
    model.compiled = session->compile(machine_file_, path, {});
  } else if (shape.kind == CopyKind::D2D) {
    device_session_ = std::make_unique<driver::Session>(options_);
    session = device_session_.get();
    model.compiled = session->compile(machine_file_, stdlib_file(options_, "d2d_copy.gpm"), {});
  } else {
    if (!host_session_) {
      host_session_ = std::make_unique<driver::Session>(options_);
      host_base_ = host_session_->compile(machine_file_, stdlib_file(options_, "host_copy.gpm"), {});
    }
    session = host_session_.get();
    if (host_base_) {
      // The direction and memory words choose the model: the base is lowered again with them.
      lower::ParamBindings words;
      for (const auto& [name, word] : {std::pair<std::string, std::string>{"direction", copy_kind_name(shape.kind)},
                                       {"memory", host_memory_name(shape.memory)}}) {
        const frontend::ParamDecl* param = session->find_param(*host_base_, "project", name, {});
        double index = 0;
        if (!param || !session->word_or_number("project", *param, word, index)) break;
        words[param] = index;
      }
      if (words.size() == 2) model.compiled = session->recompile(*host_base_, words, {});
    }
  }
  if (!model.compiled) {
    failed_ = session;
    return false;
  }
  machine_name_ = model.compiled->owners[0]->name;
  const frontend::ParamDecl* bytes = session->find_param(*model.compiled, "project", "bytes", {});
  if (!bytes || !model.compiled->slots.count(bytes)) throw std::logic_error("a one-copy app has no `bytes` slot");
  model.bytes_slot = model.compiled->slots.at(bytes);
  model.session = session;
  out = &models_.emplace(shape, std::move(model)).first->second;
  return true;
}

bool CopyPricer::price(const Shape& shape, double bytes, double& seconds) {
  Model* model = nullptr;
  if (!model_for(shape, model)) return false;
  backend::SlotValues bound = model->compiled->bound;
  bound[size_t(model->bytes_slot)] = bytes;
  std::vector<double> phases(std::max<size_t>(model->compiled->module.root.children.size(), 1));
  seconds = backend::evaluate_point(model->compiled->module, bound, scratch_, phases.data());
  if (!std::isnan(seconds)) return true;
  // The values-only path does not say why; the full evaluation reports it.
  backend::Evaluation ignored;
  if (backend::evaluate(model->compiled->module, bound, model->session->diags(), ignored))
    throw std::logic_error("a copy the values-only path rejects evaluates without errors");
  failed_ = model->session;
  return false;
}

bool CopyPricer::bandwidth(const Shape& shape, double& bytes_per_s) {
  const double n = 1073741824.0;  // 1 GiB: far above every machine's L+O, so the difference is n / BW
  double one = 0, two = 0;
  if (!price(shape, n, one) || !price(shape, 2 * n, two)) return false;
  bytes_per_s = n / (two - one);
  return true;
}

void CopyPricer::flush_errors(std::ostream& out) {
  if (failed_) failed_->diags().flush(out);
}

std::vector<const support::SourceManager*> CopyPricer::sources() const {
  std::vector<const support::SourceManager*> out;
  for (const auto* session : {gpu_list_session_.get(), host_session_.get(), device_session_.get()})
    if (session) out.push_back(&session->sources());
  for (const auto& [shape, session] : generated_sessions_) out.push_back(&session->sources());
  return out;
}

}  // namespace gpm::project
