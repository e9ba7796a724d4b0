#include "affinity/plan.hpp"

#include <fmt/format.h>

#include <array>

#include "util/names.hpp"
#include "util/table.hpp"
#include "util/text.hpp"

namespace mptrain::affinity {

std::string_view to_string(Bind bind) { return name_of(bind_names, bind, "none"); }

std::string_view to_string(CpuKindUse use) { return name_of(cpu_kind_names, use, "all"); }

Result<Bind> parse_bind(std::string_view text) {
  if (const auto bind = value_named(bind_names, text)) return *bind;
  return Error{"unknown binding '" + std::string(text) + "'; use " + names_list(bind_names)};
}

Result<ProcessCountWord> process_count_word(std::string_view word) {
  if (word == "auto" || word == "cpu") return ProcessCountWord::one_per_cpu;
  if (word == "gpu" || word == "xpu") {
    return Error{
        fmt::format("{} counts {}s, and mptrain runs CPU workers: give a number of workers, or auto or cpu "
                    "for one per usable CPU",
                    word, word == "gpu" ? "GPU" : "XPU")};
  }
  return ProcessCountWord::number;
}

std::vector<std::string> notes_and_choices(const Plan& plan) {
  std::vector<std::string> notes = plan.notes;
  notes.insert(notes.end(), plan.choices.begin(), plan.choices.end());
  return notes;
}

std::string workers_by_threads(const Plan& plan) {
  return fmt::format("{} x {}", counted(plan.num_processes, "worker"), counted(plan.threads_per_process, "thread"));
}

std::string plan_table(const Plan& plan) {
  static const Table workers(
      {{"RANK", 4}, {"CPUS", 24, Align::left}, {"PACKAGE", 7}, {"NUMA NODE", 9}, {"THREADS", 7}});
  const auto index_or_dash = [](int index) { return index < 0 ? "-" : std::to_string(index); };
  std::string out = fmt::format("{} on N = {} ({}), bind {}{}\n", workers_by_threads(plan),
                                counted(plan.usable_cpus, "usable CPU"), plan.usable_cpu_list.to_short_string(),
                                to_string(plan.bind), plan.oversubscribed ? ", OVERSUBSCRIBED" : "");
  out += fmt::format("  bind: {}\n\n", plan.bind_reason) + workers.header();
  for (const auto& worker : plan.workers) {
    out += workers.row(worker.rank, worker.cpus.to_short_string(), index_or_dash(worker.package),
                       index_or_dash(worker.numa_node), worker.threads);
  }
  const auto unused = plan.unused_cpus.to_short_string();
  out += fmt::format("\nunused CPUs: {}\n", unused.empty() ? "-" : unused);
  for (const auto& note : notes_and_choices(plan)) out += "note: " + note + "\n";
  return out;
}

}  // namespace mptrain::affinity
