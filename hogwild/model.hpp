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
#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// Which network to train (`--model`).
enum class ModelKind : std::uint32_t { cnn = 1, mlp = 2, logreg = 3 };

// Its names (`--model`).
inline constexpr std::array model_names{Named<ModelKind>{ModelKind::cnn, "cnn"},
                                        Named<ModelKind>{ModelKind::mlp, "mlp"},
                                        Named<ModelKind>{ModelKind::logreg, "logreg"}};

// "cnn", "mlp" or "logreg".
std::string_view to_string(ModelKind kind);
// The ModelKind named `text`; an Error listing the valid names otherwise.
Result<ModelKind> parse_model_kind(std::string_view text);

// How a layer computes: a square-kernel convolution (stride 1, no padding)
// followed by a max-pooling, or a dense product.
enum class LayerKind { conv, dense };

// One layer of a model, the one description its parameter layout, its FLOP
// count and the kernels' offsets all come from.
struct LayerSpec {
  std::string_view name;  // "conv1", "fc2": its tensors are NAME.weight and NAME.bias
  LayerKind kind = LayerKind::dense;
  int inputs = 0;            // input channels (conv) or units (dense)
  int outputs = 0;           // output channels (conv) or units (dense)
  int kernel = 0;            // conv: the kernel's side
  int output_side = 0;       // conv: the side of each output map
  int pool = 1;              // conv: the side of the max-pooling window after it
  bool reads_image = false;  // its input is the image, which needs no gradient
};

// The layers of `kind` in forward order (sizes from hogwild/shapes.hpp).
std::span<const LayerSpec> model_layers(ModelKind kind);

// One parameter tensor inside the flat array.
struct TensorInfo {
  std::string name;        // e.g. "conv1.weight"
  std::vector<int> shape;  // PyTorch's shape
  std::size_t offset = 0;  // first element in the flat array
  std::size_t size = 0;    // elements
  int fan_in = 0;          // inputs per output unit (for initialisation)
};

// Where one layer's tensors start in the flat array.
struct LayerOffsets {
  std::size_t weight = 0;
  std::size_t bias = 0;
};

// The tensors of one model, in order.
struct ModelLayout {
  ModelKind kind = ModelKind::cnn;
  std::vector<TensorInfo> tensors;
  std::vector<LayerOffsets> layers;  // one per model_layers(kind) entry, in order
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
