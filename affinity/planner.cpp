#include "affinity/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

// The PUs a plan may use, in topology order, and the count N.
struct Pool {
  std::vector<Pu> pus;
  CpuSet cpus;
  int n = 0;
  bool quota_limited = false;
};

// Positions into Pool::pus.
using Positions = std::vector<int>;

// Worker sets placed inside a group of PUs and the PUs of the group left over.
struct Placement {
  std::vector<Positions> sets;
  Positions leftover;
};

// The topology levels a placement descends, outermost first: the kind of
// core (performance first), then the memory and cache hierarchy.
enum class Level { kind, package, numa, l3, l2, core, pu };

int key_of(const Pu& pu, Level level) {
  switch (level) {
    case Level::kind:
      return pu.kind;
    case Level::package:
      return pu.package;
    case Level::numa:
      return pu.numa_node;
    case Level::l3:
      return pu.l3;
    case Level::l2:
      return pu.l2;
    case Level::core:
      return pu.core;
    case Level::pu:
      return pu.os_index;
  }
  return 0;
}

Level next(Level level) { return static_cast<Level>(static_cast<int>(level) + 1); }

// `members` grouped by their key at `level`, groups in order of first appearance.
std::vector<Positions> group_by(const std::vector<Pu>& pus, const Positions& members, Level level) {
  std::vector<Positions> groups;
  std::map<int, std::size_t> index;
  for (int position : members) {
    const auto [it, added] = index.emplace(key_of(pus[position], level), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(position);
  }
  return groups;
}

// How many of `workers` sets of `size` each group takes: as evenly as the
// groups' room allows (fewest first, then most free PUs, then first group).
std::vector<int> share_out(const std::vector<Positions>& groups, int workers, int size) {
  std::vector<int> taken(groups.size(), 0);
  for (int w = 0; w < workers; ++w) {
    int best = -1;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const int room = static_cast<int>(groups[g].size()) - taken[g] * size;
      if (room < size) continue;
      const int best_room = best < 0 ? 0 : static_cast<int>(groups[best].size()) - taken[best] * size;
      if (best < 0 || taken[g] < taken[best] || (taken[g] == taken[best] && room > best_room))
        best = static_cast<int>(g);
    }
    if (best < 0) break;
    ++taken[best];
  }
  return taken;
}

// Cuts up to `workers` consecutive sets of `size` from the front of `members`.
Placement cut(const Positions& members, int workers, int size) {
  Placement out;
  std::size_t at = 0;
  for (int w = 0; w < workers && at + size <= members.size(); ++w, at += size) {
    out.sets.emplace_back(members.begin() + at, members.begin() + at + size);
  }
  out.leftover.assign(members.begin() + at, members.end());
  return out;
}

// Up to `workers` sets of `size` from the PUs `chunks` left over in sibling
// groups (in the groups' order), each set from the fewest consecutive chunks
// that hold it (then the least left over in them, then the first): a worker
// that fits in no single group spans two neighbours where it can, never
// three because an earlier one took the middle of a chunk.
Placement cut_across(std::vector<Positions> chunks, int workers, int size) {
  Placement out;
  std::erase_if(chunks, [](const Positions& chunk) { return chunk.empty(); });
  for (int w = 0; w < workers; ++w) {
    std::size_t best_first = 0, best_count = 0, best_total = 0;
    for (std::size_t first = 0; first < chunks.size(); ++first) {
      std::size_t total = 0, count = 0;
      while (first + count < chunks.size() && total < static_cast<std::size_t>(size))
        total += chunks[first + count++].size();
      if (total < static_cast<std::size_t>(size)) break;  // no later window holds more
      if (best_count == 0 || count < best_count || (count == best_count && total < best_total)) {
        best_first = first;
        best_count = count;
        best_total = total;
      }
    }
    if (best_count == 0) break;
    Positions set;
    for (std::size_t c = best_first; c < best_first + best_count; ++c) {
      const std::size_t take = std::min(chunks[c].size(), static_cast<std::size_t>(size) - set.size());
      set.insert(set.end(), chunks[c].begin(), chunks[c].begin() + static_cast<std::ptrdiff_t>(take));
      chunks[c].erase(chunks[c].begin(), chunks[c].begin() + static_cast<std::ptrdiff_t>(take));
    }
    out.sets.push_back(std::move(set));
    std::erase_if(chunks, [](const Positions& chunk) { return chunk.empty(); });
  }
  for (const auto& chunk : chunks) out.leftover.insert(out.leftover.end(), chunk.begin(), chunk.end());
  return out;
}

// How many of `workers` sets of `size` each group takes, filling the groups
// in order (kinds of core: the fastest first).
std::vector<int> fill_in_order(const std::vector<Positions>& groups, int workers, int size) {
  std::vector<int> taken(groups.size(), 0);
  for (std::size_t g = 0; g < groups.size() && workers > 0; ++g) {
    taken[g] = std::min(workers, static_cast<int>(groups[g].size()) / size);
    workers -= taken[g];
  }
  return taken;
}

// Places `workers` sets of `size` PUs among `members`, descending from `level`.
Placement place(const std::vector<Pu>& pus, const Positions& members, Level level, int workers, int size) {
  if (workers == 0 || level == Level::pu) return cut(members, workers, size);
  auto groups = group_by(pus, members, level);
  if (groups.size() == 1) return place(pus, members, next(level), workers, size);
  if (level == Level::kind) {
    std::sort(groups.begin(), groups.end(),
              [&](const Positions& a, const Positions& b) { return pus[a.front()].kind < pus[b.front()].kind; });
  }
  const auto taken = level == Level::kind ? fill_in_order(groups, workers, size) : share_out(groups, workers, size);
  Placement out;
  int placed = 0;
  std::vector<Positions> leftovers;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Placement inner = place(pus, groups[g], next(level), taken[g], size);
    placed += static_cast<int>(inner.sets.size());
    out.sets.insert(out.sets.end(), inner.sets.begin(), inner.sets.end());
    leftovers.push_back(std::move(inner.leftover));
  }
  // Workers that fit in no single group take leftover PUs of as few neighbouring groups as they can.
  Placement spanning = cut_across(std::move(leftovers), workers - placed, size);
  out.sets.insert(out.sets.end(), spanning.sets.begin(), spanning.sets.end());
  out.leftover = std::move(spanning.leftover);
  return out;
}

// M sets of PUs for the workers: `size` each, or one PU each round-robin when there are fewer PUs than workers.
std::vector<Positions> core_sets(const Pool& pool, int workers, int size) {
  const int count = static_cast<int>(pool.pus.size());
  std::vector<Positions> sets;
  if (count < workers) {
    for (int w = 0; w < workers; ++w) sets.push_back({w % count});
    return sets;
  }
  Positions all(pool.pus.size());
  for (int i = 0; i < count; ++i) all[i] = i;
  sets = place(pool.pus, all, Level::kind, workers, size).sets;
  std::sort(sets.begin(), sets.end());
  return sets;
}

// The CPUs of `allowed` that --cpus `selection` names in `topology`; notes
// the named CPUs that are not usable, refuses a selection with none usable.
Result<CpuSet> restrict_to(const CpuSelection& selection, const Topology& topology, const CpuSet& allowed,
                           std::vector<std::string>& notes) {
  auto requested = resolve_cpu_selection(selection, topology);
  if (!requested.ok()) return Error{"--cpus: " + requested.error().message};
  const CpuSet chosen = allowed.intersect(*requested);
  if (chosen.empty()) {
    const std::string listed = requested->to_short_string();
    const bool as_given = listed == selection.text || requested->to_string() == selection.text;
    const std::string named = as_given ? selection.text : fmt::format("{} (CPUs {})", selection.text, listed);
    return Error{
        fmt::format("--cpus {} contains no usable CPU; the usable CPUs are {}", named, allowed.to_short_string())};
  }
  const CpuSet ignored = requested->minus(allowed);
  if (!ignored.empty()) {
    notes.push_back(fmt::format("--cpus: CPUs {} are not usable and were ignored", ignored.to_short_string()));
  }
  return chosen;
}

// The CPUs of `allowed` of the kind --cpu-kind `use` names; an Error when
// `topology` has no core of that kind among them. A machine of one kind of
// core has only performance cores.
Result<CpuSet> restrict_to_kind(CpuKindUse use, const Topology& topology, const CpuSet& allowed) {
  if (use == CpuKindUse::all || topology.kinds.size() < 2) {
    if (use != CpuKindUse::efficiency) return allowed;
    return Error{
        fmt::format("--cpu-kind efficiency: {} has one kind of core (hwloc finds {}); use --cpu-kind "
                    "performance or all, or leave --cpu-kind out",
                    topology.source, topology.kinds.empty() ? "no CPU kinds" : "a single CPU kind")};
  }
  const KindRole role = use == CpuKindUse::performance ? KindRole::performance : KindRole::efficiency;
  CpuSet chosen;
  for (const auto& kind : topology.kinds) {
    if (kind.role == role) chosen = chosen.unite(kind.cpus);
  }
  chosen = chosen.intersect(allowed);
  if (chosen.empty()) {
    return Error{fmt::format("--cpu-kind {}: none of the usable CPUs {} is a {} core", to_string(use),
                             allowed.to_short_string(), to_string(role))};
  }
  return chosen;
}

// The usable PUs after --cpus and --physical-cores; notes what was dropped.
Result<Pool> make_pool(const Topology& topology, const UsableCpus& usable, const PlacementRequest& request,
                       std::vector<std::string>& notes) {
  CpuSet allowed = usable.cpus.intersect(all_cpus(topology));
  if (allowed.empty()) {
    return Error{fmt::format("none of the usable CPUs {} is in the topology of {} ({})", usable.cpus.to_short_string(),
                             topology.source, all_cpus(topology).to_short_string())};
  }
  if (request.cpus) {
    auto chosen = restrict_to(*request.cpus, topology, allowed, notes);
    if (!chosen.ok()) return chosen.error();
    allowed = std::move(chosen).value();
  }
  if (request.cpu_kind) {
    auto chosen = restrict_to_kind(*request.cpu_kind, topology, allowed);
    if (!chosen.ok()) return chosen.error();
    allowed = std::move(chosen).value();
  }
  Pool pool;
  std::set<int> cores;
  for (const Pu& pu : topology.pus) {
    if (!allowed.contains(pu.os_index)) continue;
    if (request.core_use == CoreUse::physical_cores && !cores.insert(pu.core).second) continue;
    pool.pus.push_back(pu);
    if (request.cpu_kind == CpuKindUse::all) pool.pus.back().kind = -1;  // a worker may mix kinds
  }
  std::vector<int> cpus;
  for (const Pu& pu : pool.pus) cpus.push_back(pu.os_index);
  pool.cpus = CpuSet(std::move(cpus));
  pool.n = pool.cpus.size();
  if (usable.cgroup.quota_cpus && quota_cap(*usable.cgroup.quota_cpus) < pool.n) {
    pool.n = quota_cap(*usable.cgroup.quota_cpus);
    pool.quota_limited = true;
  }
  return pool;
}

int packages_in(const Pool& pool) {
  std::set<int> packages;
  for (const Pu& pu : pool.pus) packages.insert(pu.package);
  return static_cast<int>(packages.size());
}

// M: as requested, or one per package with usable CPUs (at most N); how a default chose it goes to `choices`.
int choose_processes(const Pool& pool, const PlacementRequest& request, std::vector<std::string>& choices) {
  if (request.num_processes) return *request.num_processes;
  if (request.one_per_cpu) {
    choices.push_back(fmt::format("--nproc-per-node auto: one worker per usable CPU, M = {}", pool.n));
    return pool.n;
  }
  const int m = std::max(1, std::min(packages_in(pool), pool.n));
  choices.push_back(fmt::format("{} not given: one worker per package, M = {}", request.spellings.workers, m));
  return m;
}

// "use -n 3 or fewer" (or "use -n 1" when one is the most that fits), as `spell` spells -n.
std::string fewer_processes(int most, const OptionSpellings& spell) {
  return most == 1 ? fmt::format("use {} 1", spell.workers) : fmt::format("use {} {} or fewer", spell.workers, most);
}

Error too_many_processes(const Pool& pool, int m, const OptionSpellings& spell) {
  return Error{
      fmt::format("{} on {} would leave less than one CPU per worker and oversubscribe "
                  "them; {}, or add --allow-oversubscribe to plan it anyway",
                  counted(m, "worker"), counted(pool.n, "usable CPU"), fewer_processes(pool.n, spell))};
}

Error too_many_threads(const Pool& pool, int m, int t, const OptionSpellings& spell) {
  if (m > pool.n) return too_many_processes(pool, m, spell);  // no -t can help: fewer workers can
  std::string fix = fmt::format("use {} {} (floor({}/{}))", spell.threads, std::max(1, pool.n / m), pool.n, m);
  if (pool.n / t >= 1) fix += fmt::format(" or {} {}", spell.workers, pool.n / t);
  return Error{
      fmt::format("{} {} x {} {} = {} exceed the {} and would oversubscribe them; {}, "
                  "or add --allow-oversubscribe to plan it anyway",
                  spell.workers, m, spell.threads, t, counted(static_cast<long long>(m) * t, "thread"),
                  counted(pool.n, "usable CPU"), fix)};
}

// T: as requested or floor(N/M); refuses M×T > N unless oversubscription is allowed.
Result<int> choose_threads(const Pool& pool, int m, const PlacementRequest& request, Plan& plan) {
  const bool allow = request.oversubscribe == Oversubscribe::allow;
  int t = 0;
  if (request.threads_per_process) {
    t = *request.threads_per_process;
  } else {
    if (pool.n < m && !allow) return too_many_processes(pool, m, request.spellings);
    t = std::max(1, pool.n / m);
    plan.choices.push_back(
        fmt::format("{} not given: floor(N/M) = floor({}/{}) = {}", request.spellings.threads, pool.n, m, t));
  }
  plan.oversubscribed = static_cast<long long>(m) * t > pool.n;
  if (plan.oversubscribed && !allow) return too_many_threads(pool, m, t, request.spellings);
  if (plan.oversubscribed) {
    plan.notes.push_back(fmt::format("oversubscribed: {} x {} = {} on {}", counted(m, "worker"), counted(t, "thread"),
                                     counted(static_cast<long long>(m) * t, "thread"), counted(pool.n, "usable CPU")));
  }
  return t;
}

// Refuses a --reserve of `reserve` PUs of the `t` each of `m` workers gets
// from `n`, with the fixes that work: a smaller reserve, a -t that N has
// room for, or fewer workers with more PUs each (never a -t that is
// oversubscription, which is refused too).
Error too_much_reserved(int reserve, int t, int m, int n, const OptionSpellings& spell) {
  std::vector<std::string> fixes;
  if (t > 1) fixes.push_back(fmt::format("use --reserve {} or less", t - 1));
  const long long wanted = static_cast<long long>(reserve) + 1;  // PUs a worker needs for one compute thread
  if (static_cast<long long>(m) * wanted <= n) {
    fixes.push_back(fmt::format("use {} {}", spell.threads, wanted));
  } else if (const long long workers = n / wanted; workers >= 1 && workers < m) {
    fixes.push_back(fmt::format("use {} {} ({} per worker)", spell.workers, workers, counted(n / workers, "PU")));
  }
  fixes.push_back("leave out --reserve");
  std::string fix = fixes.front();
  for (std::size_t i = 1; i < fixes.size(); ++i) fix += (i + 1 == fixes.size() ? ", or " : ", ") + fixes[i];
  return Error{
      fmt::format("--reserve {} leaves no compute thread of each worker's {}; {}", reserve, counted(t, "PU"), fix)};
}

BindChoice binding_for(bool quota_limited, double quota_cpus, int n, const CpuSet& cpus) {
  if (!quota_limited) return {Bind::core, "default: each worker is pinned to its own PUs, close together"};
  return {Bind::none,
          fmt::format("a CPU quota of {} limits N to {} of the {} {}, so no CPU is ours "
                      "alone; workers are not pinned (give --bind core to pin them anyway)",
                      counted_amount(quota_cpus, "CPU"), n, counted(cpus.size(), "CPU"), cpus.to_short_string())};
}

Bind choose_bind(const Pool& pool, const UsableCpus& usable, const PlacementRequest& request, Plan& plan) {
  if (request.bind) {
    plan.bind_reason = fmt::format("--bind {} was given", to_string(*request.bind));
    return *request.bind;
  }
  BindChoice choice = binding_for(pool.quota_limited, usable.cgroup.quota_cpus.value_or(0), pool.n, pool.cpus);
  plan.bind_reason = std::move(choice.reason);
  return choice.bind;
}

// The CPUs of `pool` sharing `key` at `level` with any CPU of `set`.
CpuSet widen(const Pool& pool, const Positions& set, Level level) {
  std::set<int> keys;
  for (int position : set) keys.insert(key_of(pool.pus[position], level));
  std::vector<int> cpus;
  for (const Pu& pu : pool.pus) {
    if (keys.count(key_of(pu, level)) != 0) cpus.push_back(pu.os_index);
  }
  return CpuSet(std::move(cpus));
}

// The CPUs of `pool` in the L3 domains of `set`: an L3 cache's CPUs within one
// NUMA node, since under Intel's sub-NUMA clustering hwloc shows one L3 per
// package, which each cluster uses as its own for its own memory.
CpuSet widen_to_l3_domain(const Pool& pool, const Positions& set) {
  std::set<std::pair<int, int>> domains;
  for (int position : set) domains.emplace(pool.pus[position].l3, pool.pus[position].numa_node);
  std::vector<int> cpus;
  for (const Pu& pu : pool.pus) {
    if (domains.count({pu.l3, pu.numa_node}) != 0) cpus.push_back(pu.os_index);
  }
  return CpuSet(std::move(cpus));
}

CpuSet worker_cpus(const Pool& pool, const Positions& set, Bind bind) {
  switch (bind) {
    case Bind::core:
      return widen(pool, set, Level::pu);
    case Bind::l3:
      return widen_to_l3_domain(pool, set);
    case Bind::numa:
      return widen(pool, set, Level::numa);
    case Bind::package:
      return widen(pool, set, Level::package);
    case Bind::none:
      return pool.cpus;
  }
  return pool.cpus;
}

// The single value of `level` among the PUs of `pool` in `cpus`, or -1 when they span several.
int common_key(const Pool& pool, const CpuSet& cpus, Level level) {
  std::set<int> keys;
  for (const Pu& pu : pool.pus) {
    if (cpus.contains(pu.os_index)) keys.insert(key_of(pu, level));
  }
  return keys.size() == 1 ? *keys.begin() : -1;
}

// PUs per worker: the `t` it asked for, or fewer when M×T oversubscribes the
// pool's PUs (then as many as fit, at least one).
int pus_per_worker(const Pool& pool, int m, int t) {
  const int count = static_cast<int>(pool.pus.size());
  return count >= m ? std::min(t, count / m) : 1;
}

// The OS indexes of the PUs of `pool` at `set`.
CpuSet cpus_at(const Pool& pool, const Positions& set) {
  std::vector<int> cpus;
  for (int position : set) cpus.push_back(pool.pus[position].os_index);
  return CpuSet(std::move(cpus));
}

// The workers of `plan` (M, PUs and threads per worker, binding already chosen) placed on `pool`;
// each keeps the first PUs of its own set (in topology order) for the reserve, and at least one for compute.
std::vector<WorkerPlacement> place_workers(const Pool& pool, const Plan& plan) {
  std::vector<WorkerPlacement> workers;
  const auto sets = core_sets(pool, plan.num_processes, plan.cpus_per_process);
  for (std::size_t rank = 0; rank < sets.size(); ++rank) {
    WorkerPlacement worker;
    worker.rank = static_cast<int>(rank);
    worker.cpus = worker_cpus(pool, sets[rank], plan.bind);
    worker.package = common_key(pool, worker.cpus, Level::package);
    worker.numa_node = common_key(pool, worker.cpus, Level::numa);
    worker.threads = plan.threads_per_process;
    const auto first = sets[rank].begin();
    const auto reserved = std::min<std::size_t>(plan.reserve, sets[rank].size() - 1);
    worker.reserved = cpus_at(pool, Positions(first, first + static_cast<std::ptrdiff_t>(reserved)));
    workers.push_back(std::move(worker));
  }
  return workers;
}

// The CPUs of `pool` that no worker got.
CpuSet unused_by(const Pool& pool, const std::vector<WorkerPlacement>& workers) {
  CpuSet used;
  for (const auto& worker : workers) used = used.unite(worker.cpus);
  return pool.cpus.minus(used);
}

// What keeps worker sets from being clean under bind core: a core whose
// PUs went to two workers (SMT siblings split), or a worker on two kinds of core.
struct Flaw {
  bool split_core = false;  // else: mixed kinds
  int rank = 0;
  int other = -1;  // the rank sharing the core
  CpuSet cpus;     // the core's PUs, or the worker's
  int count = 0;   // how many cores are split, or workers mixed
};

// The first core of `sets` whose PUs went to two workers.
std::optional<Flaw> split_core(const Pool& pool, const std::vector<Positions>& sets) {
  std::map<int, int> owner;  // core -> the first rank on it
  std::set<int> split;
  std::optional<Flaw> flaw;
  int first_core = -1;
  for (std::size_t rank = 0; rank < sets.size(); ++rank) {
    for (int position : sets[rank]) {
      const int core = pool.pus[position].core;
      const auto [it, added] = owner.emplace(core, static_cast<int>(rank));
      if (added || it->second == static_cast<int>(rank) || !split.insert(core).second) continue;
      if (!flaw) flaw = Flaw{true, it->second, static_cast<int>(rank), {}, 0}, first_core = core;
    }
  }
  if (!flaw) return flaw;
  std::vector<int> cpus;
  for (const Pu& pu : pool.pus) {
    if (pu.core == first_core) cpus.push_back(pu.os_index);
  }
  flaw->cpus = CpuSet(std::move(cpus));
  flaw->count = static_cast<int>(split.size());
  return flaw;
}

// The first worker of `sets` on two kinds of core.
std::optional<Flaw> mixed_kinds(const Pool& pool, const std::vector<Positions>& sets) {
  std::optional<Flaw> flaw;
  for (std::size_t rank = 0; rank < sets.size(); ++rank) {
    std::set<int> kinds;
    for (int position : sets[rank]) kinds.insert(pool.pus[position].kind);
    if (kinds.size() < 2) continue;
    if (!flaw) flaw = Flaw{false, static_cast<int>(rank), -1, cpus_at(pool, sets[rank]), 0};
    ++flaw->count;
  }
  return flaw;
}

std::optional<Flaw> first_flaw(const Pool& pool, int m, int t) {
  const auto sets = core_sets(pool, m, t);
  if (auto flaw = split_core(pool, sets)) return flaw;
  return mixed_kinds(pool, sets);
}

// What `flaw` does, as "ranks 0 and 1 would share core L#10 (CPUs 20-21)".
std::string describe(const Flaw& flaw, std::string_view would) {
  if (flaw.split_core) {
    return fmt::format("ranks {} and {} {} share the SMT siblings of one core (CPUs {}){}", flaw.rank, flaw.other,
                       would, flaw.cpus.to_short_string(),
                       flaw.count > 1 ? ", and " + counted(flaw.count - 1, "more core") : "");
  }
  return fmt::format("rank {} {} mix two kinds of core (CPUs {}){}", flaw.rank, would, flaw.cpus.to_short_string(),
                     flaw.count > 1 ? ", and " + counted(flaw.count - 1, "more worker") : "");
}

// Whether a plan of `m` workers of `t` PUs is checked for flaws: bind core
// placements that give each worker its own PUs.
bool flaws_matter(const Pool& pool, Bind bind, bool oversubscribed, int m) {
  return bind == Bind::core && !oversubscribed && static_cast<int>(pool.pus.size()) >= m;
}

// The largest T below `t` (`step` -1) or the smallest above it (`step` 1,
// with M x T within N) whose placement has no flaw; 0 when none is.
int nearest_flawless(const Pool& pool, int m, int t, int step) {
  for (int candidate = t + step; candidate >= 1 && static_cast<long long>(candidate) * m <= pool.n; candidate += step) {
    if (!first_flaw(pool, m, candidate)) return candidate;
  }
  return 0;
}

// T for the default floor(N/M) = `t`: lowered to the nearest T whose
// placement has no flaw, when one exists, saying why in the plan's choices.
int flawless_default(const Pool& pool, int m, int t, Plan& plan, const OptionSpellings& spell) {
  const auto flaw = first_flaw(pool, m, t);
  if (!flaw) return t;
  const int lower = nearest_flawless(pool, m, t, -1);
  if (lower == 0) return t;
  plan.choices.push_back(fmt::format("{} lowered from {} to {}: with {} {}, {}", spell.threads, t, lower, spell.threads,
                                     t, describe(*flaw, "would")));
  return lower;
}

// Refuses an explicit -t `t` whose placement has a flaw when another T has
// none, naming the nearest such T below and above it.
Status check_explicit(const Pool& pool, int m, int t, const OptionSpellings& spell) {
  const auto flaw = first_flaw(pool, m, t);
  if (!flaw) return ok_status();
  const int lower = nearest_flawless(pool, m, t, -1);
  const int higher = nearest_flawless(pool, m, t, 1);
  if (lower == 0 && higher == 0) return ok_status();
  std::vector<std::string> fixes;
  if (lower != 0) fixes.push_back(fmt::format("{} {}", spell.threads, lower));
  if (higher != 0) fixes.push_back(fmt::format("{} {}", spell.threads, higher));
  fixes.push_back(flaw->split_core ? "--physical-cores" : "--cpu-kind all to let a worker mix kinds");
  std::string fix = fixes.front();
  for (std::size_t i = 1; i < fixes.size(); ++i) fix += (i + 1 == fixes.size() ? ", or " : ", ") + fixes[i];
  return Error{
      fmt::format("{} {} x {} {}: {}; use {}", spell.workers, m, spell.threads, t, describe(*flaw, "would"), fix)};
}

// Refuses --bind l3 on `topology`, which shows no L3 cache.
Error no_l3(const Topology& topology) {
  return Error{
      fmt::format("--bind l3: {} shows no L3 cache; use --bind package or numa (a synthetic topology "
                  "describes its L3 caches as a level, such as \"package:2 l3:4 core:4 pu:2\")",
                  topology.source)};
}

// A note for each kind of core of `pool` that `plan` leaves wholly unused
// because each worker runs on one kind (when `pool` has several).
void add_unused_kind_notes(const Pool& pool, Plan& plan) {
  std::map<int, std::vector<int>> kinds;  // kind -> its PUs
  for (const Pu& pu : pool.pus) {
    if (pu.kind >= 0) kinds[pu.kind].push_back(pu.os_index);
  }
  if (kinds.size() < 2) return;
  for (const auto& [kind, pus] : kinds) {
    const CpuSet cpus(pus);
    if (cpus.intersect(plan.unused_cpus) != cpus) continue;
    plan.notes.push_back(
        fmt::format("the {} cores (CPUs {}) are left unused: each worker runs on one kind of "
                    "core, the performance cores first (--cpu-kind all lets a worker mix them)",
                    kind == 0 ? "performance" : "efficiency", cpus.to_short_string()));
  }
}

// A note on the workers of `plan` that span NUMA nodes (sub-NUMA clusters, on
// Intel's SNC) under a binding that keeps them close, saying whether their
// PUs fit in one; none on a pool of one NUMA node.
void add_spanning_note(const Pool& pool, Plan& plan) {
  if (plan.bind != Bind::core && plan.bind != Bind::l3 && plan.bind != Bind::numa) return;
  std::map<int, int> per_node;  // NUMA node -> its PUs in the pool
  for (const Pu& pu : pool.pus) ++per_node[pu.numa_node];
  if (per_node.size() < 2) return;
  std::vector<int> ranks;
  for (const auto& worker : plan.workers) {
    if (worker.numa_node < 0) ranks.push_back(worker.rank);
  }
  if (ranks.empty()) return;
  int largest = 0;
  for (const auto& [node, count] : per_node) largest = std::max(largest, count);
  const std::string who = fmt::format("{} {} {}", ranks.size() == 1 ? "rank" : "ranks", CpuSet(ranks).to_short_string(),
                                      ranks.size() == 1 ? "spans" : "span");
  if (plan.cpus_per_process > largest) {
    plan.notes.push_back(
        fmt::format("{} NUMA nodes (sub-NUMA clusters where the machine has them): {} per worker "
                    "do not fit in one, which holds at most {}",
                    who, counted(plan.cpus_per_process, "PU"), largest));
  } else {
    plan.notes.push_back(
        fmt::format("{} NUMA nodes (sub-NUMA clusters where the machine has them) though {} fit in one: the "
                    "other workers left no NUMA node that much room",
                    who, counted(plan.cpus_per_process, "PU")));
  }
}

// The notes on what `plan`, placed on `pool`, leaves unused, reserves, or could not avoid.
void add_placement_notes(const Pool& pool, Plan& plan, const OptionSpellings& spell) {
  CpuSet reserved;
  for (const auto& worker : plan.workers) reserved = reserved.unite(worker.reserved);
  if (plan.reserve > 0 && reserved.empty()) {
    plan.notes.push_back(fmt::format("--reserve {}: {} per worker, and no PU is reserved: each worker has one",
                                     plan.reserve, counted(plan.threads_per_process, "compute thread")));
  } else if (plan.reserve > 0) {
    plan.notes.push_back(
        fmt::format("--reserve {}: {} per worker; {} reserved for the communication library's "
                    "threads: {}",
                    plan.reserve, counted(plan.threads_per_process, "compute thread"), counted(reserved.size(), "CPU"),
                    reserved.to_short_string()));
  }
  std::vector<Positions> sets;
  for (const auto& worker : plan.workers) {
    Positions set;
    for (std::size_t i = 0; i < pool.pus.size(); ++i) {
      if (worker.cpus.contains(pool.pus[i].os_index)) set.push_back(static_cast<int>(i));
    }
    sets.push_back(std::move(set));
  }
  if (flaws_matter(pool, plan.bind, plan.oversubscribed, plan.num_processes)) {
    const auto no_fix = fmt::format(": no {} avoids it", spell.threads);
    if (auto flaw = split_core(pool, sets)) plan.notes.push_back(describe(*flaw, "must") + no_fix);
    if (auto flaw = mixed_kinds(pool, sets)) plan.notes.push_back(describe(*flaw, "must") + no_fix);
  }
  plan.unused_cpus = unused_by(pool, plan.workers);
  if (!plan.unused_cpus.empty()) {
    plan.notes.push_back(fmt::format("{} left unused: {}", counted(plan.unused_cpus.size(), "usable CPU"),
                                     plan.unused_cpus.to_short_string()));
  }
  add_spanning_note(pool, plan);
  add_unused_kind_notes(pool, plan);
}

// The machine's kinds of core and L3 caches in `plan`, and each worker's (its L3 caches, and `l3` when one), read
// from `topology` (so a worker that --cpu-kind all let mix kinds is still named when it did not).
void add_machine_facts(const Topology& topology, Plan& plan) {
  plan.cpu_kinds = static_cast<int>(topology.kinds.size());
  plan.l3_caches = topology.l3_caches;
  for (auto& worker : plan.workers) {
    for (const auto& kind : topology.kinds) {
      if (worker.cpus.minus(kind.cpus).empty()) worker.kind = kind.role;
    }
    std::vector<int> caches;
    for (const Pu& pu : topology.pus) {
      if (pu.l3 >= 0 && worker.cpus.contains(pu.os_index)) caches.push_back(pu.l3);
    }
    worker.l3_caches = CpuSet(std::move(caches));
    worker.l3 = worker.l3_caches.size() == 1 ? worker.l3_caches.cpus().front() : -1;
  }
}

}  // namespace

Result<Plan> make_plan(const Topology& topology, const UsableCpus& usable, const PlacementRequest& request) {
  Plan plan;
  plan.notes = topology.notes;
  auto pool = make_pool(topology, usable, request, plan.notes);
  if (!pool.ok()) return pool.error();
  plan.usable_cpus = pool->n;
  plan.usable_cpu_list = pool->cpus;
  plan.num_processes = choose_processes(*pool, request, plan.choices);
  auto t = choose_threads(*pool, plan.num_processes, request, plan);
  if (!t.ok()) return t.error();
  plan.bind = choose_bind(*pool, usable, request, plan);
  if (plan.bind == Bind::l3 && topology.l3_caches == 0) return no_l3(topology);
  // Whole cores per worker and one kind of core each, where some T allows it.
  if (flaws_matter(*pool, plan.bind, plan.oversubscribed, plan.num_processes)) {
    if (!request.threads_per_process) {
      *t = flawless_default(*pool, plan.num_processes, *t, plan, request.spellings);
    } else if (auto checked = check_explicit(*pool, plan.num_processes, *t, request.spellings); !checked.ok()) {
      return checked.error();
    }
  }
  if (request.reserve >= *t)
    return too_much_reserved(request.reserve, *t, plan.num_processes, pool->n, request.spellings);
  plan.cpus_per_process = pus_per_worker(*pool, plan.num_processes, *t);
  plan.threads_per_process = *t - request.reserve;
  plan.reserve = request.reserve;
  plan.workers = place_workers(*pool, plan);
  add_machine_facts(topology, plan);
  add_placement_notes(*pool, plan, request.spellings);
  return plan;
}

BindChoice default_binding(const UsableCpus& usable) {
  return binding_for(usable.limited_by == LimitedBy::quota, usable.cgroup.quota_cpus.value_or(0), usable.count,
                     usable.cpus);
}

Result<Machine> read_this_machine(const FsRoot& root) {
  auto topology = load_live_topology();
  if (!topology.ok()) return topology.error();
  auto usable = read_usable_cpus(root);
  if (!usable.ok()) return usable.error();
  return Machine{std::move(topology).value(), std::move(usable).value()};
}

Result<Machine> synthetic_machine(std::string_view description) {
  auto topology = load_synthetic_topology(description);
  if (!topology.ok()) return topology.error();
  auto usable = usable_cpus_of(*topology);
  return Machine{std::move(topology).value(), std::move(usable)};
}

Result<Machine> xml_machine(const std::filesystem::path& file) {
  auto xml = read_regular_file(file, max_topology_bytes);
  if (!xml.ok()) return xml.error();
  auto topology = load_xml_topology(*xml, file.string());
  if (!topology.ok()) return topology.error();
  auto usable = usable_cpus_of(*topology);
  return Machine{std::move(topology).value(), std::move(usable)};
}

}  // namespace mptrain::affinity
