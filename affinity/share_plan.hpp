// A plan made on one mptrain's share of its host (SPEC "Beyond one
// machine"): the host split by local rank first (node_share.hpp), then the
// request planned on the share (planner.hpp). Pure, so synthetic topologies test it.
#pragma once

#include "affinity/node_share.hpp"
#include "affinity/plan.hpp"
#include "affinity/planner.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// One mptrain's share of its host and its workers' placement on it.
struct SharePlan {
  NodeShare share;
  Plan plan;  // planned on share.cpus; its notes start with the share's
};

// Plans `request` on the share of local rank `local_rank` of `local_size` of
// `machine`. With several mptrain on the host, --cpus (`request.cpus`)
// restricts the host before it is split, so they share the selection. An
// Error (a usage error) when the selection names nothing of `machine`, the
// host cannot be shared that way or the request cannot be planned.
Result<SharePlan> plan_share(const Machine& machine, PlacementRequest request, int local_rank, int local_size);

}  // namespace mptrain::affinity
