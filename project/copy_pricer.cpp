// copy_pricer.cpp: compiles the one-copy apps of stdlib/project/ against a machine and evaluates them per copy.
#include "project/copy_pricer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "backend/interp/interpreter.h"

namespace gpm::project {

CopyPricer::CopyPricer(driver::Options options, std::string machine_file)
    : options_(std::move(options)), machine_file_(std::move(machine_file)) {}

CopyPricer::~CopyPricer() = default;

bool CopyPricer::model_for(CopyKind kind, HostMemory memory, Model*& out) {
  auto key = std::make_pair(int(kind), int(memory));
  if (auto found = models_.find(key); found != models_.end()) {
    out = &found->second;
    return true;
  }
  std::string stdlib = options_.stdlib_dir.empty() ? driver::default_stdlib_dir() : options_.stdlib_dir;
  Model model;
  driver::Session* session = nullptr;
  if (kind == CopyKind::D2D) {
    device_session_ = std::make_unique<driver::Session>(options_);
    session = device_session_.get();
    model.compiled = session->compile(machine_file_, (std::filesystem::path(stdlib) / "project/d2d_copy.gpm").string(), {});
  } else {
    if (!host_session_) {
      host_session_ = std::make_unique<driver::Session>(options_);
      host_base_ = host_session_->compile(machine_file_,
                                          (std::filesystem::path(stdlib) / "project/host_copy.gpm").string(), {});
    }
    session = host_session_.get();
    if (host_base_) {
      // The direction and memory words choose the model: the base is lowered again with them.
      ir::ParamBindings words;
      for (const auto& [name, word] : {std::pair<std::string, std::string>{"direction", copy_kind_name(kind)},
                                       {"memory", host_memory_name(memory)}}) {
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
  out = &models_.emplace(key, std::move(model)).first->second;
  return true;
}

bool CopyPricer::price(CopyKind kind, HostMemory memory, double bytes, double& seconds) {
  Model* model = nullptr;
  if (!model_for(kind, memory, model)) return false;
  backend::SlotValues bound = model->compiled->bound;
  bound[size_t(model->bytes_slot)] = bytes;
  std::vector<double> phases(std::max<size_t>(model->compiled->module.root.children.size(), 1));
  seconds = backend::evaluate_point(model->compiled->module, bound, scratch_, phases.data());
  if (!std::isnan(seconds)) return true;
  // The values-only path does not say why; the full evaluation reports it.
  driver::Session* session = kind == CopyKind::D2D ? device_session_.get() : host_session_.get();
  backend::Evaluation ignored;
  if (backend::evaluate(model->compiled->module, bound, session->diags(), ignored))
    throw std::logic_error("a copy the values-only path rejects evaluates without errors");
  failed_ = session;
  return false;
}

bool CopyPricer::bandwidth(CopyKind kind, HostMemory memory, double& bytes_per_s) {
  const double n = 1073741824.0;  // 1 GiB: far above every machine's L+O, so the difference is n / BW
  double one = 0, two = 0;
  if (!price(kind, memory, n, one) || !price(kind, memory, 2 * n, two)) return false;
  bytes_per_s = n / (two - one);
  return true;
}

void CopyPricer::flush_errors(std::ostream& out) {
  if (failed_) failed_->diags().flush(out);
}

}  // namespace gpm::project
