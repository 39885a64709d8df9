// libtorch-cross-device-index on the real LibTorch headers: the real
// TensorOptions conversions, Tensor::to overloads, holders and functional
// embedding.
// RUN: %check_clang_tidy %s libtorch-cross-device-index %t -- -- %torch_includes

#include <torch/torch.h>

namespace F = torch::nn::functional;

torch::Tensor lookup(int64_t n) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto table = torch::randn({n, 8}, torch::TensorOptions().device(device));
  auto ids = torch::randint(0, n, {4}, torch::kLong);
  auto rows = table.index_select(0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: index tensor 'ids' is on the CPU but 'table' is on the device held by 'device' (CUDA when available); 'index_select' throws "Expected all tensors to be on the same device" at run time; move the index with .to(table.device()) [libtorch-cross-device-index]
  // CHECK-FIXES: auto rows = table.index_select(0, ids.to(table.device()));
  auto gpu = torch::zeros({n}).to(torch::kCUDA);
  torch::gather(gpu, 0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'gpu' is on CUDA; 'gather' throws
  F::embedding(ids.cuda(), torch::ones({n, 8}));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the index tensor is on CUDA but the indexed tensor is on the CPU; 'embedding' throws

  torch::nn::Embedding emb(n, 8);
  emb->to(device);
  auto out = emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index tensor 'ids' is on the CPU but the weight of 'emb' is on the device held by 'device' (CUDA when available); 'Embedding' throws
  // CHECK-FIXES: auto out = emb(ids.to(emb->weight.device()));

  // Allowed: Tensor::index copies a CPU index over; dtype moves; matching
  // devices.
  gpu.index({ids});
  gpu.index_select(0, ids.to(gpu.device()).to(torch::kLong));
  table.index_select(0, ids.to(device));
  emb(torch::arange(3, torch::TensorOptions(torch::kLong).device(device)));
  return rows + out.sum();
}
