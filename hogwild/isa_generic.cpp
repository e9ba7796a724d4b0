// What a CPU other than x86-64 runs: only the single build of the kernels.
#include "hogwild/isa.hpp"

namespace mptrain::hogwild {

bool cpu_supports(Isa isa) { return isa == Isa::generic || isa == Isa::native; }

}  // namespace mptrain::hogwild
