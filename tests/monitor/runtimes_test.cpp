#include "monitor/runtimes.hpp"

#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "monitor/sizing.hpp"
#include "tests/support/temp_dir.hpp"
#include "util/fd.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using mptrain::test::TempDir;

namespace {

// Recorded /proc/PID/maps files (tests/data/maps/README.md says which process each is).
const FsRoot maps_tree(MPTRAIN_TEST_DATA "/maps");
constexpr pid_t gcc_openmp_pid = 1001;
constexpr pid_t clang_openmp_pid = 1002;
constexpr pid_t onetbb_pid = 1003;
constexpr pid_t torch_pid = 1004;
constexpr pid_t numpy_openblas_pid = 1005;
constexpr pid_t unreadable_maps_pid = 1006;  // its maps is a directory
constexpr pid_t missing_pid = 4242;

// A maps line mapping `path` the way the kernel writes it.
std::string line(std::string_view path) {
  return "7f77fcc03000-7f77fcc0d000 r-xp 0000a000 fe:00 333065                     " + std::string(path) + "\n";
}

// The runtimes of a maps file with one line per path in `paths`.
std::vector<Runtime> runtimes_of(std::initializer_list<std::string_view> paths) {
  std::string text;
  for (const auto path : paths) text += line(path);
  return parse_runtimes(text);
}

// The runtimes recorded for `pid` under tests/data/maps.
std::vector<Runtime> recorded(pid_t pid) {
  auto runtimes = read_runtimes(maps_tree, pid);
  INFO((runtimes.ok() ? std::string() : runtimes.error().message));
  REQUIRE(runtimes.ok());
  return *runtimes;
}

// The kinds of `runtimes`, in order.
std::vector<RuntimeKind> kinds(const std::vector<Runtime>& runtimes) {
  std::vector<RuntimeKind> result;
  for (const auto& runtime : runtimes) result.push_back(runtime.kind);
  return result;
}

// Reads from `fd` up to and including the first newline, retrying on EINTR; what was read.
std::string read_line(int fd) {
  std::string text;
  char byte = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text += byte;
    if (byte == '\n') return text;
  }
}

// Reaps `pid`, retrying on EINTR; its wait status.
int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

TEST_CASE("a program built with GCC's -fopenmp maps GNU OpenMP from libgomp", "[monitor]") {
  CHECK(recorded(gcc_openmp_pid) == std::vector<Runtime>{{RuntimeKind::gnu_openmp, "libgomp.so.1.0.0"}});
}

TEST_CASE("a program built with clang's -fopenmp maps LLVM OpenMP from libomp", "[monitor]") {
  CHECK(recorded(clang_openmp_pid) == std::vector<Runtime>{{RuntimeKind::llvm_openmp, "libomp.so.5"}});
}

TEST_CASE("a oneTBB program maps oneTBB once, its allocator libtbbmalloc is no runtime", "[monitor]") {
  CHECK(recorded(onetbb_pid) == std::vector<Runtime>{{RuntimeKind::onetbb, "libtbb.so.12.8"}});
}

TEST_CASE("Debian's PyTorch maps its own pool, libgomp, oneTBB and OpenBLAS, reported in kind order", "[monitor]") {
  CHECK(recorded(torch_pid) == std::vector<Runtime>{{RuntimeKind::gnu_openmp, "libgomp.so.1.0.0"},
                                                    {RuntimeKind::openblas_pthreads, "libopenblasp-r0.3.21.so"},
                                                    {RuntimeKind::onetbb, "libtbb.so.12.8"},
                                                    {RuntimeKind::pytorch, "libtorch_cpu.so.1.13.0"}});
}

TEST_CASE("numpy on Debian's openblas-pthread is OpenBLAS (pthreads) named by its own file, not libblas.so.3",
          "[monitor]") {
  CHECK(recorded(numpy_openblas_pid) ==
        std::vector<Runtime>{{RuntimeKind::openblas_pthreads, "libopenblasp-r0.3.21.so"}});
}

TEST_CASE("every kind is recognised from its versioned soname", "[monitor]") {
  const std::vector<std::pair<std::string_view, RuntimeKind>> cases = {
      {"/usr/lib/x86_64-linux-gnu/libgomp.so.1", RuntimeKind::gnu_openmp},
      {"/usr/lib/llvm-14/lib/libomp.so.5", RuntimeKind::llvm_openmp},
      {"/opt/intel/oneapi/compiler/lib/libiomp5.so", RuntimeKind::intel_openmp},
      {"/usr/lib/x86_64-linux-gnu/libopenblas.so.0", RuntimeKind::openblas_pthreads},
      {"/opt/openblas/lib/libopenblasp-r0.3.21.so", RuntimeKind::openblas_pthreads},
      {"/opt/openblas/lib/libopenblaso-r0.3.21.so", RuntimeKind::openblas_openmp},
      {"/opt/intel/oneapi/mkl/lib/libmkl_core.so.2", RuntimeKind::mkl},
      {"/opt/intel/oneapi/mkl/lib/libmkl_rt.so.2", RuntimeKind::mkl},
      {"/opt/intel/oneapi/mkl/lib/libmkl_gnu_thread.so.2", RuntimeKind::mkl},
      {"/opt/intel/oneapi/mkl/lib/libmkl_intel_thread.so.2", RuntimeKind::mkl},
      {"/opt/intel/oneapi/mkl/lib/libmkl_tbb_thread.so.2", RuntimeKind::mkl},
      {"/usr/lib/x86_64-linux-gnu/libtbb.so.12", RuntimeKind::onetbb},
      {"/usr/lib/x86_64-linux-gnu/libtbb.so.2", RuntimeKind::onetbb},
      {"/usr/lib/x86_64-linux-gnu/libblis.so.4", RuntimeKind::blis},
      {"/usr/lib/libtorch_cpu.so", RuntimeKind::pytorch},
      {"/usr/lib/libtorch.so", RuntimeKind::pytorch},
      {"/usr/lib/libc10.so", RuntimeKind::pytorch},
      {"/usr/lib/python3/dist-packages/numba/np/ufunc/workqueue.cpython-311-x86_64-linux-gnu.so", RuntimeKind::numba},
      {"/usr/lib/python3/dist-packages/numba/np/ufunc/omppool.cpython-311-x86_64-linux-gnu.so", RuntimeKind::numba},
      {"/venv/lib/python3.12/site-packages/numba/np/ufunc/tbbpool.cpython-312-x86_64-linux-gnu.so", RuntimeKind::numba},
      {"/venv/lib/python3.12/site-packages/polars/polars.abi3.so", RuntimeKind::polars},
      {"/opt/julia-1.10/lib/libjulia.so.1.10", RuntimeKind::julia},
      {"/opt/julia-1.10/lib/julia/libjulia-internal.so.1.10", RuntimeKind::julia},
      {"/venv/lib/python3.11/site-packages/tensorflow/libtensorflow_framework.so.2", RuntimeKind::tensorflow},
      {"/venv/lib/python3.11/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so", RuntimeKind::tensorflow},
      {"/usr/lib/python3/dist-packages/numexpr/interpreter.cpython-311-x86_64-linux-gnu.so", RuntimeKind::numexpr},
      {"/venv/lib/python3.12/site-packages/numexpr/interpreter.cpython-312-x86_64-linux-gnu.so", RuntimeKind::numexpr},
  };
  for (const auto& [path, kind] : cases) {
    INFO(path);
    const auto runtimes = runtimes_of({path});
    REQUIRE(runtimes.size() == 1);
    CHECK(runtimes[0].kind == kind);
    CHECK(runtimes[0].library == path.substr(path.rfind('/') + 1));
  }
}

TEST_CASE("a DIR/NAME pattern needs its directory: another package's interpreter module is no runtime", "[monitor]") {
  CHECK(runtimes_of({"/usr/lib/python3/dist-packages/other/interpreter.cpython-311-x86_64-linux-gnu.so"}).empty());
  CHECK(runtimes_of({"/usr/lib/python3/dist-packages/numexpr/other.cpython-311-x86_64-linux-gnu.so"}).empty());
  CHECK(knob(RuntimeKind::numexpr) == "NUMEXPR_NUM_THREADS");
}

TEST_CASE("the hashed names of pip wheels' bundled libraries are recognised", "[monitor]") {
  CHECK(kinds(runtimes_of({"/venv/lib/python3.11/site-packages/torch/lib/libgomp-a34b3233.so.1"})) ==
        std::vector<RuntimeKind>{RuntimeKind::gnu_openmp});
  CHECK(kinds(runtimes_of({"/venv/lib/python3.11/site-packages/torch/lib/libgomp.so.1"})) ==
        std::vector<RuntimeKind>{RuntimeKind::gnu_openmp});
  CHECK(kinds(runtimes_of({"/venv/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-742d56dc.3.20.so"})) ==
        std::vector<RuntimeKind>{RuntimeKind::openblas_pthreads});
  CHECK(kinds(runtimes_of({"/venv/lib/python3.11/site-packages/scipy.libs/libopenblas64_p-r0.3.21-dev.so"})) ==
        std::vector<RuntimeKind>{RuntimeKind::openblas_pthreads});
  CHECK(kinds(runtimes_of({"/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so"})) ==
        std::vector<RuntimeKind>{RuntimeKind::pytorch});
}

TEST_CASE("Debian's openblas-openmp directory is OpenBLAS's OpenMP build, even named libblas.so.3", "[monitor]") {
  CHECK(runtimes_of({"/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3"}) ==
        std::vector<Runtime>{{RuntimeKind::openblas_openmp, "libblas.so.3"}});
  CHECK(kinds(runtimes_of({"/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblasp-r0.3.21.so"})) ==
        std::vector<RuntimeKind>{RuntimeKind::openblas_openmp});
}

TEST_CASE("Debian's openblas-pthread directory is OpenBLAS's pthreads build even beside libgomp", "[monitor]") {
  CHECK(kinds(runtimes_of({"/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3",
                           "/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0"})) ==
        std::vector<RuntimeKind>{RuntimeKind::gnu_openmp, RuntimeKind::openblas_pthreads});
}

TEST_CASE("Debian's blis-pthread and blis-openmp directories are BLIS", "[monitor]") {
  CHECK(runtimes_of({"/usr/lib/x86_64-linux-gnu/blis-pthread/libblas.so.3"}) ==
        std::vector<Runtime>{{RuntimeKind::blis, "libblas.so.3"}});
  CHECK(runtimes_of({"/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3",
                     "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4"}) ==
        std::vector<Runtime>{{RuntimeKind::blis, "libblis.so.4"}});
}

TEST_CASE("the reference BLAS and the serial builds run no pool and are no runtime", "[monitor]") {
  CHECK(runtimes_of({"/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3",
                     "/usr/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/x86_64-linux-gnu/libcblas.so.3",
                     "/usr/lib/x86_64-linux-gnu/openblas-serial/libblas.so.3",
                     "/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0",
                     "/usr/lib/x86_64-linux-gnu/blis-serial/libblis.so.4"})
            .empty());
}

TEST_CASE("an OpenBLAS whose name does not tell its build is OpenMP beside an OpenMP runtime, else pthreads",
          "[monitor]") {
  CHECK(kinds(runtimes_of({"/opt/ob/lib/libopenblas.so.0", "/usr/lib/llvm-14/lib/libomp.so.5"})) ==
        std::vector<RuntimeKind>{RuntimeKind::llvm_openmp, RuntimeKind::openblas_openmp});
  CHECK(kinds(runtimes_of({"/opt/ob/lib/libopenblas_haswellp-r0.3.15.so", "/opt/intel/lib/libiomp5.so"})) ==
        std::vector<RuntimeKind>{RuntimeKind::intel_openmp, RuntimeKind::openblas_openmp});
  CHECK(kinds(runtimes_of({"/opt/ob/lib/libopenblas.so.0"})) ==
        std::vector<RuntimeKind>{RuntimeKind::openblas_pthreads});
}

TEST_CASE("MKL's many libraries are one runtime named by the first mapped", "[monitor]") {
  CHECK(runtimes_of({"/opt/mkl/lib/libmkl_intel_lp64.so.2", "/opt/mkl/lib/libmkl_gnu_thread.so.2",
                     "/opt/mkl/lib/libmkl_core.so.2"}) ==
        std::vector<Runtime>{{RuntimeKind::mkl, "libmkl_intel_lp64.so.2"}});
}

TEST_CASE("anonymous and special mappings are skipped", "[monitor]") {
  const std::string text =
      "55e5c0cbf000-55e5c0ce0000 rw-p 00000000 00:00 0                          [heap]\n"
      "7f77fc21e000-7f77fca1e000 rw-p 00000000 00:00 0 \n"
      "7f77fc21e000-7f77fca1e000 rw-p 00000000 00:00 0\n"
      "7f77fcc62000-7f77fcc64000 r-xp 00000000 00:00 0                          [vdso]\n"
      "7f77fcc62000-7f77fcc64000 rw-p 00000000 00:00 0                          [anon:libgomp.so.1]\n"
      "7ffdc6575000-7ffdc6596000 rw-p 00000000 00:00 0                          [stack]\n";
  CHECK(parse_runtimes(text).empty());
}

TEST_CASE("a path with spaces or a (deleted) suffix still names its library", "[monitor]") {
  CHECK(runtimes_of({"/home/me/my libs/libgomp.so.1"}) ==
        std::vector<Runtime>{{RuntimeKind::gnu_openmp, "libgomp.so.1"}});
  CHECK(runtimes_of({"/opt/new/libtbb.so.12 (deleted)"}) ==
        std::vector<Runtime>{{RuntimeKind::onetbb, "libtbb.so.12"}});
}

TEST_CASE("a directory named like a library is not one", "[monitor]") {
  CHECK(runtimes_of({"/home/libgomp/data.bin", "/opt/libgomp.so.1/data.bin", "/srv/libtbb.so.12/notes.so.txt",
                     "/home/openblas-pthread/libfoo.so"})
            .empty());
}

TEST_CASE("a file named like a library but of another kind or name is not one", "[monitor]") {
  CHECK(runtimes_of({"/tmp/libgomp.so.1.txt", "/tmp/libgomp.so.x", "/tmp/libgomp.sox", "/tmp/libgomp", "/tmp/.so",
                     "/usr/lib/libgompx.so.1", "/usr/lib/libtbbmalloc.so.2", "/usr/lib/libtbbmalloc_proxy.so.2",
                     "/usr/lib/libtbbbind_2_5.so.3", "/usr/lib/libtorch_python.so", "/usr/lib/libmkl.so",
                     "/usr/lib/libomptarget.so"})
            .empty());
}

TEST_CASE("garbage, truncated lines and empty text give no runtimes", "[monitor]") {
  CHECK(parse_runtimes("").empty());
  CHECK(parse_runtimes("\n\n\n").empty());
  CHECK(parse_runtimes("7f77fcc03000-7f77fcc0d000 r-xp 0000a000 fe:00").empty());
  CHECK(parse_runtimes("/usr/lib/libgomp.so.1\n").empty());
  CHECK(parse_runtimes(std::string_view("a b c d e /lib\0gomp.so.1\n", 25)).empty());
}

TEST_CASE("a process without a maps file is an error naming the path", "[monitor]") {
  const auto runtimes = read_runtimes(maps_tree, missing_pid);
  REQUIRE_FALSE(runtimes.ok());
  CHECK_THAT(runtimes.error().message, Catch::Contains("/proc/4242/maps") && Catch::Contains("No such file"));
}

TEST_CASE("a maps file that cannot be read is an error naming the path", "[monitor]") {
  const auto runtimes = read_runtimes(maps_tree, unreadable_maps_pid);
  REQUIRE_FALSE(runtimes.ok());
  CHECK_THAT(runtimes.error().message,
             Catch::Contains("/proc/1006/maps") && Catch::Contains("is a directory, not a regular file"));
}

TEST_CASE("every kind has a name and a knob, and oneTBB's names what limits its pool", "[monitor]") {
  CHECK(to_string(RuntimeKind::openblas_openmp) == "OpenBLAS (OpenMP)");
  CHECK(knob(RuntimeKind::gnu_openmp) == "OMP_NUM_THREADS");
  CHECK(knob(RuntimeKind::openblas_openmp) == "OMP_NUM_THREADS");
  CHECK(knob(RuntimeKind::openblas_pthreads) == "OPENBLAS_NUM_THREADS");
  CHECK(knob(RuntimeKind::mkl) == "MKL_NUM_THREADS");
  CHECK(knob(RuntimeKind::blis) == "BLIS_NUM_THREADS");
  CHECK(knob(RuntimeKind::pytorch) == "torch.set_num_threads");
  CHECK(variable(RuntimeKind::pytorch) == "OMP_NUM_THREADS");
  CHECK(knob(RuntimeKind::onetbb) == "CPU affinity (taskset) or tbb::global_control");
  CHECK(variable(RuntimeKind::onetbb).empty());
  CHECK(knob(RuntimeKind::numba) == "NUMBA_NUM_THREADS");
  CHECK(knob(RuntimeKind::polars) == "POLARS_MAX_THREADS");
  CHECK(knob(RuntimeKind::julia) == "JULIA_NUM_THREADS");
  CHECK(knob(RuntimeKind::tensorflow) == "TF_NUM_INTRAOP_THREADS");
  CHECK(knob(RuntimeKind::go) == "GOMAXPROCS");
  for (int i = 0; i <= static_cast<int>(RuntimeKind::numexpr); ++i) {
    CHECK_FALSE(to_string(static_cast<RuntimeKind>(i)).empty());
    CHECK_FALSE(knob(static_cast<RuntimeKind>(i)).empty());
  }
}

TEST_CASE("read_runtimes finds the OpenMP runtime a real child process loaded", "[monitor]") {
#ifndef MPTRAIN_OPENMP_CHILD
  WARN("no OpenMP compiler support: mptrain_openmp_child was not built");
#else
  auto to_child = make_pipe(PipeMode::blocking);
  auto from_child = make_pipe(PipeMode::blocking);
  REQUIRE((to_child.ok() && from_child.ok()));
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(to_child->read.get(), STDIN_FILENO);
    ::dup2(from_child->write.get(), STDOUT_FILENO);
    ::execl(MPTRAIN_OPENMP_CHILD, MPTRAIN_OPENMP_CHILD, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  to_child->read.reset();
  from_child->write.reset();
  const auto ready = read_line(from_child->read.get());
  const auto runtimes = read_runtimes(FsRoot(), pid);
  to_child->write.reset();  // end of file: the child exits
  const int status = reap(pid);
  CHECK(ready == "ready\n");
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  REQUIRE(runtimes.ok());
  REQUIRE(runtimes->size() == 1);
  const auto& runtime = runtimes->front();
  INFO(runtime.library);
  CHECK(((runtime.kind == RuntimeKind::gnu_openmp && runtime.library.starts_with("libgomp")) ||
         (runtime.kind == RuntimeKind::llvm_openmp && runtime.library.starts_with("libomp"))));
#endif
}

TEST_CASE("a fix sizes each pool through the knob of the runtimes its process maps", "[monitor]") {
  ProcessEvidence numpy;
  numpy.runtimes = {Runtime{RuntimeKind::openblas_pthreads, "libopenblasp-r0.3.21.so"}};
  ProcessEvidence torch;
  torch.runtimes = {Runtime{RuntimeKind::gnu_openmp, "libgomp.so.1"}, Runtime{RuntimeKind::pytorch, "libtorch_cpu.so"}};
  ProcessEvidence tbb;
  tbb.runtimes = {Runtime{RuntimeKind::onetbb, "libtbb.so.12"}};
  const ProcessEvidence plain;
  CHECK(knob_settings({&numpy}, 1) == "set OPENBLAS_NUM_THREADS=1");
  CHECK(knob_settings({&torch}, 2) == "set OMP_NUM_THREADS=2 and call torch.set_num_threads(2)");
  CHECK(knob_settings({&numpy, &numpy}, 3) == "set OPENBLAS_NUM_THREADS=3");
  CHECK(knob_settings({&tbb}, 1) == "limit CPU affinity (taskset) or tbb::global_control to 1 CPU");
  CHECK(knob_settings({&plain}, 4) == "set OMP_NUM_THREADS=4");
  CHECK(knob_settings({}, 1) == "set OMP_NUM_THREADS=1");
}

namespace {

// A 64-bit ELF file with the one program header `segment` (its offset and size set here) over `body`.
std::string elf_file(Elf64_Phdr segment, const std::string& body) {
  Elf64_Ehdr elf{};
  std::memcpy(elf.e_ident, ELFMAG, SELFMAG);
  elf.e_ident[EI_CLASS] = ELFCLASS64;
  elf.e_phoff = sizeof elf;
  elf.e_phentsize = sizeof(Elf64_Phdr);
  elf.e_phnum = 1;
  segment.p_offset = sizeof elf + sizeof segment;
  segment.p_filesz = body.size();
  std::string file(reinterpret_cast<const char*>(&elf), sizeof elf);
  file.append(reinterpret_cast<const char*>(&segment), sizeof segment);
  return file + body;
}

// A 64-bit ELF file whose one PT_NOTE segment holds a note of owner `owner` (with its NUL) and `type`.
std::string elf_with_note(std::string_view owner, std::uint32_t type) {
  std::string note(sizeof(Elf64_Nhdr), '\0');
  const Elf64_Nhdr header{static_cast<Elf64_Word>(owner.size()), 8, type};
  std::memcpy(note.data(), &header, sizeof header);
  note += owner;
  note.resize((note.size() + 3) & ~std::size_t{3}, '\0');
  note += std::string(8, 'x');  // the descriptor: Go's build ID
  Elf64_Phdr segment{};
  segment.p_type = PT_NOTE;
  return elf_file(segment, note);
}

// A 64-bit ELF file with one PT_LOAD segment of `flags` (PF_R, PF_X…) holding `data` after `padding` zero bytes.
std::string elf_with_segment(std::uint32_t flags, const std::string& data, std::size_t padding = 0) {
  Elf64_Phdr segment{};
  segment.p_type = PT_LOAD;
  segment.p_flags = flags;
  return elf_file(segment, std::string(padding, '\0') + data);
}

}  // namespace

TEST_CASE("a Rust program on rayon is known by rayon-core's source paths in its read-only data", "[monitor]") {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir.path / name, std::ios::binary) << bytes;
    return dir.path / name;
  };
  const std::string panic_location = "/usr/share/cargo/registry/rayon-core-1.10.1/src/registry.rs";
  CHECK(embeds_rayon(write("rayon", elf_with_segment(PF_R, panic_location))));
  // Across the 1 MiB chunks the segment is read in: "rayon" ends the first chunk, "-core-" starts the second.
  CHECK(embeds_rayon(write("large", elf_with_segment(PF_R, "rayon-core-1.10.1/src/registry.rs", (1 << 20) - 5))));
  CHECK_FALSE(embeds_rayon(write("code", elf_with_segment(PF_R | PF_X, panic_location))));  // only in code: no
  CHECK_FALSE(embeds_rayon(write("other", elf_with_segment(PF_R, "/usr/share/cargo/registry/crossbeam-0.8/src"))));
  CHECK_FALSE(embeds_rayon(write("script", "#!/bin/sh\necho rayon-core-1.10.1\n")));
  // A program that merely names the crate (mptrain's own marker) is no rayon program.
  CHECK_FALSE(embeds_rayon(write("named", elf_with_segment(PF_R, std::string("rayon-core-\0rayon-core-x", 25)))));
  CHECK_FALSE(embeds_rayon(write("cut", elf_with_segment(PF_R, panic_location).substr(0, 80))));
  CHECK_FALSE(embeds_rayon(dir.path / "missing"));
  // Through a recorded /proc: the maps name no runtime, the executable has rayon compiled in.
  std::filesystem::create_directories(dir.path / "root/proc/78");
  std::ofstream(dir.path / "root/proc/78/maps") << line("/usr/lib/x86_64-linux-gnu/libc.so.6");
  std::filesystem::create_symlink(dir.path / "rayon", dir.path / "root/proc/78/exe");
  const auto runtimes = read_runtimes(FsRoot(dir.path / "root"), 78).value();
  CHECK(runtimes == std::vector<Runtime>{{RuntimeKind::rayon, "rayon"}});
  CHECK(knob(RuntimeKind::rayon) == "RAYON_NUM_THREADS");
  CHECK(to_string(RuntimeKind::rayon) == "Rust rayon");
}

TEST_CASE("a Go program is known by the build ID note in its executable, not by a library", "[monitor]") {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir.path / name, std::ios::binary) << bytes;
    return dir.path / name;
  };
  CHECK(is_go_program(write("go", elf_with_note(std::string_view("Go\0\0", 4), 4))));
  CHECK_FALSE(is_go_program(write("gnu", elf_with_note(std::string_view("GNU\0", 4), 3))));  // a GNU build ID
  CHECK_FALSE(is_go_program(write("type", elf_with_note(std::string_view("Go\0\0", 4), 1))));
  CHECK_FALSE(is_go_program(write("script", "#!/bin/sh\necho Go\n")));
  CHECK_FALSE(is_go_program(write("cut", elf_with_note(std::string_view("Go\0\0", 4), 4).substr(0, 80))));
  CHECK_FALSE(is_go_program(dir.path / "missing"));
  CHECK_FALSE(is_go_program("/dev/zero"));
  // Through a recorded /proc: the maps name no runtime, the executable is Go's.
  std::filesystem::create_directories(dir.path / "root/proc/77");
  std::ofstream(dir.path / "root/proc/77/maps") << line("/usr/lib/x86_64-linux-gnu/libc.so.6");
  std::filesystem::create_symlink(dir.path / "go", dir.path / "root/proc/77/exe");
  const auto runtimes = read_runtimes(FsRoot(dir.path / "root"), 77).value();
  CHECK(runtimes == std::vector<Runtime>{{RuntimeKind::go, "go"}});
}
