// ranks.cpp: the ranks of a run under an MPI launcher, through the MPI plugin loaded at run time (dlopen), or one.
#include "driver/ranks.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace gpm::driver {

namespace {

int env_count(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return 0;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  return *end == '\0' && value > 0 && value < (1L << 30) ? int(value) : 0;
}

// Where the plugin may be: $GPMC_MPI_PLUGIN alone when set, else beside the executable (the build tree) and in
// ../lib/gpmc from it (an installed tree).
std::vector<std::string> plugin_paths() {
  if (const char* path = std::getenv("GPMC_MPI_PLUGIN"); path && *path) return {path};
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return {(exe.parent_path() / "gpmc_mpi.so").string(),
          (exe.parent_path() / ".." / "lib" / "gpmc" / "gpmc_mpi.so").lexically_normal().string()};
}

// Every rank but 0 writes nothing: its stdout and stderr go to /dev/null. The launcher's pipes stay open (copies
// of the descriptors, kept to the end) until the process exits: closed early, they make Open MPI's I/O forwarding
// warn on mpirun's stderr.
void silence() {
  std::fflush(stdout);
  std::fflush(stderr);
  int null = open("/dev/null", O_WRONLY);
  if (null < 0) return;
  static int kept_out = dup(STDOUT_FILENO), kept_err = dup(STDERR_FILENO);
  (void)kept_out;
  (void)kept_err;
  dup2(null, STDOUT_FILENO);
  dup2(null, STDERR_FILENO);
  close(null);
}

}  // namespace

Share share_of(uint64_t first, uint64_t last, int rank, int ranks) {
  uint64_t n = last - first, r = uint64_t(rank), k = uint64_t(ranks);
  // n * r / k without overflow: the quotient and remainder parts separately.
  auto at = [&](uint64_t i) { return first + (n / k) * i + (n % k) * i / k; };
  return {at(r), at(r + 1)};
}

int launched_ranks() {
  int n = env_count("OMPI_COMM_WORLD_SIZE");
  if (n == 0) n = env_count("PMI_SIZE");
  return n == 0 ? 1 : n;
}

bool Ranks::start(std::string& error) {
  int launched = launched_ranks();
  if (launched <= 1) return true;
  // Every rank fails alike; the launcher's rank 0 alone says why.
  auto refuse = [&](std::string message) {
    error = std::move(message);
    int rank = env_count("OMPI_COMM_WORLD_RANK");
    if (rank == 0) rank = env_count("PMI_RANK");
    if (rank != 0) silence();
    return false;
  };
  std::string tried;
  void* handle = nullptr;
  for (const auto& path : plugin_paths()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // RTLD_GLOBAL: Open MPI's own components, loaded by MPI_Init, look up libmpi's symbols globally.
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      return refuse(fmt::format("an MPI launcher started {} ranks, but the MPI plugin `{}` cannot be loaded: {}",
                                launched, path, dlerror()));
    }
    break;
  }
  if (!handle) {
    return refuse(fmt::format("an MPI launcher started {} ranks, but this gpmc was built without MPI (no plugin at "
                              "{}): install Open MPI (scripts/install_deps.sh) and build again, or run gpmc without "
                              "mpirun",
                              launched, tried.empty() ? "any known path" : tried));
  }
  auto entry = reinterpret_cast<gpm_ranks_plugin_entry>(dlsym(handle, GPM_RANKS_PLUGIN_ENTRY));
  const gpm_ranks_plugin* plugin = entry ? entry() : nullptr;
  if (!plugin || plugin->version != GPM_RANKS_PLUGIN_VERSION) {
    return refuse("the MPI plugin does not match this gpmc (build both from the same tree)");
  }
  int rank = 0, size = 1;
  if (int status = plugin->init(&rank, &size); status != 0) {
    return refuse(fmt::format("MPI_Init failed (MPI error {})", status));
  }
  plugin_ = plugin;
  rank_ = rank;
  size_ = size;
  if (rank_ != 0) silence();  // one voice: rank 0 writes the output and the diagnostics
  return true;
}

Ranks::~Ranks() {
  if (!plugin_) return;
  std::fflush(stdout);
  std::fflush(stderr);
  // Left by an exception (an internal error, on some ranks only): the others may wait for this one for ever.
  if (std::uncaught_exceptions() > 0) plugin_->abort_all(2);
  plugin_->finalize();
}

unsigned Ranks::default_threads() const {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  int here = env_count("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (here == 0) here = env_count("MPI_LOCALNRANKS");
  if (here == 0) here = size_;
  return std::max(1u, cores / unsigned(here));
}

void Ranks::check(int status, const char* what) const {
  if (status == 0) return;
  std::fprintf(stderr, "gpmc: error: %s failed on rank %d (MPI error %d); stopping every rank\n", what, rank_, status);
  plugin_->abort_all(2);
  std::_Exit(2);
}

void Ranks::gather(double* data, uint64_t first, uint64_t last, size_t stride) const {
  if (!plugin_) return;
  if (rank_ != 0) {
    Share mine = share(first, last);
    check(plugin_->send_doubles(data, mine.size() * stride, 0), "sending results to rank 0");
    return;
  }
  for (int r = 1; r < size_; ++r) {
    Share theirs = share_of(first, last, r, size_);
    check(plugin_->recv_doubles(data + (theirs.begin - first) * stride, theirs.size() * stride, r),
          "receiving results");
  }
}

uint64_t Ranks::min(uint64_t value) const {
  if (plugin_) check(plugin_->min_u64(&value), "MPI_Allreduce");
  return value;
}

}  // namespace gpm::driver
