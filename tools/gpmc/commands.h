// commands.h: the gpmc subcommands (check, eval, dump-ast, dump-ir), each returning an exit status.
#pragma once
#include <string>
#include <vector>

#include "driver/pipeline.h"

namespace gpm::cli {

struct CommonOptions {
  std::vector<std::string> include_dirs;
};

struct EvalOptions {
  std::string machine, app;
  std::vector<std::string> sets;  // name=value
  std::string format = "table";
};

int run_check(const CommonOptions& common, const std::vector<std::string>& files);
int run_eval(const CommonOptions& common, const EvalOptions& options);
int run_dump_ast(const CommonOptions& common, const std::string& file);
int run_dump_ir(const CommonOptions& common, const EvalOptions& options);

}  // namespace gpm::cli
