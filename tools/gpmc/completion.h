// completion.h: bash and zsh completion scripts written from the command line's own definition (gpmc completion).
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace gpm::cli {

// The completion script for `shell` ("bash" or "zsh"): every visible subcommand of `app`, its options (with the
// values of those checked against a set) and its positional arguments, read from the CLI11 definition itself.
std::string completion_script(CLI::App& app, const std::string& shell);

}  // namespace gpm::cli
