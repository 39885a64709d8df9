// The source snippet printed under a finding is numbered with the finding's
// own line, also when its fix-it inserts an #include far above it (clang's
// printer numbered the snippet from the include's line: `2 |` under
// model.cpp:37:12 in the demo; tools/driver/SnippetWindow.h).
// RUN: %torch_tidy --checks='-*,libtorch-unchecked-index' -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" %s -- -std=c++17 %mock_torch 2>/dev/null \
// RUN:   | FileCheck %s --strict-whitespace --implicit-check-not='{{warning|error}}:'

#include <torch/torch.h>

// More lines here than a snippet spans (16), so that the include that the
// first fix-it inserts after line 8 cannot be printed with the finding.
struct RecommenderImpl : torch::nn::Module {
  RecommenderImpl(int64_t users, int64_t items) {
    user_emb = register_module("user_emb", torch::nn::Embedding(users, 8));
    item_emb = register_module("item_emb", torch::nn::Embedding(items, 8));
  }

  torch::Tensor forward(torch::Tensor user_ids, torch::Tensor item_ids);

  torch::nn::Embedding user_emb{nullptr};
  torch::nn::Embedding item_emb{nullptr};
};

torch::Tensor RecommenderImpl::forward(torch::Tensor user_ids,
                                       torch::Tensor item_ids) {
  auto u = user_emb(user_ids);
  auto i = item_emb(item_ids);
  return u + i;
}

// CHECK:      snippet-line-numbers.cpp:26:12: warning: index 'user_ids' reaches Embedding 'user_emb' without a bounds check
// CHECK-NEXT: {{^}}   26 |   auto u = user_emb(user_ids);{{$}}
// CHECK-NEXT: {{^}}      |            ^{{$}}
// CHECK-NEXT: snippet-line-numbers.cpp:24:54: note: 'user_ids' is a parameter: its values come from the caller
// CHECK-NEXT: {{^}}   24 | torch::Tensor RecommenderImpl::forward(torch::Tensor user_ids,{{$}}
// CHECK:      snippet-line-numbers.cpp:27:12: warning: index 'item_ids' reaches Embedding 'item_emb' without a bounds check
// CHECK-NEXT: {{^}}   27 |   auto i = item_emb(item_ids);{{$}}
