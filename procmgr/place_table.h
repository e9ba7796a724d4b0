/* The tree table: one per worker of `mptrain run -- CMD`, a memory file
 * the launcher creates (procmgr/tree_placement.hpp, PlaceTable) and every
 * process of the worker's tree maps shared through the placement library
 * (procmgr/place_preload.c). It holds the `--children` slices' holders and
 * one entry per process of the tree: where it was placed, what its thread
 * pools asked for and got, and when it last ran a parallel region. C, so
 * that the library (C, libc only) and mptrain (C++) read one layout. */
#pragma once

#include <stdint.h>

#define PLACE_TABLE_MAGIC 0x6d707432u /* "mpt2" */
#define PLACE_MAX_SLICES 1024         /* the most working children a worker may have (--children) */
#define PLACE_MAX_PROCESSES 512       /* entries; those of processes gone are reused */
#define PLACE_MASK_WORDS 16           /* a placement's CPUs: 1024 bits */

/* What an entry's process is, or did. */
enum place_flag {
  PLACE_MAIN = 1,           /* the worker's own process (the launcher's child) */
  PLACE_HOLDER = 2,         /* holds slice `slice` (a working child) */
  PLACE_OWN_AFFINITY = 4,   /* set a CPU affinity of its own: left where it is, pools uncapped */
  PLACE_HELPER = 8,         /* a shell, wrapper or Python helper: holds no slice */
  PLACE_RUNTIME_BOUND = 16, /* an OpenMP runtime bound its threads (a child may inherit one PU) */
  PLACE_PASSES_ON = 32      /* the worker's main process, or a wrapper below it, that only runs another
                               program (sh -c, timeout, env): the working process it starts stands for
                               the worker */
};

/* One process of the tree, written by that process. */
struct place_process {
  int32_t pid;                     /* 0: a free entry */
  int32_t flags;                   /* place_flag bits */
  uint64_t start;                  /* its start time (/proc/PID/stat field 22): tells a reused pid apart */
  int32_t slice;                   /* the slice it runs in; -1: the worker's CPUs */
  int32_t cpus;                    /* the CPUs of its placement */
  int32_t asked;                   /* threads its last capped (or first) request asked for; 0: none seen */
  int32_t got;                     /* threads that request got */
  int64_t active_ms;               /* when it was last busy (CLOCK_MONOTONIC_COARSE, ms); far ahead: in a region */
  char call[32];                   /* the call that asked: "omp_set_num_threads", "parallel region", … */
  char comm[16];                   /* its name when it asked */
  uint64_t mask[PLACE_MASK_WORDS]; /* the CPUs of its placement */
  char reserved[40];
};

/* The whole table. */
struct place_table {
  uint32_t magic;
  int32_t slices;                        /* K (0: no --children) */
  int32_t used;                          /* entries ever claimed (a scan's end) */
  int32_t noted;                         /* 1 once a process of the tree said on stderr that a pool was capped */
  int32_t slot[PLACE_MAX_SLICES];        /* each slice's holder; 0: free */
  uint64_t slot_start[PLACE_MAX_SLICES]; /* its start time */
  struct place_process process[PLACE_MAX_PROCESSES];
};
