/* ranks_plugin.h: the C interface between driver/ranks.cpp and the MPI plugin (driver/ranks_mpi.c, gpmc_mpi.so). */
#ifndef GPM_DRIVER_RANKS_PLUGIN_H
#define GPM_DRIVER_RANKS_PLUGIN_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPM_RANKS_PLUGIN_VERSION 1

/* What gpmc asks of MPI. Each function returns 0 on success, else an MPI error code. The plugin is the only code
   that includes mpi.h; gpmc loads it (dlopen) only when an MPI launcher started it, so a plain gpmc never loads the
   MPI libraries. */
struct gpm_ranks_plugin {
  int version; /* GPM_RANKS_PLUGIN_VERSION */
  int (*init)(int* rank, int* size);
  /* `count` doubles to or from rank `peer` (any count: sent in pieces below MPI's int limit). */
  int (*send_doubles)(const double* data, uint64_t count, int peer);
  int (*recv_doubles)(double* data, uint64_t count, int peer);
  /* The least `value` over every rank, on every rank. */
  int (*min_u64)(uint64_t* value);
  int (*finalize)(void);
  void (*abort_all)(int status);
};

/* The plugin's one exported symbol. */
typedef const struct gpm_ranks_plugin* (*gpm_ranks_plugin_entry)(void);
#define GPM_RANKS_PLUGIN_ENTRY "gpm_ranks_plugin"

#ifdef __cplusplus
}
#endif
#endif
