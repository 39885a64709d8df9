// RUN: %check_clang_tidy %s libtorch-unregistered-buffer %t -- \
// RUN:   -config="{CheckOptions: {libtorch-unregistered-buffer.IgnoredMembers: 'tmp_.*|scratch'}}" \
// RUN:   -- %mock_torch

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() {
    tmp_a = torch::zeros({1});
    scratch = torch::zeros({1});
    scratch_pad = torch::zeros({1});
  }
  // Matched in full by the regular expression: not reported.
  torch::Tensor tmp_a, scratch;
  // Only a prefix matches: reported.
  torch::Tensor scratch_pad;
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor member 'scratch_pad' of module 'NetImpl' is never registered
};
// CHECK-FIXES: scratch_pad = register_buffer("scratch_pad", torch::zeros({1}));
