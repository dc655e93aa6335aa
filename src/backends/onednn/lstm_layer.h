// The language model's own layers: the embedding lookup (written here) and
// one LSTM layer over a whole window (oneDNN's vanilla LSTM primitive).
#pragma once

#include <cstdint>

#include "backends/onednn/tensor.h"

namespace dlcbench::onednn {

// Looks up `*tokens` ([sequence, batch] row-major, set before each step)
// in embedding.weight [vocabulary, dim]; output [sequence, batch, dim]. The
// backward pass adds each position's gradient to its word's row, so a word
// seen twice gets both.
Activation add_embedding(Program& program, Context& context, std::int64_t vocabulary, std::int64_t dim,
                         std::int64_t sequence, std::int64_t batch, const std::int64_t* const* tokens);

// One LSTM layer: input [sequence, batch, in] -> output [sequence, batch,
// hidden]. The state it starts a window from (`hidden`, `cell`) is carried
// over from the previous window without a gradient (truncated BPTT).
struct LstmLayer {
  Activation output;
  memory hidden, cell;          // state at the start of the window
  memory last_hidden, last_cell;  // state at its end

  void carry_state() const;  // the next window starts where this one ended
  void reset_state() const;  // zeros
};

// Parameters lstm.weight_ih_l`index`, weight_hh, bias_ih, bias_hh in
// PyTorch's layout (gates i, f, g, o, which is oneDNN's order too); oneDNN's
// single bias is their sum, and its gradient is the gradient of both.
LstmLayer add_lstm_layer(Program& program, Context& context, const Activation& in, std::int64_t hidden,
                         int index);

}  // namespace dlcbench::onednn
