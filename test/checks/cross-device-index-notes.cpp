// RUN: %check_clang_tidy %s libtorch-cross-device-index %t -- -- %mock_torch

#include <torch/torch.h>

// Notes point at where each device fact was made.
void notes() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto table = torch::randn({10, 4});
  table = table.to(device);
  auto ids = torch::tensor({1, 2});
  table.index_select(0, ids);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'table' is on the device held by 'device' (CUDA when available); 'index_select' throws "Expected all tensors to be on the same device" at run time; move the index with .to(table.device()) [libtorch-cross-device-index]
  // CHECK-NOTES: :[[@LINE-3]]:14: note: 'ids' is created on the CPU here
  // CHECK-NOTES: :[[@LINE-5]]:11: note: 'table' is moved to the device held by 'device' (CUDA when available) here
  // CHECK-NOTES: :[[@LINE-9]]:17: note: 'device' is chosen at run time here
}

void moduleNotes(torch::Device device) {
  torch::nn::Embedding emb(10, 4);
  emb->to(device);
  emb(torch::arange(3).cuda().cpu());
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: the index tensor is on the CPU but the weight of 'emb' is on the device held by 'device'
  // CHECK-NOTES: :[[@LINE-2]]:7: note: the index tensor is moved to the CPU here
  // CHECK-NOTES: :[[@LINE-4]]:3: note: 'emb' is moved to the device held by 'device' here
  // CHECK-NOTES: :[[@LINE-7]]:32: note: the device 'device' holds is only known at run time
}
// CHECK-FIXES: table.index_select(0, ids.to(table.device()));
// CHECK-FIXES: emb(torch::arange(3).cuda().cpu().to(emb->weight.device()));
