// usage.h: command-line mistakes told in gpmc's own words (tools/gpmc/usage.cpp).
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace gpm::cli {

// The message for an argument the parser refused: an unknown option with the nearest name, a missing or extra
// argument with the command's usage, a value outside its set or range.
std::string usage_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace gpm::cli
