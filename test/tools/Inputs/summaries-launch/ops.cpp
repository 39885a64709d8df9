#include <torch/extension.h>

#include "kernels.h"

// The output is made with no device: on the CPU.
torch::Tensor scaled(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  torch::Tensor out = torch::zeros({x.numel()});
  scale_launcher(out.data_ptr<float>(), out.numel());
  return out;
}

// The ids are Int, read as int64_t: their bytes are reinterpreted.
torch::Tensor gathered(torch::Tensor table, torch::Tensor ids) {
  TORCH_CHECK(table.is_cuda() && table.is_contiguous());
  torch::Tensor narrow = ids.to(table.options().dtype(torch::kInt));
  torch::Tensor out = torch::empty({ids.numel()}, table.options());
  gather_launcher(table.data_ptr<float>(),
                  static_cast<const int64_t *>(narrow.data_ptr()),
                  out.data_ptr<float>(), ids.numel());
  return out;
}

// On the GPU, contiguous, of the kernels' dtypes: nothing to say.
torch::Tensor fine(torch::Tensor table, torch::Tensor ids) {
  TORCH_CHECK(table.is_cuda() && table.is_contiguous());
  torch::Tensor wide = ids.to(table.options().dtype(torch::kLong));
  torch::Tensor out = torch::empty({ids.numel()}, table.options());
  gather_launcher(table.data_ptr<float>(),
                  static_cast<const int64_t *>(wide.data_ptr()),
                  out.data_ptr<float>(), ids.numel());
  return out;
}

// A CPU buffer given to a function that launches nothing: nothing to say.
torch::Tensor on_host() {
  torch::Tensor host = torch::zeros({8});
  fill_host(host.data_ptr<float>(), 8);
  return host;
}
