// The extension's host API: each op takes CUDA tensors of floats.
#pragma once
#include <torch/torch.h>

torch::Tensor scale(const torch::Tensor &x, float factor);
torch::Tensor row_sums(const torch::Tensor &x);
torch::Tensor gather_rows(const torch::Tensor &x, const torch::Tensor &ids);
