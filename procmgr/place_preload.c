/* libmptrain_place.so: preloaded (LD_PRELOAD) into every process of a
 * worker's tree by `mptrain run -- CMD`, it places the processes a program
 * starts itself, the moment they start: after fork (it wraps fork) and
 * after exec (its constructor). Written in C, with libc only:
 * it is loaded into programs that are not ours, and brings no C++ runtime.
 *
 * What it reads (set by the launcher, procmgr/environment.cpp):
 *   MPTRAIN_PLACE_CPUS      the worker's CPUs ("0-3,8")
 *   MPTRAIN_PLACE_SLICES    with --children K: the K slices, "0-1;2-3"
 *   MPTRAIN_PLACE_TABLE     with --children K: the worker's slot table, a
 *                           file of K pids (0: free) that every process of
 *                           the tree maps shared
 *   MPTRAIN_PLACE_THREADS   with --children K: each child's threads, floor(T/K)
 * and what it writes into the environment of the tree:
 *   MPTRAIN_PLACE_MAIN      the worker's own pid (set in the worker itself)
 *   MPTRAIN_PLACE_SLICE     the slice an ancestor holds (its descendants stay in it)
 *
 * The rules (mptrain-run(1), "Process trees"):
 *   - the worker's main process keeps the CPUs the launcher gave it;
 *   - with slices, each working child (not a shell, not Python's resource
 *     tracker or forkserver) claims the first free slice and runs there,
 *     its OpenMP threads placed in it when its runtime starts after it;
 *     a child's descendants stay in its slice; a slice is free again when
 *     its holder has exited; past K working children, the others float
 *     over the worker's CPUs;
 *   - without slices, a process that inherited fewer CPUs than the worker
 *     has (a parent's main thread bound by OpenMP) gets the worker's CPUs;
 *   - a program that set its own affinity (sched_setaffinity or
 *     pthread_setaffinity_np from its own code, not from an OpenMP
 *     runtime) keeps it, and so do the processes it starts; it says so
 *     once on stderr (and mptrain's thread spreader leaves such threads).
 * Nothing is done when MPTRAIN_PLACE_CPUS is unset or unreadable.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SLICES 1024
#define VISIBLE __attribute__((visibility("default")))

static cpu_set_t worker_cpus; /* MPTRAIN_PLACE_CPUS */
static int placing = 0;       /* 1 once worker_cpus is known */
static int held_slice = -1;   /* the slice this process holds, -1: none */
static int own_affinity = 0;  /* 1 once the program set an affinity of its own */

/* Parses a kernel CPU list ("0-3,8", strides "0-15:2") into `set`; 0 on success. */
static int parse_cpu_list(const char* text, cpu_set_t* set) {
  CPU_ZERO(set);
  const char* at = text;
  while (*at != '\0') {
    char* end = NULL;
    long first = strtol(at, &end, 10);
    if (end == at || first < 0 || first >= CPU_SETSIZE) return -1;
    long last = first, stride = 1;
    at = end;
    if (*at == '-') {
      last = strtol(at + 1, &end, 10);
      if (end == at + 1 || last < first || last >= CPU_SETSIZE) return -1;
      at = end;
      if (*at == ':') {
        stride = strtol(at + 1, &end, 10);
        if (end == at + 1 || stride < 1) return -1;
        at = end;
      }
    }
    for (long cpu = first; cpu <= last; cpu += stride) CPU_SET((int)cpu, set);
    if (*at == ',') {
      ++at;
    } else if (*at != '\0') {
      return -1;
    }
  }
  return CPU_COUNT(set) > 0 ? 0 : -1;
}

/* Slice `index` of MPTRAIN_PLACE_SLICES into `set`; 0 on success. */
static int slice_cpus(int index, cpu_set_t* set) {
  const char* slices = getenv("MPTRAIN_PLACE_SLICES");
  if (slices == NULL) return -1;
  for (int i = 0; i < index; ++i) {
    slices = strchr(slices, ';');
    if (slices == NULL) return -1;
    ++slices;
  }
  char one[4096];
  size_t length = strcspn(slices, ";");
  if (length == 0 || length >= sizeof one) return -1;
  memcpy(one, slices, length);
  one[length] = '\0';
  return parse_cpu_list(one, set);
}

/* The number of slices (K), 0 without any. */
static int slice_count(void) {
  const char* slices = getenv("MPTRAIN_PLACE_SLICES");
  if (slices == NULL || *slices == '\0') return 0;
  int count = 1;
  for (const char* at = slices; *at != '\0'; ++at) count += *at == ';';
  return count > MAX_SLICES ? MAX_SLICES : count;
}

/* Whether process `pid` is gone: no such process, or a zombie. */
static int process_gone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return 1;
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1;
  ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return 1;
  stat[n] = '\0';
  const char* state = strrchr(stat, ')');
  return state != NULL && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

/* The worker's slot table (MPTRAIN_PLACE_TABLE) mapped shared: `count`
 * pids, 0 for a free slot; NULL when it cannot be mapped. A forked child
 * inherits the mapping. */
static int* slot_table(int count) {
  static int* table = NULL;
  if (table != NULL) return table;
  const char* path = getenv("MPTRAIN_PLACE_TABLE");
  if (path == NULL) return NULL;
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return NULL;
  size_t size = (size_t)count * sizeof(int);
  struct stat info;
  if (fstat(fd, &info) == 0 && (size_t)info.st_size >= size) {
    void* mapped = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped != MAP_FAILED) table = mapped;
  }
  close(fd);
  return table;
}

/* Claims the first free slot for this process (one this process already
 * holds counts); its index, or -1 when all are held by live processes. */
static int claim_slot(int count) {
  int* pids = slot_table(count);
  if (pids == NULL) return -1;
  const int self = (int)getpid();
  for (int i = 0; i < count; ++i) {
    if (__atomic_load_n(&pids[i], __ATOMIC_ACQUIRE) == self) return i;
  }
  for (int i = 0; i < count; ++i) {
    int holder = __atomic_load_n(&pids[i], __ATOMIC_ACQUIRE);
    if (holder != 0 && !process_gone((pid_t)holder)) continue;
    if (__atomic_compare_exchange_n(&pids[i], &holder, self, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return i;
  }
  return -1;
}

/* Whether this process holds slot `slot`. */
static int holds_slot(int slot, int count) {
  int* pids = slot_table(count);
  return pids != NULL && slot >= 0 && slot < count && __atomic_load_n(&pids[slot], __ATOMIC_ACQUIRE) == (int)getpid();
}

/* Gives slot `slot` back. */
static void release_slot(int slot, int count) {
  int* pids = slot_table(count);
  int self = (int)getpid();
  if (pids != NULL) __atomic_compare_exchange_n(&pids[slot], &self, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Whether this process is a helper that does no work of its own: a shell, or
 * Python's resource tracker, semaphore tracker or forkserver. */
static int is_helper(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    const char* name = strrchr(exe, '/');
    name = name != NULL ? name + 1 : exe;
    static const char* const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "busybox"};
    for (size_t i = 0; i < sizeof shells / sizeof shells[0]; ++i) {
      if (strcmp(name, shells[i]) == 0) return 1;
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
  return strstr(cmdline, "multiprocessing.resource_tracker") != NULL ||
         strstr(cmdline, "multiprocessing.semaphore_tracker") != NULL ||
         strstr(cmdline, "multiprocessing.forkserver") != NULL;
}

static void (*omp_set)(int);      /* omp_set_num_threads, where a runtime is loaded */
static void (*openblas_set)(int); /* openblas_set_num_threads, likewise */

/* Sets the thread-count variables to `threads` and, when a runtime already
 * runs in this process (a forked copy of its parent's), its own count. */
static void size_pools(const char* threads) {
  static const char* const variables[] = {"OMP_NUM_THREADS",  "MKL_NUM_THREADS",        "OPENBLAS_NUM_THREADS",
                                          "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"};
  for (size_t i = 0; i < sizeof variables / sizeof variables[0]; ++i) setenv(variables[i], threads, 1);
  int count = atoi(threads);
  if (count < 1) return;
  if (omp_set != NULL) omp_set(count);
  if (openblas_set != NULL) openblas_set(count);
}

/* Looks up the runtimes' own sizing calls (before a fork: the child then
 * makes no dynamic-loader call). */
static void find_runtimes(void) {
  omp_set = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads");
  openblas_set = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
}

/* Writes `set` as OMP_PLACES (one place per CPU) with OMP_PROC_BIND=close,
 * for an OpenMP runtime that starts after this point in this process. */
static void place_openmp(const cpu_set_t* set) {
  char places[8192];
  size_t used = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && used + 16 < sizeof places; ++cpu) {
    if (!CPU_ISSET(cpu, set)) continue;
    used += (size_t)snprintf(places + used, sizeof places - used, "%s{%d}", used == 0 ? "" : ",", cpu);
  }
  setenv("OMP_PLACES", places, 1);
  setenv("OMP_PROC_BIND", "close", 1);
  unsetenv("KMP_AFFINITY");
  unsetenv("GOMP_CPU_AFFINITY");
}

/* Sets this process's affinity (the system call itself: this library's
 * own calls are not the program's). */
static void set_affinity(const cpu_set_t* set) { syscall(SYS_sched_setaffinity, 0, sizeof *set, set); }

/* This process becomes the holder of slot `slot`: its CPUs, its threads
 * and (`after_exec`: its runtimes have not started yet) its OpenMP places. */
static void hold_slice(int slot, int after_exec) {
  if (after_exec) find_runtimes();
  cpu_set_t set;
  if (slice_cpus(slot, &set) != 0) return;
  held_slice = slot;
  char text[16];
  snprintf(text, sizeof text, "%d", slot);
  setenv("MPTRAIN_PLACE_SLICE", text, 1);
  set_affinity(&set);
  const char* threads = getenv("MPTRAIN_PLACE_THREADS");
  if (threads != NULL) size_pools(threads);
  if (after_exec) place_openmp(&set);
}

/* Places a new process of the tree other than the worker itself
 * (`after_exec`: a fresh image; else a forked copy of its parent). */
static void place_new_process(int after_exec) {
  if (own_affinity) return;
  const int slices = slice_count();
  const char* inherited = getenv("MPTRAIN_PLACE_SLICE");
  if (slices > 0 && inherited != NULL) {
    const int slot = atoi(inherited);
    cpu_set_t set;
    if (!holds_slot(slot, slices)) {
      /* A descendant of the slice's holder: it stays in the slice. */
      if (slice_cpus(slot, &set) == 0) set_affinity(&set);
      return;
    }
    /* It claimed the slice as a forked copy and has exec'd since: a helper gives it back. */
    if (!is_helper()) {
      hold_slice(slot, after_exec);
      return;
    }
    release_slot(slot, slices);
    unsetenv("MPTRAIN_PLACE_SLICE");
  } else if (slices > 0 && !(after_exec && is_helper())) {
    /* (A forked copy is judged by what it runs after an exec, if it execs:
     * until then it shows its parent's program, a forkserver's say.) */
    const int slot = claim_slot(slices);
    if (slot >= 0) {
      hold_slice(slot, after_exec);
      return;
    }
  }
  /* Not a slice's: the worker's CPUs, where it inherited others (fewer). */
  cpu_set_t now;
  if (sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &worker_cpus)) return;
  set_affinity(&worker_cpus);
}

static void after_fork_in_child(void) {
  if (!placing || own_affinity) return;
  if (held_slice >= 0) {
    /* The child of a slice's holder is in that slice, not a holder itself. */
    cpu_set_t set;
    char text[16];
    snprintf(text, sizeof text, "%d", held_slice);
    setenv("MPTRAIN_PLACE_SLICE", text, 1);
    if (slice_cpus(held_slice, &set) == 0) set_affinity(&set);
    held_slice = -1;
    return;
  }
  place_new_process(0);
}

/* Whether the caller at `address` is an OpenMP runtime (its own binding, which the rules above override). */
static int called_by_runtime(void* address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == NULL) return 0;
  return strstr(info.dli_fname, "libgomp") != NULL || strstr(info.dli_fname, "libomp") != NULL ||
         strstr(info.dli_fname, "libiomp") != NULL;
}

/* The slice this process runs in (held, or an ancestor's) into `set`; 0 when it has one. */
static int current_slice(cpu_set_t* set) {
  if (held_slice >= 0) return slice_cpus(held_slice, set);
  const char* inherited = getenv("MPTRAIN_PLACE_SLICE");
  return inherited != NULL && slice_cpus(atoi(inherited), set) == 0 ? 0 : -1;
}

/* Says once, on stderr, that this process set an affinity of its own. */
static void warn_own_affinity(void) {
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
  char line[384];
  int length = snprintf(line, sizeof line,
                        "mptrain: warning: process %d (%s) set a CPU affinity of its own; mptrain leaves it, its "
                        "threads and the processes it starts where the program puts them\n",
                        (int)getpid(), shown);
  if (length > 0) (void)!write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/* The mask an affinity call from `caller` may set: the program's own call
 * wins as it is (and is remembered); an OpenMP runtime's is kept inside
 * this process's slice (its CPUs there, or the whole slice when it names
 * none of them). */
static const cpu_set_t* allowed_mask(void* caller, size_t size, const cpu_set_t* set, cpu_set_t* room,
                                     int* program_call) {
  *program_call = 0;
  if (!placing) return set;
  if (!called_by_runtime(caller)) {
    *program_call = 1;
    return set;
  }
  cpu_set_t slice;
  if (size < sizeof *room || current_slice(&slice) != 0) return set;
  CPU_AND(room, set, &slice);
  if (CPU_COUNT(room) == 0) *room = slice;
  return room;
}

/* Remembers, and says once, that the program set an affinity of its own —
 * only after its call succeeded (`result` 0) with a mask other than the
 * one it had (`before`, of `size` bytes; `known` 0 when it could not be
 * read): a call that failed, or that re-set the same mask, changed nothing. */
static void note_program_call(int result, int known, const cpu_set_t* before, size_t size, const cpu_set_t* set) {
  if (result != 0) return;
  if (known && CPU_EQUAL_S(size, before, set)) return;
  own_affinity = 1;
  warn_own_affinity();
}

/* Masks larger than this many bytes are not compared (taken as a change). */
#define COMPARED_MASK_BYTES 1024

VISIBLE int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  static int (*real)(pid_t, size_t, const cpu_set_t*);
  if (real == NULL) real = (int (*)(pid_t, size_t, const cpu_set_t*))dlsym(RTLD_NEXT, "sched_setaffinity");
  cpu_set_t room;
  const int self = pid == 0 || pid == getpid();
  if (!self) return real(pid, size, set);
  int program_call;
  const cpu_set_t* mask = allowed_mask(__builtin_return_address(0), size, set, &room, &program_call);
  if (!program_call) return real(pid, size, mask);
  unsigned long before[COMPARED_MASK_BYTES / sizeof(unsigned long)];
  const int known = size <= sizeof before && sched_getaffinity(0, size, (cpu_set_t*)before) == 0;
  const int result = real(pid, size, mask);
  note_program_call(result, known, (const cpu_set_t*)before, size, set);
  return result;
}

VISIBLE int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* set) {
  static int (*real)(pthread_t, size_t, const cpu_set_t*);
  if (real == NULL) real = (int (*)(pthread_t, size_t, const cpu_set_t*))dlsym(RTLD_NEXT, "pthread_setaffinity_np");
  cpu_set_t room;
  int program_call;
  const cpu_set_t* mask = allowed_mask(__builtin_return_address(0), size, set, &room, &program_call);
  if (!program_call) return real(thread, size, mask);
  unsigned long before[COMPARED_MASK_BYTES / sizeof(unsigned long)];
  const int known = size <= sizeof before && pthread_getaffinity_np(thread, size, (cpu_set_t*)before) == 0;
  const int result = real(thread, size, mask);
  note_program_call(result, known, (const cpu_set_t*)before, size, set);
  return result;
}

/* fork, then the placement of the child: after every handler of
 * pthread_atfork has run, so that a runtime's own child handler (LLVM's
 * OpenMP resets the affinity it started with) does not undo it. */
VISIBLE pid_t fork(void) {
  static pid_t (*real)(void);
  if (real == NULL) real = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  if (placing) find_runtimes();
  const pid_t pid = real();
  if (pid == 0) after_fork_in_child();
  return pid;
}

__attribute__((constructor)) static void start(void) {
  const char* cpus = getenv("MPTRAIN_PLACE_CPUS");
  if (cpus == NULL || parse_cpu_list(cpus, &worker_cpus) != 0) return;
  const char* main_pid = getenv("MPTRAIN_PLACE_MAIN");
  char text[16];
  snprintf(text, sizeof text, "%d", (int)getpid());
  if (main_pid == NULL || strcmp(main_pid, text) == 0) {
    /* The worker itself (or a program it exec'd in its place). */
    setenv("MPTRAIN_PLACE_MAIN", text, 1);
    placing = 1;
    return;
  }
  placing = 1;
  place_new_process(1);
}
