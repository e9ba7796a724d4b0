/* The variables mptrain sets for the placement library in each worker's
 * environment, each name written once: C, so that the library
 * (procmgr/place_preload.c, C and libc only) and mptrain (C++: procmgr sets
 * them, monitor reads them back from /proc/PID/environ) spell one name. */
#pragma once

#define PLACE_VAR_PREFIX "MPTRAIN_PLACE_"           /* every variable of the library's */
#define PLACE_VAR_CPUS "MPTRAIN_PLACE_CPUS"         /* the worker's CPUs ("0-3,8") */
#define PLACE_VAR_TABLE "MPTRAIN_PLACE_TABLE"       /* the worker's tree table (procmgr/place_table.h) */
#define PLACE_VAR_LAUNCHER "MPTRAIN_PLACE_LAUNCHER" /* mptrain's pid: its child is the worker itself */
#define PLACE_VAR_POOL "MPTRAIN_PLACE_POOL"         /* the threads the plan gives the worker (T) */
#define PLACE_VAR_SLICES "MPTRAIN_PLACE_SLICES"     /* with --children K: the K slices, "0-1;2-3" */
#define PLACE_VAR_THREADS "MPTRAIN_PLACE_THREADS"   /* with --children K: each child's threads, floor(T/K) */
#define PLACE_VAR_KEEP "MPTRAIN_PLACE_KEEP"         /* "1" (--keep-program-threads): pools are not capped */
