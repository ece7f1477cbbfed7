// fuzz_model.cpp: libFuzzer target over the whole pipeline (parse, check, lower, evaluate) of one .gpm input.
//
// Each input is a .gpm file held in memory. It is checked as `gpmc check` checks it; then, when it declares an app
// and a machine, the pair is compiled and evaluated with the interpreter; an app alone is evaluated on
// machines/summit.gpm, a machine alone runs apps/bandwidth.gpm. Errors are the expected outcome of most inputs:
// what the target looks for is a crash, a sanitizer report, an uncaught exception or a hang. The prelude is parsed
// once per process (driver::Session::parsed_prelude), so an execution costs what the input costs.
#include <pthread.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "driver/pipeline.h"

namespace {

using gpm::driver::Options;
using gpm::driver::Session;

std::string read_shipped(const char* relative) {
  std::ifstream in(std::string(GPM_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Shared {
  gpm::frontend::ParsedPrelude prelude;
  std::string machine = read_shipped("machines/summit.gpm");
  std::string app = read_shipped("apps/bandwidth.gpm");
};

const Shared& shared() {
  static const Shared* s = [] {
    auto* out = new Shared;
    Session session(Options{});
    auto prelude = session.parsed_prelude();
    if (!prelude) {
      session.diags().flush(std::cerr);
      std::abort();
    }
    out->prelude = std::move(*prelude);
    return out;
  }();
  return *s;
}

// Whether `word` stands in `text` as a word followed by a blank (`machine m {`, `app a {`): a cheap guess at which
// declarations the input has; a wrong guess only changes which pairing is compiled.
bool declares(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    bool start = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    size_t end = at + word.size();
    char after = end < text.size() ? text[end] : ' ';
    if (start && (after == ' ' || after == '\t' || after == '\n')) return true;
  }
  return false;
}

void run_one(const std::string& text) {
  const Shared& s = shared();
  {
    Session session(Options{}, s.prelude);
    session.add_generated_file("input.gpm", text);
    session.check({"input.gpm"});
  }
  bool machine = declares(text, "machine"), app = declares(text, "app");
  if (!machine && !app) return;
  Session session(Options{}, s.prelude);
  session.add_generated_file("input.gpm", text);
  session.add_generated_file("machines/summit.gpm", s.machine);
  session.add_generated_file("apps/bandwidth.gpm", s.app);
  auto compiled = session.compile(machine ? "input.gpm" : "machines/summit.gpm", app ? "input.gpm" : "apps/bandwidth.gpm", {});
  if (!compiled) return;
  gpm::backend::Evaluation evaluation;
  session.evaluate(*compiled, evaluation);
}

// The pipeline on a thread with gpmc's 1 GiB stack (reserved, not committed), as tools/gpmc/main.cpp runs it: the
// deepest input the nesting guard admits must not exhaust the stack of the fuzzer's own thread.
void run_on_large_stack(const std::string& text) {
  struct Job {
    const std::string* text;
  } job{&text};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);
  pthread_t thread;
  auto entry = [](void* arg) -> void* {
    try {
      run_one(*static_cast<Job*>(arg)->text);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_model: uncaught exception: %s\n", e.what());
      std::abort();  // gpmc would report an internal error: a bug
    }
    return nullptr;
  };
  if (pthread_create(&thread, &attr, entry, &job) != 0) std::abort();
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  shared();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  run_on_large_stack(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
