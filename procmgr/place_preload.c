/* libmptrain_place.so: preloaded (LD_PRELOAD) into every process of a
 * worker's tree by `mptrain run -- CMD`. It places the processes a program
 * starts itself the moment they start (after fork: it wraps fork; after
 * exec: its constructor), and keeps each thread pool of the tree inside
 * the CPUs its process was given (it wraps the runtimes' sizing calls and
 * GNU OpenMP's parallel regions). Written in C with libc only: it is loaded
 * into programs that are not ours, and brings no C++ runtime.
 *
 * What it reads, once, in its constructor (set by the launcher,
 * procmgr/tree_placement.cpp):
 *   MPTRAIN_PLACE_CPUS      the worker's CPUs ("0-3,8")
 *   MPTRAIN_PLACE_TABLE     the worker's tree table (procmgr/place_table.h)
 *   MPTRAIN_PLACE_LAUNCHER  mptrain's pid: its child is the worker itself
 *   MPTRAIN_PLACE_POOL      the threads the plan gives the worker (T)
 *   MPTRAIN_PLACE_SLICES    with --children K: the K slices, "0-1;2-3"
 *   MPTRAIN_PLACE_THREADS   with --children K: each child's threads, floor(T/K)
 *   MPTRAIN_PLACE_KEEP      "1" (--keep-program-threads): pools are not capped
 * It writes nothing into any environment but, in the constructor of an
 * exec'd slice holder (before the program runs), OMP_PLACES and
 * OMP_PROC_BIND for its slice, and in that of a process sharing the
 * worker's CPUs, the removal of the places the launcher set for the
 * worker and its share of the thread counts the launcher set; everything
 * a process of the tree must know of another is in the table.
 *
 * The rules (mptrain-run(1), "Process trees"):
 *   - the worker's main process keeps the CPUs the launcher gave it;
 *   - with slices, each working process (not a shell, a wrapper such as
 *     timeout or env, Python's resource tracker or forkserver) claims the
 *     first free slice and runs there; when none is free it stays in the
 *     slice of its nearest placed ancestor, or floats over the worker's
 *     CPUs; a slice is free again when its holder has exited;
 *   - without slices, a process that inherited a CPU an OpenMP runtime
 *     bound its parent's thread to gets the worker's CPUs; the working
 *     process a shell or wrapper runs in the worker's place stands for the
 *     worker (keeps its OpenMP places, its runtime binds as the worker's);
 *     any other process a working process started shares the worker's
 *     CPUs: it loses the places the launcher set, and its runtimes'
 *     bindings float over the CPUs;
 *   - a program that set its own affinity (its own sched_setaffinity or
 *     pthread_setaffinity_np, or a mask it brought across exec such as
 *     taskset's or numactl's) keeps it, and so do the processes it
 *     starts; it says so once on stderr;
 *   - a pool never holds more threads than its CPUs: a sizing call
 *     (omp_set_num_threads in C and Fortran, mkl_set_num_threads,
 *     openblas_set_num_threads, bli_thread_set_num_threads) and the
 *     thread count OpenMP starts with get the room of its process: the
 *     plan's threads (its placement's CPUs where none was passed; under a
 *     CPU quota or --bind none the plan's are fewer) divided among the
 *     processes of the same placement that were busy in the last
 *     PLACE_ACTIVE_MS; said once per tree on stderr, and kept in the
 *     table for the run's report. Not with MPTRAIN_PLACE_KEEP=1, nor for
 *     a process that set its own affinity. OpenMP's contract holds: the
 *     cap goes into the runtime's nthreads-var once per thread (fix_team),
 *     so queries and teams always agree; only with dyn-var true are GNU
 *     OpenMP regions resized as the neighbours get busy.
 *   - a process started to work beside others on its placement (a loky
 *     or spawn pool's worker) divides the thread-count variables it
 *     inherited at the plan's value among the processes working there
 *     (share_inherited_pools), before its program reads them.
 *     A num_threads clause is the program's own count and stands: code in
 *     the region may need every thread it asked for (oneDNN's barriers
 *     wait for them, a partition by the count asked leaves a part undone),
 *     so the cap reaches it through omp_get_max_threads, where such counts
 *     come from.
 * Between fork and the program's next instruction only async-signal-safe
 * work: system calls, atomics on the table, arithmetic on what the
 * constructor read. Nothing is done when MPTRAIN_PLACE_CPUS is unset or
 * unreadable.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "procmgr/place_table.h"
#include "util/place_variables.h"

#define VISIBLE __attribute__((visibility("default")))
#define HIDDEN __attribute__((visibility("hidden")))
#define PLACE_ACTIVE_MS 100           /* a process in a region, or out of one this recently, shares its placement */
#define PLACE_IN_REGION INT64_MAX / 2 /* active_ms while the process runs a parallel region */
#define PLACE_RECENT_MS 1000          /* a process started or busy this recently works beside a new one */
#define PLACE_BURST_MS 20             /* how long a new process waits for the siblings its parent is starting */

/* ---- What the constructor read (a forked child inherits it) ---- */

/* Each thread's OpenMP team is fixed once per process (fix_team); a forked child bumps the generation. */
static int team_generation = 1;
static __thread int team_fixed_in; /* the generation this thread's team was fixed in (0: never) */
static cpu_set_t worker_cpus;      /* MPTRAIN_PLACE_CPUS */
static int placing = 0;            /* 1 once worker_cpus is known */
static int capping = 0;            /* 1 unless MPTRAIN_PLACE_KEEP=1 */
static int worker_pool = 0;        /* MPTRAIN_PLACE_POOL: T */
static int child_pool = 0;         /* MPTRAIN_PLACE_THREADS: floor(T/K) */
static int slice_total = 0;        /* K */
static char slices_text[65536];    /* MPTRAIN_PLACE_SLICES */
static struct place_table* table;  /* the worker's tree table; NULL: unreachable */

/* ---- This process ---- */
static int is_main = 0;                  /* the worker's own process */
static int stands_in = 0;                /* the working process a wrapper started in the worker's place */
static struct place_process* self_entry; /* its entry in the table; NULL: none */
static int current_slice = -1;           /* the slice it runs in; -1: the worker's CPUs */
static int holder = 0;                   /* 1: it holds current_slice */
static int place_cpus = 0;               /* the CPUs of its placement */
static int own_affinity = 0;             /* 1 once the program set an affinity of its own */
static cpu_set_t brought_mask;           /* the mask this image started with */
static int brought_known = 0;            /* 1 once brought_mask is read */

/* ---- Small async-signal-safe helpers ---- */

/* Parses a decimal number at `*at`, moving past it; -1 when there is none. */
static long parse_number(const char** at) {
  long value = 0;
  int digits = 0;
  while (**at >= '0' && **at <= '9' && digits < 9) {
    value = value * 10 + (**at - '0');
    ++*at;
    ++digits;
  }
  return digits > 0 ? value : -1;
}

/* Parses the kernel CPU list from `text` to `end` ("0-3,8", strides "0-15:2") into `set`; 0 on success. */
static int parse_cpu_range(const char* text, const char* end, cpu_set_t* set) {
  CPU_ZERO(set);
  const char* at = text;
  while (at < end) {
    long first = parse_number(&at), last = first, stride = 1;
    if (first < 0 || first >= CPU_SETSIZE) return -1;
    if (at < end && *at == '-') {
      ++at;
      last = parse_number(&at);
      if (last < first || last >= CPU_SETSIZE) return -1;
      if (at < end && *at == ':') {
        ++at;
        stride = parse_number(&at);
        if (stride < 1) return -1;
      }
    }
    for (long cpu = first; cpu <= last; cpu += stride) CPU_SET((int)cpu, set);
    if (at < end && *at == ',') {
      ++at;
    } else if (at != end) {
      return -1;
    }
  }
  return CPU_COUNT(set) > 0 ? 0 : -1;
}

static int parse_cpu_list(const char* text, cpu_set_t* set) { return parse_cpu_range(text, text + strlen(text), set); }

/* Slice `index` into `set`; 0 on success. */
static int slice_cpus(int index, cpu_set_t* set) {
  if (index < 0 || index >= slice_total) return -1;
  const char* at = slices_text;
  for (int i = 0; i < index; ++i) {
    at = strchr(at, ';');
    if (at == NULL) return -1;
    ++at;
  }
  const char* end = strchr(at, ';');
  return parse_cpu_range(at, end != NULL ? end : at + strlen(at), set);
}

/* Parses the decimal digits at `at` (none: 0), as many as there are: clock ticks outgrow parse_number. */
static uint64_t parse_decimal(const char* at) {
  uint64_t value = 0;
  while (*at >= '0' && *at <= '9') value = value * 10 + (uint64_t)(*at++ - '0');
  return value;
}

/* What this library reads of /proc/PID/stat. */
struct proc_stat {
  char state;     /* field 3: 'R', 'S', 'Z', … */
  pid_t parent;   /* field 4 */
  uint64_t cpu;   /* fields 14 and 15, user and system time, in clock ticks */
  uint64_t start; /* field 22, clock ticks since boot */
};

/* Reads /proc/PID/stat (`pid` 0: this process) into `out`; 0 on success, -1 (and `out` all zero) when
 * there is no such process. Not util/task_stat.hpp's reader: this library is C and libc only, and runs
 * where nothing may allocate. */
static int read_stat(pid_t pid, struct proc_stat* out) {
  memset(out, 0, sizeof *out);
  char path[40] = "/proc/self/stat";
  if (pid != 0) {
    char digits[16];
    int n = 0;
    for (unsigned value = (unsigned)pid; value > 0 && n < 15; value /= 10) digits[n++] = (char)('0' + value % 10);
    char* at = path + 6; /* after "/proc/" */
    while (n > 0) *at++ = digits[--n];
    memcpy(at, "/stat", 6);
  }
  char stat[1024];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return -1;
  stat[n] = '\0';
  const char* at = strrchr(stat, ')');
  if (at == NULL || at[1] != ' ') return -1;
  out->state = at[2];
  /* Field 3 (the state) follows ") "; each further field follows one space. */
  for (int field = 2; field < 22 && *at != '\0'; ++at) {
    if (*at != ' ') continue;
    ++field;
    if (field == 4) out->parent = (pid_t)parse_decimal(at + 1);
    if (field == 14 || field == 15) out->cpu += parse_decimal(at + 1);
    if (field == 22) out->start = parse_decimal(at + 1);
  }
  return 0;
}

/* The start time of process `pid` (0: this one), 0 when it cannot be read. */
static uint64_t start_time(pid_t pid) {
  struct proc_stat info;
  read_stat(pid, &info);
  return info.start;
}

/* Whether process `pid`, started at `start` (0: unknown), is gone: no such process, a zombie, or a reused pid. */
static int process_gone(pid_t pid, uint64_t start) {
  if (pid <= 0) return 1;
  struct proc_stat info;
  if (read_stat(pid, &info) != 0) return 1;
  if (start != 0 && info.start != start) return 1;
  return info.state == 'Z' || info.state == 'X';
}

/* Sets this process's affinity (the system call itself: this library's own calls are not the program's). */
static void set_affinity(const cpu_set_t* set) { syscall(SYS_sched_setaffinity, 0, sizeof *set, set); }

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- The table ---- */

/* Claims an entry for this process (`pid`, started at `start`): a free one, or one whose process is gone. */
static struct place_process* claim_entry(pid_t pid, uint64_t start) {
  if (table == NULL) return NULL;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < PLACE_MAX_PROCESSES; ++i) {
      struct place_process* entry = &table->process[i];
      int old = __atomic_load_n(&entry->pid, __ATOMIC_ACQUIRE);
      if (pass == 0 ? old != 0 : (old == 0 || !process_gone(old, __atomic_load_n(&entry->start, __ATOMIC_ACQUIRE)))) {
        continue;
      }
      if (!__atomic_compare_exchange_n(&entry->pid, &old, (int32_t)pid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        continue;
      __atomic_store_n(&entry->start, start, __ATOMIC_RELEASE);
      entry->flags = 0;
      entry->slice = -1;
      entry->cpus = 0;
      entry->asked = 0;
      entry->got = 0;
      entry->active_ms = now_ms(); /* a process that has just started is about to work */
      entry->call[0] = '\0';
      prctl(PR_GET_NAME, entry->comm, 0, 0, 0); /* the report names it even if it ends before asking */
      int used = __atomic_load_n(&table->used, __ATOMIC_ACQUIRE);
      while (used < i + 1 &&
             !__atomic_compare_exchange_n(&table->used, &used, i + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      }
      return entry;
    }
  }
  return NULL;
}

/* The entry of live process `pid` started at `start` (0: any start), NULL when it has none. */
static struct place_process* find_entry(pid_t pid, uint64_t start) {
  if (table == NULL || pid <= 0) return NULL;
  const int used = __atomic_load_n(&table->used, __ATOMIC_ACQUIRE);
  for (int i = 0; i < used && i < PLACE_MAX_PROCESSES; ++i) {
    struct place_process* entry = &table->process[i];
    if (__atomic_load_n(&entry->pid, __ATOMIC_ACQUIRE) != pid) continue;
    if (start == 0 || __atomic_load_n(&entry->start, __ATOMIC_ACQUIRE) == start) return entry;
  }
  return NULL;
}

static void add_flags(int flags) {
  if (self_entry != NULL) __atomic_or_fetch(&self_entry->flags, flags, __ATOMIC_ACQ_REL);
}

/* Records this process's placement in its entry. */
static void record_placement(const cpu_set_t* set) {
  place_cpus = CPU_COUNT(set);
  if (self_entry == NULL) return;
  self_entry->slice = current_slice;
  self_entry->cpus = place_cpus;
  for (int word = 0; word < PLACE_MASK_WORDS; ++word) {
    uint64_t bits = 0;
    for (int bit = 0; bit < 64; ++bit) {
      if (CPU_ISSET(word * 64 + bit, set)) bits |= (uint64_t)1 << bit;
    }
    self_entry->mask[word] = bits;
  }
  if (holder) add_flags(PLACE_HOLDER);
}

/* The CPUs entry `entry` records into `set`. */
static void entry_mask(const struct place_process* entry, cpu_set_t* set) {
  CPU_ZERO(set);
  for (int word = 0; word < PLACE_MASK_WORDS; ++word) {
    for (int bit = 0; bit < 64; ++bit) {
      if (entry->mask[word] & ((uint64_t)1 << bit)) CPU_SET(word * 64 + bit, set);
    }
  }
}

/* Claims the first free slot for this process; its index, or -1 when all are held by live processes. */
static int claim_slot(pid_t self, uint64_t start) {
  if (table == NULL) return -1;
  for (int i = 0; i < slice_total; ++i) {
    int holder_pid = __atomic_load_n(&table->slot[i], __ATOMIC_ACQUIRE);
    if (holder_pid == self) return i;
    if (holder_pid != 0 && !process_gone(holder_pid, __atomic_load_n(&table->slot_start[i], __ATOMIC_ACQUIRE))) {
      continue;
    }
    if (__atomic_compare_exchange_n(&table->slot[i], &holder_pid, self, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&table->slot_start[i], start, __ATOMIC_RELEASE);
      return i;
    }
  }
  return -1;
}

/* Gives slot `slot` back. */
static void release_slot(int slot) {
  int self = (int)getpid();
  if (table != NULL && slot >= 0 && slot < slice_total) {
    __atomic_compare_exchange_n(&table->slot[slot], &self, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
}

/* This process's placement: its slice's CPUs, or the worker's. */
static void placement_mask(cpu_set_t* set) {
  if (current_slice < 0 || slice_cpus(current_slice, set) != 0) *set = worker_cpus;
}

/* Decides where a new process runs (`parent_slice`: its parent's slice, -1 for none; `may_hold`: it may
 * claim a free slice), moves it there and records it. */
static void place_in_tree(pid_t self, uint64_t start, int parent_slice, int may_hold) {
  holder = 0;
  current_slice = -1;
  if (slice_total > 0 && may_hold) {
    const int slot = claim_slot(self, start);
    if (slot >= 0) {
      holder = 1;
      current_slice = slot;
    }
  }
  if (current_slice < 0) current_slice = parent_slice;
  cpu_set_t set;
  placement_mask(&set);
  set_affinity(&set);
  record_placement(&set);
}

/* ---- After fork: async-signal-safe only ---- */

static void after_fork_in_child(void) {
  ++team_generation; /* the child's threads fix their OpenMP teams for its own placement */
  is_main = 0;
  stands_in = 0;
  self_entry = NULL;
  if (!placing) return;
  const pid_t self = (pid_t)syscall(SYS_getpid);
  const uint64_t start = start_time(0);
  self_entry = claim_entry(self, start);
  if (own_affinity) {
    /* The program's own pin holds for what it starts, as it was. */
    add_flags(PLACE_OWN_AFFINITY);
    holder = 0;
    return;
  }
  place_in_tree(self, start, current_slice, 1);
}

/* ---- After exec: the constructor ---- */

/* Whether this process is a helper that does no work of its own: a shell, a wrapper that runs
 * another program (timeout, env, nice, mptrain…), or Python's resource tracker (multiprocessing's or
 * loky's), semaphore tracker or forkserver. */
static int is_helper(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    const char* name = strrchr(exe, '/');
    name = name != NULL ? name + 1 : exe;
    static const char* const wrappers[] = {
        "sh",   "bash",    "dash",    "zsh",    "ksh",     "mksh",   "busybox", "env",     "timeout", "time",
        "nice", "ionice",  "nohup",   "setsid", "unshare", "stdbuf", "chrt",    "setpriv", "runuser", "sudo",
        "su",   "taskset", "numactl", "strace", "ltrace",  "xargs",  "flock",   "mptrain", "prlimit", "chronic"};
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; ++i) {
      if (strcmp(name, wrappers[i]) == 0) return 1;
    }
  }
  char cmdline[8192];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t length = read(fd, cmdline, sizeof cmdline - 1);
  close(fd);
  if (length <= 0) return 0;
  for (ssize_t i = 0; i < length; ++i) {
    if (cmdline[i] == '\0') cmdline[i] = ' ';
  }
  cmdline[length] = '\0';
  /* multiprocessing's trackers, and loky's (joblib): "from joblib.externals.loky.backend.resource_tracker import main".
   */
  return strstr(cmdline, "resource_tracker import main") != NULL ||
         strstr(cmdline, "multiprocessing.resource_tracker") != NULL ||
         strstr(cmdline, "multiprocessing.semaphore_tracker") != NULL ||
         strstr(cmdline, "multiprocessing.forkserver") != NULL;
}

/* The entry of this process's nearest ancestor in the table, NULL when none has one. */
static struct place_process* ancestor_entry(void) {
  pid_t pid = getppid();
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    struct proc_stat info;
    read_stat(pid, &info); /* all zero when gone: any entry of `pid`, and no parent to go on to */
    struct place_process* entry = find_entry(pid, info.start);
    if (entry != NULL) return entry;
    pid = info.parent;
  }
  return NULL;
}

/* Says once, on stderr, that this process keeps an affinity of its own (`brought`: it came across exec). */
static void warn_own_affinity(int brought);

/* Writes `set` as OMP_PLACES (one place per CPU) with OMP_PROC_BIND=close, for the OpenMP runtime this
 * fresh image will start (in the constructor: no program code runs yet); the user's own placement wins. */
static void place_openmp(const cpu_set_t* set) {
  if (getenv("OMP_PLACES") != NULL || getenv("GOMP_CPU_AFFINITY") != NULL) return;
  char places[8192];
  size_t used = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && used + 16 < sizeof places; ++cpu) {
    if (!CPU_ISSET(cpu, set)) continue;
    used += (size_t)snprintf(places + used, sizeof places - used, "%s{%d}", used == 0 ? "" : ",", cpu);
  }
  setenv("OMP_PLACES", places, 1);
  setenv("OMP_PROC_BIND", "close", 1);
  unsetenv("KMP_AFFINITY");
}

/* Writes the places the launcher gives the worker's OpenMP runtimes ("{0},{1}", procmgr/environment.cpp)
 * into `out`; 0 when they do not fit. */
static int worker_places(char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &worker_cpus)) continue;
    const int n = snprintf(out + used, size - used, "%s{%d}", used == 0 ? "" : ",", cpu);
    if (n < 0 || (size_t)n >= size - used) return 0;
    used += (size_t)n;
  }
  return 1;
}

/* A process that shares the worker's CPUs with others of the tree (a program the worker started, not a
 * slice's holder) inherited the worker's OpenMP places: its runtime would bind its first threads to the
 * first of them, where every such process's would go. Those the launcher set (not the user's own) are
 * dropped before the program runs, so its threads float over the CPUs; a runtime that read them already
 * is kept off them by the affinity wrappers below. */
static void drop_worker_openmp_places(void) {
  const char* inherited = getenv("OMP_PLACES");
  char places[8192];
  if (inherited == NULL || !worker_places(places, sizeof places) || strcmp(inherited, places) != 0) return;
  unsetenv("OMP_PLACES");
  unsetenv("OMP_PROC_BIND");
  const char* kmp = getenv("KMP_AFFINITY");
  if (kmp != NULL && strncmp(kmp, "granularity=fine,explicit,proclist=[", 36) == 0) unsetenv("KMP_AFFINITY");
}

static void share_inherited_pools(void);

/* A process on the worker's CPUs (no slice's holder) under `parent`, its nearest placed ancestor: a
 * wrapper the worker's main process runs (sh -c, timeout) passes the worker's place on, and the working
 * process such wrappers start stands for the worker (its runtime binds as the worker's would); so does
 * one under no known ancestor (a dry run's line run by hand). Any other shares the CPUs with the rest
 * of the tree, and loses the worker's OpenMP places. */
static void in_worker_place(const struct place_process* parent, int helper) {
  const int passed_on = parent == NULL || (parent->flags & PLACE_PASSES_ON) != 0;
  if (passed_on && helper) {
    add_flags(PLACE_PASSES_ON);
  } else if (passed_on && slice_total == 0) {
    stands_in = 1;
  } else {
    drop_worker_openmp_places();
    if (!helper) share_inherited_pools();
  }
}

/* A forked copy of the tree, placed at fork (`entry`), that exec'd: keeps its placement, unless it brought a
 * mask of its own (`now`, read when `known`); a wrapper or shell (`helper`) gives its slice back. */
static void keep_forked_placement(struct place_process* entry, int helper, int known, const cpu_set_t* now) {
  self_entry = entry;
  prctl(PR_GET_NAME, entry->comm, 0, 0, 0); /* the program it exec'd, not the one that forked it */
  current_slice = entry->slice;
  holder = (entry->flags & PLACE_HOLDER) != 0;
  cpu_set_t placed;
  entry_mask(entry, &placed);
  place_cpus = CPU_COUNT(&placed);
  if (entry->flags & PLACE_OWN_AFFINITY) {
    own_affinity = 1;
    return;
  }
  if (known && !CPU_EQUAL(now, &placed) && !(entry->flags & PLACE_RUNTIME_BOUND)) {
    own_affinity = 1;
    add_flags(PLACE_OWN_AFFINITY);
    warn_own_affinity(1);
    return;
  }
  if (holder && helper) {
    /* A wrapper or shell gives the slice back: the program it runs may claim it. */
    release_slot(current_slice);
    holder = 0;
    __atomic_and_fetch(&entry->flags, ~PLACE_HOLDER, __ATOMIC_ACQ_REL);
    struct place_process* parent = ancestor_entry();
    current_slice = parent != NULL ? parent->slice : -1;
  }
  if (helper) add_flags(PLACE_HELPER);
  placement_mask(&placed);
  set_affinity(&placed);
  record_placement(&placed);
  if (holder) {
    place_openmp(&placed);
  } else {
    in_worker_place(ancestor_entry(), helper);
  }
}

/* A process new to the tree (`self`, started at `start`): claims an entry and is placed under its nearest
 * placed ancestor, unless it or that ancestor brought a mask of its own (`now`, read when `known`). */
static void place_new_process(pid_t self, uint64_t start, int helper, int known, const cpu_set_t* now) {
  struct place_process* parent = ancestor_entry();
  self_entry = claim_entry(self, start);
  if (helper) add_flags(PLACE_HELPER);
  if (parent != NULL && (parent->flags & PLACE_OWN_AFFINITY)) {
    own_affinity = 1;
    add_flags(PLACE_OWN_AFFINITY);
    return;
  }
  if (parent != NULL && known) {
    cpu_set_t placed;
    entry_mask(parent, &placed);
    CPU_AND(&placed, &placed, &worker_cpus);
    if (!CPU_EQUAL(now, &placed) && !(parent->flags & PLACE_RUNTIME_BOUND)) {
      own_affinity = 1;
      add_flags(PLACE_OWN_AFFINITY);
      warn_own_affinity(1);
      return;
    }
  }
  place_in_tree(self, start, parent != NULL ? parent->slice : -1, !helper);
  if (holder) {
    cpu_set_t set;
    placement_mask(&set);
    place_openmp(&set);
  } else {
    in_worker_place(parent, helper);
  }
}

/* Places this fresh image: the worker itself, a forked copy of the tree that exec'd, or a process
 * started without our fork (vfork, posix_spawn). A mask it brought that neither this library nor a
 * runtime set is the program's own pin (taskset, numactl): kept. */
static void place_after_exec(void) {
  const pid_t self = getpid();
  const uint64_t start = start_time(0);
  const int helper = is_helper();
  if (!brought_known && sched_getaffinity(0, sizeof brought_mask, &brought_mask) == 0) brought_known = 1;
  const cpu_set_t now = brought_mask;
  struct place_process* entry = find_entry(self, start);
  if (entry != NULL) {
    keep_forked_placement(entry, helper, brought_known, &now);
  } else {
    place_new_process(self, start, helper, brought_known, &now);
  }
}

/* The descriptor of the worker's tree table: opened by its path (/proc/PID/fd/N of mptrain), else, for a
 * process that may not open mptrain's descriptors (run as another user), the same N that the worker
 * inherited, when it is still the table; -1 when neither. */
static int open_table(const char* path) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int error = errno;
  const char* number = strrchr(path, '/');
  char own[64], link[128];
  ssize_t n = -1;
  if (number != NULL) {
    snprintf(own, sizeof own, "/proc/self/fd/%s", number + 1);
    n = readlink(own, link, sizeof link - 1);
  }
  if (n > 0) {
    link[n] = '\0';
    if (strstr(link, "memfd:mptrain-tree") != NULL && (fd = open(own, O_RDWR | O_CLOEXEC)) >= 0) return fd;
  }
  errno = error;
  return -1;
}

/* Says once, on stderr, that this process cannot reach its worker's tree table (`path`). */
static void warn_no_table(const char* path, int error) {
  char line[512];
  int length = snprintf(line, sizeof line,
                        "mptrain: warning: process %d cannot open its worker's tree table %s (%s): the processes "
                        "it starts get no --children slices, and their pools are not shared out\n",
                        (int)getpid(), path, strerror(error));
  if (length > 0) (void)!write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/* The worker's tree table, mapped shared (a forked child inherits the mapping); NULL when unreachable. */
static struct place_table* map_table(const char* path) {
  if (path == NULL) return NULL;
  int fd = open_table(path);
  if (fd < 0) {
    warn_no_table(path, errno);
    return NULL;
  }
  struct stat info;
  void* mapped = MAP_FAILED;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && (size_t)info.st_size >= sizeof(struct place_table)) {
    mapped = mmap(NULL, sizeof(struct place_table), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (mapped == MAP_FAILED) return NULL;
  struct place_table* mapped_table = mapped;
  return mapped_table->magic == PLACE_TABLE_MAGIC ? mapped_table : NULL;
}

/* ---- Thread pools: the room a pool has, and the calls that size pools ---- */

/* The threads the plan gives this process's placement: floor(T/K) in a slice, T on the worker's CPUs. */
static int planned_threads(void) { return current_slice >= 0 && child_pool > 0 ? child_pool : worker_pool; }

/* The threads the pools of this placement may hold together: the plan's, which a CPU quota or
 * `--bind none` can make fewer than the CPUs the placement spans (a pool sized to the CPUs it sees
 * would then be throttled, or crowd the other workers on the same CPUs); its CPUs where no plan
 * was passed. */
static int pool_budget(void) { return planned_threads() > 0 ? planned_threads() : place_cpus; }

/* Notes in this process's entry that it is busy now (a sizing call, or leaving a parallel region);
 * the time, in ms. */
static int64_t mark_active(void) {
  const int64_t now = now_ms();
  if (self_entry != NULL && __atomic_load_n(&self_entry->active_ms, __ATOMIC_RELAXED) != now) {
    __atomic_store_n(&self_entry->active_ms, now, __ATOMIC_RELAXED);
  }
  return now;
}

/* Notes that this process enters (`inside` 1) or leaves (0) a parallel region: while inside it shares its
 * placement however long the region lasts. */
static void mark_region(int inside) {
  if (self_entry == NULL || !placing || !capping || own_affinity) return;
  if (inside) {
    if (__atomic_load_n(&self_entry->active_ms, __ATOMIC_RELAXED) != PLACE_IN_REGION) {
      __atomic_store_n(&self_entry->active_ms, PLACE_IN_REGION, __ATOMIC_RELAXED);
    }
  } else {
    mark_active();
  }
}

/* The processes of this placement that are busy, this one included: in a parallel region, out of one
 * or started for less than PLACE_ACTIVE_MS (a sibling forked a moment ago is about to work: a fork burst
 * shares the room from the first sizing call on), or (a pool capped to one thread runs no regions) that
 * used a third of a CPU or more since this process last looked, at most once every PLACE_ACTIVE_MS; not
 * this process's parent, unless it is in a region of its own. */
static int sharers(void) {
  static __thread int64_t counted_at = -PLACE_ACTIVE_MS;
  static __thread int counted = 1;
  static __thread struct {
    int pid;
    uint64_t cpu; /* its CPU time then, in clock ticks */
    int64_t at;   /* when, in ms */
  } seen[32];
  if (self_entry == NULL || table == NULL) return 1;
  const int64_t now = mark_active();
  if (now - counted_at < PLACE_ACTIVE_MS) return counted;
  const long hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  int count = 1;
  const int used = __atomic_load_n(&table->used, __ATOMIC_ACQUIRE);
  for (int i = 0; i < used && i < PLACE_MAX_PROCESSES; ++i) {
    const struct place_process* entry = &table->process[i];
    const int pid = __atomic_load_n(&entry->pid, __ATOMIC_RELAXED);
    if (pid == 0 || entry == self_entry || entry->slice != current_slice) continue;
    if (entry->flags & (PLACE_HELPER | PLACE_OWN_AFFINITY)) continue;
    const int64_t active = __atomic_load_n(&entry->active_ms, __ATOMIC_RELAXED);
    /* The parent that has just forked this process waits for it, unless it is in a region of its own. */
    if (pid == (int)getppid() && active != PLACE_IN_REGION) continue;
    if (now - active <= PLACE_ACTIVE_MS) {
      ++count;
      continue;
    }
    struct proc_stat info;
    if (read_stat(pid, &info) != 0 || info.state == 'Z') continue;
    const uint64_t cpu = info.cpu;
    int slot = -1, free_slot = -1;
    for (int k = 0; k < 32; ++k) {
      if (seen[k].pid == pid) slot = k;
      if (seen[k].pid == 0 && free_slot < 0) free_slot = k;
    }
    if (slot >= 0 && now > seen[slot].at && (int64_t)(cpu - seen[slot].cpu) * 1000 * 3 >= (now - seen[slot].at) * hz) {
      ++count;
    }
    if (slot < 0) slot = free_slot >= 0 ? free_slot : (int)(pid % 32);
    seen[slot].pid = pid;
    seen[slot].cpu = cpu;
    seen[slot].at = now;
  }
  counted_at = now;
  counted = count;
  return counted;
}

/* Copies `text` into `out` of `size` bytes. */
static void copy_text(char* out, size_t size, const char* text) {
  size_t n = strlen(text);
  if (n >= size) n = size - 1;
  memcpy(out, text, n);
  out[n] = '\0';
}

/* Says once per tree, on stderr, that a pool was capped. */
static void note_cap(const char* call, int asked, int got, int shared) {
  if (table == NULL || __atomic_exchange_n(&table->noted, 1, __ATOMIC_ACQ_REL)) return;
  char name[17] = "?";
  prctl(PR_GET_NAME, name, 0, 0, 0);
  /* Control bytes, and C1 controls (0xC2 0x80-0x9F in UTF-8, which some terminals obey), as '?'. */
  for (unsigned char* c = (unsigned char*)name; *c != '\0'; ++c) {
    if (*c < 0x20 || *c == 0x7f) *c = '?';
    if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) c[0] = c[1] = '?';
  }
  char where[96];
  if (shared > 1) {
    snprintf(where, sizeof where, "%d CPU%s shared by %d busy processes", place_cpus, place_cpus == 1 ? "" : "s",
             shared);
  } else if (pool_budget() < place_cpus) {
    snprintf(where, sizeof where, "%s planned for %d thread%s on %d CPUs", current_slice >= 0 ? "a slice" : "a worker",
             pool_budget(), pool_budget() == 1 ? "" : "s", place_cpus);
  } else {
    snprintf(where, sizeof where, "%s of %d CPU%s", current_slice >= 0 ? "a slice" : "a worker", place_cpus,
             place_cpus == 1 ? "" : "s");
  }
  char line[512];
  int length = snprintf(line, sizeof line,
                        "mptrain: note: process %d (%s) asked for %d threads (%s) in %s: capped to %d; "
                        "--keep-program-threads keeps the program's count\n",
                        (int)getpid(), name, asked, call, where, got);
  if (length > 0) (void)!write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/* Keeps a request for `asked` threads (through `call`) that got `got` in this process's entry for the run's
 * report (the first request, replaced by each cap that differs from the one kept), and notes a cap (`shared`:
 * the busy processes of the placement). */
static void record_request(const char* call, int asked, int got, int shared) {
  const int record = self_entry != NULL && (self_entry->asked == 0 ||
                                            (got < asked && (self_entry->asked != asked || self_entry->got != got)));
  if (record) {
    self_entry->asked = asked;
    self_entry->got = got;
    copy_text(self_entry->call, sizeof self_entry->call, call);
    prctl(PR_GET_NAME, self_entry->comm, 0, 0, 0);
  }
  if (got < asked) note_cap(call, asked, got, shared);
}

/* The threads a pool that asks for `asked` (through `call`) may have: at most its process's room. */
static int capped(int asked, const char* call) {
  if (!placing || !capping || own_affinity) return asked;
  mark_active();
  if (asked <= 1 || place_cpus <= 0) return asked;
  const int shared = sharers();
  const int budget = pool_budget();
  int room = budget / shared;
  if (room < 1) room = 1;
  const int got = asked > room ? room : asked;
  record_request(call, asked, got, shared);
  return got;
}

/* ---- A pool in a process started to work beside others ---- */

/* Every variable that sizes a runtime's pool (the runtime table's, some more than once). */
static const char* const pool_variables[] = {
#define RUNTIME(id, name, variable, knob, barriers, lib1, lib2, lib3, source) variable,
#define SETTER(runtime, symbol, call, kind)
#include "util/runtime_table.def"
#undef SETTER
#undef RUNTIME
};

/* Whether variable `name` (none when "") is set to exactly `text`. */
static int holds(const char* name, const char* text) {
  const char* value = name[0] != '\0' ? getenv(name) : NULL;
  return value != NULL && strcmp(value, text) == 0;
}

/* The processes of this placement working beside this new one: live, in its slice, none of them a helper,
 * a process pinned by the program itself, the worker's main process, a wrapper passing its place on or this
 * process's parent (those wait for what they started), each started, sizing a pool or in a region in the
 * last PLACE_RECENT_MS. */
static int working_siblings(void) {
  if (table == NULL || self_entry == NULL) return 0;
  const int64_t now = now_ms();
  const pid_t parent = getppid();
  int count = 0;
  const int used = __atomic_load_n(&table->used, __ATOMIC_ACQUIRE);
  for (int i = 0; i < used && i < PLACE_MAX_PROCESSES; ++i) {
    const struct place_process* entry = &table->process[i];
    const int pid = __atomic_load_n(&entry->pid, __ATOMIC_ACQUIRE);
    if (pid == 0 || entry == self_entry || pid == (int)parent || entry->slice != current_slice) continue;
    if (__atomic_load_n(&entry->flags, __ATOMIC_ACQUIRE) &
        (PLACE_HELPER | PLACE_OWN_AFFINITY | PLACE_MAIN | PLACE_PASSES_ON)) {
      continue;
    }
    if (now - __atomic_load_n(&entry->active_ms, __ATOMIC_RELAXED) > PLACE_RECENT_MS) continue;
    if (!process_gone(pid, __atomic_load_n(&entry->start, __ATOMIC_ACQUIRE))) ++count;
  }
  return count;
}

/* Whether a thread of this process's parent is running or ready to (a pool's launcher starting more workers). */
static int parent_running(void) {
  char path[40];
  snprintf(path, sizeof path, "/proc/%d/task", (int)getppid());
  DIR* tasks = opendir(path);
  if (tasks == NULL) return 0;
  int running = 0;
  for (struct dirent* task; !running && (task = readdir(tasks)) != NULL;) {
    if (task->d_name[0] < '1' || task->d_name[0] > '9') continue;
    struct proc_stat info;
    running = read_stat((pid_t)atoi(task->d_name), &info) == 0 && info.state == 'R';
  }
  closedir(tasks);
  return running;
}

/* A process started to work beside others on its placement's CPUs (a loky or multiprocessing pool's worker,
 * a program run per item) inherited the thread counts the launcher set for the whole placement, and a pool
 * launcher that passes its own environment on (joblib does, for OMP_NUM_THREADS and the like) would give
 * each of its k workers all T threads: k x T on T CPUs. Before the program runs (its runtimes read them at
 * start), each count still at the plan's value is divided among the processes working on the placement now,
 * this one included; one set to another value stands. The siblings its parent starts with it are waited
 * for while a thread of the parent runs, at most PLACE_BURST_MS. A lone process keeps the plan's count. */
static void share_inherited_pools(void) {
  const int planned = planned_threads();
  if (!placing || !capping || own_affinity || planned <= 1) return;
  char planned_text[16];
  snprintf(planned_text, sizeof planned_text, "%d", planned);
  const size_t count = sizeof pool_variables / sizeof pool_variables[0];
  int inherited = 0;
  for (size_t i = 0; i < count && !inherited; ++i) inherited = holds(pool_variables[i], planned_text);
  if (!inherited) return;
  const struct timespec step = {0, 1000000};
  for (int waited = 0; waited < PLACE_BURST_MS && parent_running(); ++waited) nanosleep(&step, NULL);
  const int working = 1 + working_siblings();
  const int room = planned / working > 1 ? planned / working : 1;
  if (room >= planned) return;
  char room_text[16];
  snprintf(room_text, sizeof room_text, "%d", room);
  for (size_t i = 0; i < count; ++i) {
    if (holds(pool_variables[i], planned_text)) setenv(pool_variables[i], room_text, 1);
  }
  record_request("inherited variables", planned, room, working);
}

/* ---- Finding the runtimes' own functions ---- */

HIDDEN void* (*real_dlsym)(void*, const char*); /* libc's dlsym */

struct object_search {
  const char* name;
  void* found;
};

/* dl_iterate_phdr's visit: `name` in one loaded object other than this library. */
static int search_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct object_search* search = data;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') return 0;
  Dl_info self;
  if (dladdr((void*)search_object, &self) != 0 && self.dli_fbase == (void*)info->dlpi_addr) return 0;
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == NULL) return 0;
  void* found = real_dlsym != NULL ? real_dlsym(handle, search->name) : NULL;
  dlclose(handle);
  if (found == NULL) return 0;
  search->found = found;
  return 1;
}

/* The runtime's own `name`: the next definition after this library, or the first in any loaded
 * object (a library loaded with RTLD_LOCAL, as Python loads extension modules); NULL when none. */
static void* real_symbol(const char* name) {
  void* found = dlsym(RTLD_NEXT, name);
  if (found != NULL) return found;
  struct object_search search = {name, NULL};
  dl_iterate_phdr(search_object, &search);
  return search.found;
}

#define REAL(type, name)               \
  static __typeof__(type) real_##name; \
  if (real_##name == NULL) real_##name = (type)real_symbol(#name)

/* OpenMP's contract (dyn-var false, the default): a region without a num_threads clause gets exactly
 * omp_get_max_threads() threads, and programs split their work by that answer. So the cap is never
 * applied to a query or a team apart: it goes into the runtime's own nthreads-var, once per thread of a
 * process (at its first query or clause-less region, or at the program's own setter call), and every
 * query, C or Fortran, and every team agree with it from then on. A forked child fixes its own anew. */

/* Fixes this thread's OpenMP team at the room of its process (`call`: what asked, for the report), once;
 * only outside any region. */
static void fix_team(const char* call) {
  if (!placing || !capping || own_affinity || team_fixed_in == team_generation) return;
  REAL(int (*)(void), omp_get_level);
  REAL(int (*)(void), omp_get_max_threads);
  REAL(void (*)(int), omp_set_num_threads);
  if (real_omp_get_level == NULL || real_omp_get_max_threads == NULL || real_omp_set_num_threads == NULL) return;
  if (real_omp_get_level() > 0) return;
  team_fixed_in = team_generation;
  const int asked = real_omp_get_max_threads();
  const int got = capped(asked, call);
  if (got < asked) real_omp_set_num_threads(got);
}

/* The team a GNU OpenMP parallel region asking for `num_threads` (0: the ICV) starts with; `*outer` is
 * set when it is an outermost region (whose start and end mark the process busy). A clause is the
 * program's own count and stands (see the top); without one the team is the thread's fixed ICV, or,
 * where the program let the runtime choose (dyn-var true), the room its placement has now. */
static unsigned region_team(unsigned num_threads, int* outer) {
  *outer = 0;
  if (!placing || !capping || own_affinity) return num_threads;
  REAL(int (*)(void), omp_get_level);
  REAL(int (*)(void), omp_get_max_threads);
  REAL(int (*)(void), omp_get_dynamic);
  if (real_omp_get_level == NULL || real_omp_get_max_threads == NULL || real_omp_get_level() > 0) return num_threads;
  *outer = 1;
  if (num_threads > 0) {
    mark_region(1);
    return num_threads;
  }
  fix_team("parallel region");
  unsigned team = num_threads;
  if (real_omp_get_dynamic != NULL && real_omp_get_dynamic()) {
    const int asked = real_omp_get_max_threads();
    const int got = capped(asked, "parallel region");
    if (got < asked) team = (unsigned)got;
  }
  mark_region(1);
  return team;
}

/* Runs `call` as a region of `threads` asked for: the team capped, the process marked busy throughout. */
#define REGION(threads, call)                           \
  do {                                                  \
    int outer;                                          \
    const unsigned team = region_team(threads, &outer); \
    call;                                               \
    if (outer) mark_region(0);                          \
  } while (0)

typedef void (*region_fn)(void*);

/* The program's own setter: its count, capped to the room, is the thread's team from now on. */
VISIBLE void omp_set_num_threads(int count) {
  REAL(void (*)(int), omp_set_num_threads);
  if (real_omp_set_num_threads == NULL) return;
  real_omp_set_num_threads(capped(count, "omp_set_num_threads"));
  team_fixed_in = team_generation;
}

/* The count a program sizes its pools and clauses from: the runtime's own answer, once the team is fixed. */
VISIBLE int omp_get_max_threads(void) {
  REAL(int (*)(void), omp_get_max_threads);
  if (real_omp_get_max_threads == NULL) return 1;
  fix_team("omp_get_max_threads");
  return real_omp_get_max_threads();
}

/* The Fortran entry points (gfortran's `use omp_lib`; GNU and LLVM OpenMP both export them): as the C ones. */
VISIBLE void omp_set_num_threads_(const int32_t* count) {
  REAL(void (*)(const int32_t*), omp_set_num_threads_);
  if (real_omp_set_num_threads_ == NULL) return;
  const int32_t got = (int32_t)capped((int)*count, "omp_set_num_threads");
  real_omp_set_num_threads_(&got);
  team_fixed_in = team_generation;
}

VISIBLE void omp_set_num_threads_8_(const int64_t* count) {
  REAL(void (*)(const int64_t*), omp_set_num_threads_8_);
  if (real_omp_set_num_threads_8_ == NULL) return;
  const int asked = *count > INT32_MAX ? INT32_MAX : *count < INT32_MIN ? INT32_MIN : (int)*count;
  const int64_t got = capped(asked, "omp_set_num_threads");
  real_omp_set_num_threads_8_(&got);
  team_fixed_in = team_generation;
}

VISIBLE int32_t omp_get_max_threads_(void) {
  REAL(int32_t(*)(void), omp_get_max_threads_);
  if (real_omp_get_max_threads_ == NULL) return 1;
  fix_team("omp_get_max_threads");
  return real_omp_get_max_threads_();
}

/* The setters the runtime table (util/runtime_table.def) lists as void_int or void_long: capped, each
 * under its call name in the pools report. Those it lists as own are written here by hand. */
#define SETTER_void_int(symbol, call)                              \
  VISIBLE void symbol(int count) {                                 \
    REAL(void (*)(int), symbol);                                   \
    if (real_##symbol != NULL) real_##symbol(capped(count, call)); \
  }
#define SETTER_void_long(symbol, call)                                  \
  VISIBLE void symbol(long count) {                                     \
    REAL(void (*)(long), symbol);                                       \
    if (real_##symbol != NULL) real_##symbol(capped((int)count, call)); \
  }
#define SETTER_own(symbol, call)
#define RUNTIME(id, name, variable, knob, barriers, lib1, lib2, lib3, source)
#define SETTER(runtime, symbol, call, kind) SETTER_##kind(symbol, call)
#include "util/runtime_table.def"
#undef SETTER
#undef RUNTIME

VISIBLE int mkl_set_num_threads_local(int count) {
  REAL(int (*)(int), mkl_set_num_threads_local);
  if (real_mkl_set_num_threads_local == NULL) return 0;
  return real_mkl_set_num_threads_local(count == 0 ? 0 : capped(count, "mkl_set_num_threads_local"));
}

VISIBLE void GOMP_parallel(region_fn fn, void* data, unsigned threads, unsigned flags) {
  REAL(void (*)(region_fn, void*, unsigned, unsigned), GOMP_parallel);
  REGION(threads, real_GOMP_parallel(fn, data, team, flags));
}

VISIBLE unsigned GOMP_parallel_reductions(region_fn fn, void* data, unsigned threads, unsigned flags) {
  REAL(unsigned (*)(region_fn, void*, unsigned, unsigned), GOMP_parallel_reductions);
  unsigned result = 0;
  REGION(threads, result = real_GOMP_parallel_reductions(fn, data, team, flags));
  return result;
}

VISIBLE void GOMP_parallel_start(region_fn fn, void* data, unsigned threads) {
  REAL(void (*)(region_fn, void*, unsigned), GOMP_parallel_start);
  int outer; /* GOMP_parallel_end marks the end */
  real_GOMP_parallel_start(fn, data, region_team(threads, &outer));
}

VISIBLE void GOMP_parallel_end(void) {
  REAL(void (*)(void), GOMP_parallel_end);
  REAL(int (*)(void), omp_get_level);
  real_GOMP_parallel_end();
  if (real_omp_get_level != NULL && real_omp_get_level() == 0) mark_region(0);
}

VISIBLE void GOMP_parallel_sections(region_fn fn, void* data, unsigned threads, unsigned count, unsigned flags) {
  REAL(void (*)(region_fn, void*, unsigned, unsigned, unsigned), GOMP_parallel_sections);
  REGION(threads, real_GOMP_parallel_sections(fn, data, team, count, flags));
}

/* The combined parallel loops with a chunk size. */
#define PARALLEL_LOOP(name)                                                                                  \
  VISIBLE void name(region_fn fn, void* data, unsigned threads, long start, long end, long step, long chunk, \
                    unsigned flags) {                                                                        \
    REAL(void (*)(region_fn, void*, unsigned, long, long, long, long, unsigned), name);                      \
    REGION(threads, real_##name(fn, data, team, start, end, step, chunk, flags));                            \
  }
PARALLEL_LOOP(GOMP_parallel_loop_static)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_guided)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

/* The combined parallel loops whose schedule is chosen at run time. */
#define PARALLEL_RUNTIME_LOOP(name)                                                                                \
  VISIBLE void name(region_fn fn, void* data, unsigned threads, long start, long end, long step, unsigned flags) { \
    REAL(void (*)(region_fn, void*, unsigned, long, long, long, unsigned), name);                                  \
    REGION(threads, real_##name(fn, data, team, start, end, step, flags));                                         \
  }
PARALLEL_RUNTIME_LOOP(GOMP_parallel_loop_runtime)
PARALLEL_RUNTIME_LOOP(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_RUNTIME_LOOP(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* The sizing calls a program may reach through a library handle (ctypes, threadpoolctl:
 * dlsym(handle, name)), and this library's own version of each. */
static const struct {
  const char* name;
  void* ours;
} sizing_calls[] = {
    {"omp_set_num_threads", (void*)omp_set_num_threads},
    {"openblas_set_num_threads", (void*)openblas_set_num_threads},
    {"goto_set_num_threads", (void*)goto_set_num_threads},
    {"mkl_set_num_threads", (void*)mkl_set_num_threads},
    {"MKL_Set_Num_Threads", (void*)MKL_Set_Num_Threads},
    {"mkl_set_num_threads_local", (void*)mkl_set_num_threads_local},
    {"bli_thread_set_num_threads", (void*)bli_thread_set_num_threads},
};

HIDDEN void* place_resolve_dlsym(void);

/* dlsym(handle, name) for a library handle: a sizing call comes back as this library's version
 * when the handle's definition is the one this library forwards to. Another library's constructor
 * may call it before this library's constructor has run: libc's dlsym is found on first use. */
HIDDEN void* place_dlsym_by_handle(void* handle, const char* name) {
  if (real_dlsym == NULL && place_resolve_dlsym() == NULL) return NULL;
  void* found = real_dlsym(handle, name);
  if (found == NULL || !placing || !capping) return found;
  for (size_t i = 0; i < sizeof sizing_calls / sizeof sizing_calls[0]; ++i) {
    if (strcmp(name, sizing_calls[i].name) != 0) continue;
    return real_symbol(name) == found ? sizing_calls[i].ours : found;
  }
  return found;
}

/* libc's dlsym, found by version (dlvsym itself is never interposed here). */
HIDDEN void* place_resolve_dlsym(void) {
  if (real_dlsym == NULL) real_dlsym = (void* (*)(void*, const char*))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (real_dlsym == NULL) real_dlsym = (void* (*)(void*, const char*))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  return (void*)real_dlsym;
}

#if defined(__x86_64__)
/* dlsym: RTLD_DEFAULT and RTLD_NEXT look up from their caller's object, so those go to libc's dlsym
 * by a jump that keeps the caller's return address; a library handle goes to place_dlsym_by_handle. */
__asm__(
    "  .text\n"
    "  .globl dlsym\n"
    "  .type dlsym, @function\n"
    "dlsym:\n"
    "  testq %rdi, %rdi\n"
    "  je 1f\n"
    "  cmpq $-1, %rdi\n"
    "  je 1f\n"
    "  jmp place_dlsym_by_handle\n"
    "1:\n"
    "  movq real_dlsym(%rip), %rax\n"
    "  testq %rax, %rax\n"
    "  jne 2f\n"
    "  pushq %rdi\n"
    "  pushq %rsi\n"
    "  subq $8, %rsp\n"
    "  call place_resolve_dlsym\n"
    "  addq $8, %rsp\n"
    "  popq %rsi\n"
    "  popq %rdi\n"
    "2:\n"
    "  jmp *%rax\n"
    "  .size dlsym, .-dlsym\n");
#endif

/* ---- Affinity calls ---- */

/* Whether the caller at `address` is an OpenMP runtime (its own binding, which the rules above override). */
static int called_by_runtime(void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == NULL) return 0;
  return strstr(info.dli_fname, "libgomp") != NULL || strstr(info.dli_fname, "libomp") != NULL ||
         strstr(info.dli_fname, "libiomp") != NULL;
}

static void warn_own_affinity(int brought) {
  static int warned = 0;
  if (__atomic_exchange_n(&warned, 1, __ATOMIC_ACQ_REL)) return;
  char name[64] = "?";
  int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, name, sizeof name - 1);
    close(fd);
    name[n > 0 ? n : 0] = '\0';
    name[strcspn(name, "\n")] = '\0';
  }
  /* The name is the program's to choose (prctl, exec): control bytes are shown as \xHH, never sent to a terminal. */
  char shown[4 * sizeof name];
  size_t at = 0;
  for (const char* c = name; *c != '\0' && at + 5 < sizeof shown; ++c) {
    const unsigned char byte = (unsigned char)*c;
    if (byte < 0x20 || byte == 0x7f) {
      at += (size_t)snprintf(shown + at, sizeof shown - at, "\\x%02x", byte);
    } else {
      shown[at++] = (char)byte;
    }
  }
  shown[at] = '\0';
  char line[512];
  int length = snprintf(line, sizeof line,
                        "mptrain: warning: process %d (%s) %s a CPU affinity of its own; mptrain leaves it, its "
                        "threads and the processes it starts where the program puts them, and does not cap "
                        "their pools\n",
                        (int)getpid(), shown, brought ? "started with" : "set");
  if (length > 0) (void)!write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/* The mask an affinity call from `caller` may set: the program's own call wins as it is (and is
 * remembered); an OpenMP runtime's is kept inside this process's placement (its CPUs there, or the
 * whole placement when it names none of them) where the placement is the process's own (the worker,
 * a slice's holder), and is the whole placement where processes share it. `*size` is the size of `set`
 * in bytes, and becomes that of the mask returned. */
static const cpu_set_t* allowed_mask(void* caller, size_t* size, const cpu_set_t* set, cpu_set_t* room,
                                     int* program_call) {
  *program_call = 0;
  const int runtime = called_by_runtime(caller);
  if (!placing) {
    /* A runtime's constructor (GNU OpenMP binds its main thread when it loads, before this library's
     * constructor runs): the mask the process brought across exec is the one before that call. */
    if (runtime && !brought_known && sched_getaffinity(0, sizeof brought_mask, &brought_mask) == 0) brought_known = 1;
    return set;
  }
  if (!runtime) {
    *program_call = 1;
    return set;
  }
  add_flags(PLACE_RUNTIME_BOUND);
  if (*size > sizeof *room || own_affinity) return set;
  /* A runtime sizes its masks to the CPUs the machine has (GNU OpenMP: 8 bytes for up to 64 CPUs), often
   * smaller than a cpu_set_t: read what it gave, and set the room in a whole one. */
  cpu_set_t asked;
  CPU_ZERO(&asked);
  memcpy(&asked, set, *size);
  *size = sizeof *room;
  cpu_set_t placed;
  placement_mask(&placed);
  if (!is_main && !stands_in && !holder) {
    /* Its CPUs are shared with other processes of the tree, whose runtimes would bind to the same first
     * places: its threads float over them. */
    *room = placed;
    return room;
  }
  CPU_AND(room, &asked, &placed);
  if (CPU_COUNT(room) == 0) *room = placed;
  return room;
}

/* Remembers, and says once, that the program set an affinity of its own — only after its call
 * succeeded (`result` 0) with a mask other than the one it had (`before`, of `size` bytes; `known` 0
 * when it could not be read): a call that failed, or that re-set the same mask, changed nothing. */
static void note_program_call(int result, int known, const cpu_set_t* before, size_t size, const cpu_set_t* set) {
  if (result != 0) return;
  if (known && CPU_EQUAL_S(size, before, set)) return;
  own_affinity = 1;
  add_flags(PLACE_OWN_AFFINITY);
  warn_own_affinity(0);
}

/* Masks larger than this many bytes are not compared (taken as a change). */
#define COMPARED_MASK_BYTES 1024

/* One affinity call of the program's or a runtime's (`caller`): `apply` sets a mask on `target` (a pid, a
 * thread, a thread's attributes), `read` reads the mask it had (NULL: none to compare). A runtime's mask
 * is kept in the placement (allowed_mask); the program's is applied as it is, and noted once it changed
 * something. */
typedef int (*apply_fn)(const void* target, size_t size, const cpu_set_t* set);
typedef int (*read_fn)(const void* target, size_t size, cpu_set_t* set);
static int affinity_call(void* caller, apply_fn apply, read_fn read, const void* target, size_t size,
                         const cpu_set_t* set) {
  cpu_set_t room;
  int program_call;
  size_t room_size = size;
  const cpu_set_t* mask = allowed_mask(caller, &room_size, set, &room, &program_call);
  if (!program_call) return apply(target, room_size, mask);
  unsigned long before[COMPARED_MASK_BYTES / sizeof(unsigned long)];
  const int known = size <= sizeof before && read(target, size, (cpu_set_t*)before) == 0;
  const int result = apply(target, size, mask);
  note_program_call(result, known, (const cpu_set_t*)before, size, set);
  return result;
}

static int (*real_sched_setaffinity)(pid_t, size_t, const cpu_set_t*);
static int apply_to_process(const void* pid, size_t size, const cpu_set_t* set) {
  return real_sched_setaffinity(*(const pid_t*)pid, size, set);
}
static int read_of_process(const void* pid, size_t size, cpu_set_t* set) {
  return sched_getaffinity(*(const pid_t*)pid, size, set);
}

VISIBLE int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  if (real_sched_setaffinity == NULL)
    real_sched_setaffinity = (int (*)(pid_t, size_t, const cpu_set_t*))dlsym(RTLD_NEXT, "sched_setaffinity");
  if (pid != 0 && pid != getpid()) return real_sched_setaffinity(pid, size, set);
  return affinity_call(__builtin_return_address(0), apply_to_process, read_of_process, &pid, size, set);
}

static int (*real_pthread_setaffinity_np)(pthread_t, size_t, const cpu_set_t*);
static int apply_to_thread(const void* thread, size_t size, const cpu_set_t* set) {
  return real_pthread_setaffinity_np(*(const pthread_t*)thread, size, set);
}
static int read_of_thread(const void* thread, size_t size, cpu_set_t* set) {
  return pthread_getaffinity_np(*(const pthread_t*)thread, size, set);
}

VISIBLE int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* set) {
  if (real_pthread_setaffinity_np == NULL)
    real_pthread_setaffinity_np =
        (int (*)(pthread_t, size_t, const cpu_set_t*))dlsym(RTLD_NEXT, "pthread_setaffinity_np");
  return affinity_call(__builtin_return_address(0), apply_to_thread, read_of_thread, &thread, size, set);
}

/* A thread's mask set before it starts (GNU OpenMP places each thread of a team this way); compared
 * with the creating thread's. */
static int (*real_pthread_attr_setaffinity_np)(pthread_attr_t*, size_t, const cpu_set_t*);
static int apply_to_attributes(const void* attr, size_t size, const cpu_set_t* set) {
  return real_pthread_attr_setaffinity_np((pthread_attr_t*)attr, size, set);
}
static int read_of_creator(const void* attr, size_t size, cpu_set_t* set) {
  (void)attr;
  return pthread_getaffinity_np(pthread_self(), size, set);
}

VISIBLE int pthread_attr_setaffinity_np(pthread_attr_t* attr, size_t size, const cpu_set_t* set) {
  if (real_pthread_attr_setaffinity_np == NULL)
    real_pthread_attr_setaffinity_np =
        (int (*)(pthread_attr_t*, size_t, const cpu_set_t*))dlsym(RTLD_NEXT, "pthread_attr_setaffinity_np");
  return affinity_call(__builtin_return_address(0), apply_to_attributes, read_of_creator, attr, size, set);
}

static pid_t (*real_fork)(void);

/* fork, then the placement of the child: after every handler of pthread_atfork has run, so that a
 * runtime's own child handler (LLVM's OpenMP resets the affinity it started with) does not undo it. */
VISIBLE pid_t fork(void) {
  if (real_fork == NULL) real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  const pid_t pid = real_fork();
  if (pid == 0) after_fork_in_child();
  return pid;
}

/* A positive number from variable `name`, 0 when unset or not one. */
static int positive_variable(const char* name) {
  const char* text = getenv(name);
  if (text == NULL) return 0;
  long value = parse_number(&text);
  return value > 0 && *text == '\0' ? (int)value : 0;
}

__attribute__((constructor)) static void start(void) {
  place_resolve_dlsym();
  real_fork = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  const char* cpus = getenv(PLACE_VAR_CPUS);
  if (cpus == NULL || parse_cpu_list(cpus, &worker_cpus) != 0) return;
  const char* slices = getenv(PLACE_VAR_SLICES);
  if (slices != NULL && *slices != '\0' && strlen(slices) < sizeof slices_text) {
    copy_text(slices_text, sizeof slices_text, slices);
    slice_total = 1;
    for (const char* at = slices_text; *at != '\0'; ++at) slice_total += *at == ';';
    if (slice_total > PLACE_MAX_SLICES) slice_total = PLACE_MAX_SLICES;
  }
  worker_pool = positive_variable(PLACE_VAR_POOL);
  child_pool = positive_variable(PLACE_VAR_THREADS);
  const char* keep = getenv(PLACE_VAR_KEEP);
  capping = keep == NULL || strcmp(keep, "1") != 0;
  table = map_table(getenv(PLACE_VAR_TABLE));
  placing = 1;
  const int launcher = positive_variable(PLACE_VAR_LAUNCHER);
  if (launcher != 0 && getppid() == (pid_t)launcher) {
    /* The worker itself (or a program it exec'd in its place): the launcher placed it. */
    is_main = 1;
    const pid_t self = getpid();
    const uint64_t begun = start_time(0);
    self_entry = find_entry(self, begun);
    if (self_entry == NULL) self_entry = claim_entry(self, begun);
    add_flags(is_helper() ? PLACE_MAIN | PLACE_PASSES_ON : PLACE_MAIN);
    current_slice = -1;
    record_placement(&worker_cpus);
    return;
  }
  place_after_exec();
}

/* Every setter the runtime table lists as own is written above: a row without its function fails the build. */
#define SETTER_checked_own(symbol) __attribute__((used)) static const void* const own_##symbol = (const void*)&symbol;
#define SETTER_checked_void_int(symbol)
#define SETTER_checked_void_long(symbol)
#define RUNTIME(id, name, variable, knob, barriers, lib1, lib2, lib3, source)
#define SETTER(runtime, symbol, call, kind) SETTER_checked_##kind(symbol)
#include "util/runtime_table.def"
#undef SETTER
#undef RUNTIME
