#include "affinity/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
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

namespace {

// A column of the workers' table: its title and width, and its cell for a worker.
struct WorkerColumn {
  Column column;
  std::string (*cell)(const WorkerPlacement& worker);
  bool (*shown)(const Plan& plan);  // nullptr: always
};

std::string index_or_dash(int index) { return index < 0 ? "-" : std::to_string(index); }

const std::array<WorkerColumn, 7> worker_columns{{
    {{"RANK", 4}, [](const WorkerPlacement& w) { return std::to_string(w.rank); }, nullptr},
    {{"CPUS", 24, Align::left}, [](const WorkerPlacement& w) { return w.cpus.to_short_string(); }, nullptr},
    {{"KIND", 11, Align::left},
     [](const WorkerPlacement& w) { return w.kind ? std::string(to_string(*w.kind)) : std::string("mixed"); },
     [](const Plan& plan) { return plan.cpu_kinds > 1; }},
    {{"L3", 5, Align::left},
     [](const WorkerPlacement& w) { return w.l3_caches.empty() ? std::string("-") : w.l3_caches.to_short_string(); },
     [](const Plan& plan) { return plan.l3_caches > 0; }},
    {{"PACKAGE", 7}, [](const WorkerPlacement& w) { return index_or_dash(w.package); }, nullptr},
    {{"NUMA NODE", 9}, [](const WorkerPlacement& w) { return index_or_dash(w.numa_node); }, nullptr},
    {{"THREADS", 7}, [](const WorkerPlacement& w) { return std::to_string(w.threads); }, nullptr},
}};

// The table of `plan`'s workers, its columns those that apply to the machine.
std::string workers_table(const Plan& plan) {
  std::vector<const WorkerColumn*> shown;
  std::vector<Column> columns;
  for (const auto& column : worker_columns) {
    if (column.shown != nullptr && !column.shown(plan)) continue;
    shown.push_back(&column);
    columns.push_back(column.column);
  }
  // A column is as wide as its widest cell (a long CPU list), so the columns after it stay aligned.
  std::vector<std::vector<std::string>> rows;
  for (const auto& worker : plan.workers) {
    auto& cells = rows.emplace_back();
    for (std::size_t i = 0; i < shown.size(); ++i) {
      cells.push_back(shown[i]->cell(worker));
      columns[i].width = std::max(columns[i].width, static_cast<int>(cells.back().size()));
    }
  }
  const Table table(std::move(columns));
  std::string out = table.header();
  for (const auto& cells : rows) out += table.row_of(cells);
  return out;
}

}  // namespace

std::string plan_table(const Plan& plan) {
  std::string out = fmt::format("{} on N = {} ({}), bind {}{}\n", workers_by_threads(plan),
                                counted(plan.usable_cpus, "usable CPU"), plan.usable_cpu_list.to_short_string(),
                                to_string(plan.bind), plan.oversubscribed ? ", OVERSUBSCRIBED" : "");
  out += fmt::format("  bind: {}\n\n", plan.bind_reason) + workers_table(plan);
  const auto unused = plan.unused_cpus.to_short_string();
  out += fmt::format("\nunused CPUs: {}\n", unused.empty() ? "-" : unused);
  for (const auto& note : notes_and_choices(plan)) out += "note: " + note + "\n";
  return out;
}

}  // namespace mptrain::affinity
