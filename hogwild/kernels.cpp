// The dispatching Network and normalize_pixels: each runs the KernelSet of
// its instruction set, chosen once per process (isa_choice) unless a test
// names one.
#include "hogwild/kernels.hpp"

#include <string>

#include "hogwild/flops.hpp"
#include "hogwild/kernel_set.hpp"
#include "hogwild/random.hpp"
#include "util/failure.hpp"

namespace mptrain::hogwild {

namespace {

// The build of `isa`, which this CPU must run; throws a Failure (exit code 2) otherwise.
const KernelSet& kernel_set_for(Isa isa) {
  const std::string name(to_string(isa));
  const Result<Isa> usable = choose_isa(name, built_isas(), runnable_isas());
  if (!usable.ok()) throw Failure(exit_code::usage_error, usable.error().message);
  for (const KernelSet* set : kernel_sets()) {
    if (set->isa == isa) return *set;
  }
  throw Failure(exit_code::usage_error, "no " + name + " kernels in this binary");
}

// The instruction set isa_choice() picked; throws its Error as a Failure (exit code 2).
Isa chosen_isa() {
  const Result<IsaChoice>& choice = isa_choice();
  if (!choice.ok()) throw Failure(exit_code::usage_error, choice.error().message);
  return choice.value().isa;
}

template <class S>
std::unique_ptr<NetworkKernels<S>> make_kernels(const KernelSet& set, const ModelLayout& layout) {
  if constexpr (std::is_same_v<S, float>) {
    return std::unique_ptr<NetworkKernels<S>>(set.make_float(layout.kind, layout.layers.data()));
  } else {
    return std::unique_ptr<NetworkKernels<S>>(set.make_double(layout.kind, layout.layers.data()));
  }
}

// Each sample's dropout draws from its key (none without keys): two draws
// of the sample's own stream, so a sample's masks do not depend on the
// group it trains in.
const DropoutDraws* make_draws(const std::uint64_t* keys, int count, DropoutDraws& draws) {
  if (keys == nullptr) return nullptr;
  for (int s = 0; s < count; ++s) {
    Random random(keys[s]);
    draws.draws[s][0] = random.next();
    draws.draws[s][1] = random.next();
  }
  return &draws;
}

}  // namespace

float normalize_pixel(std::uint8_t pixel) { return (static_cast<float>(pixel) / 255.0f - pixel_mean) / pixel_std; }

void normalize_pixels(const std::uint8_t* pixels, std::size_t count, float* out) {
  static const KernelSet& set = kernel_set_for(chosen_isa());
  set.normalize_pixels(pixels, count, out);
}

void normalize_pixels(Isa isa, const std::uint8_t* pixels, std::size_t count, float* out) {
  kernel_set_for(isa).normalize_pixels(pixels, count, out);
}

template <class S>
Network<S>::Network(ModelKind kind) : Network(kind, chosen_isa()) {}

template <class S>
Network<S>::Network(ModelKind kind, Isa isa)
    : layout_(model_layout(kind)), isa_(isa), kernels_(make_kernels<S>(kernel_set_for(isa), layout_)) {}

template <class S>
Network<S>::~Network() = default;

template <class S>
S Network<S>::train_group(const S* parameters, const Group<S>& group, S* gradient) {
  DropoutDraws draws;
  const S loss = kernels_->train_group(parameters, group, make_draws(group.dropout_keys, group.count, draws), gradient);
  if (layout_.kind == ModelKind::cnn) {
    const GroupWork work = kernels_->last_work();
    flops_done_ += cnn_flops_done(group.count, work.kept_channels, work.gradient_winners);
  } else {
    flops_done_ += group.count * flops_per_sample(layout_.kind);
  }
  return loss;
}

template <class S>
S Network<S>::loss(const S* parameters, const Group<S>& group) {
  DropoutDraws draws;
  return kernels_->loss(parameters, group, make_draws(group.dropout_keys, group.count, draws));
}

template <class S>
S Network<S>::evaluate_group(const S* parameters, const Group<S>& group, S* log_probs) {
  return kernels_->evaluate_group(parameters, group, log_probs);
}

template <class S>
std::int64_t Network<S>::flops_done() const {
  return flops_done_;
}

template <class S>
const ModelLayout& Network<S>::layout() const {
  return layout_;
}

template <class S>
Isa Network<S>::isa() const {
  return isa_;
}

template <class S>
NetworkKernels<S>::NetworkKernels() = default;

template <class S>
NetworkKernels<S>::~NetworkKernels() = default;

template class NetworkKernels<float>;
template class NetworkKernels<double>;
template class Network<float>;
template class Network<double>;

}  // namespace mptrain::hogwild
