// The three built-in models and their parameter layout. Parameters of a
// model are one flat float array (PyTorch's order: each layer's weight,
// then its bias), so the shared store, checkpoints and a future MPI average
// all treat a model as one vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hogwild/shapes.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// Which network to train (`--model`).
enum class ModelKind : std::uint32_t { cnn = 1, mlp = 2, logreg = 3 };

// "cnn", "mlp" or "logreg".
std::string_view to_string(ModelKind kind);
// The ModelKind named `text`; an Error listing the valid names otherwise.
Result<ModelKind> parse_model_kind(std::string_view text);

// One parameter tensor inside the flat array.
struct TensorInfo {
  std::string name;        // e.g. "conv1.weight"
  std::vector<int> shape;  // PyTorch's shape
  std::size_t offset = 0;  // first element in the flat array
  std::size_t size = 0;    // elements
  int fan_in = 0;          // inputs per output unit (for initialisation)
};

// The tensors of one model, in order.
struct ModelLayout {
  ModelKind kind = ModelKind::cnn;
  std::vector<TensorInfo> tensors;
  std::size_t parameter_count = 0;

  // The tensor called `name`; throws std::out_of_range when absent.
  const TensorInfo& tensor(std::string_view name) const;
};

// The layout of `kind`.
ModelLayout model_layout(ModelKind kind);

// Fills `parameters` as PyTorch's defaults do for Conv2d and Linear: weights
// and biases uniform in ±1/sqrt(fan_in), drawn from a stream seeded by `seed`.
void initialize_parameters(const ModelLayout& layout, std::uint64_t seed, std::span<float> parameters);

}  // namespace mptrain::hogwild
