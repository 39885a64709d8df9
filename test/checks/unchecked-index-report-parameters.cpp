// RUN: %check_clang_tidy %s libtorch-unchecked-index %t -- -config="{CheckOptions: {libtorch-unchecked-index.ReportParameters: true}}" -- %mock_torch

// ReportParameters: true reports, besides the evidence the default reports,
// every index that comes from outside the function (a parameter, a member,
// a global, a field of a data batch, the result of a call, an element of a
// container, arithmetic) and reaches a sink with no bounds check on every
// path: what a team that guards every entry point wants. Each sink form and
// each source kind, with its fix-it.

#include <torch/torch.h>
// CHECK-FIXES: #include <torch/torch.h>
// CHECK-FIXES-NEXT: #include <torchtidy/check.h>

#include <vector>

namespace F = torch::nn::functional;

// ---- Sinks: each with an index that comes from a parameter --------------

torch::Tensor embedModule(torch::nn::Embedding emb, torch::Tensor ids) {
  auto out = emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index 'ids' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA [libtorch-unchecked-index]
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto out = emb(ids);{{$}}
  return out;
}

torch::Tensor embedForward(torch::nn::Embedding emb,
                           torch::nn::EmbeddingImpl &impl, torch::Tensor ids) {
  auto a = emb->forward(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches Embedding 'emb' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto a = emb->forward(ids);{{$}}
  auto b = impl.forward(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches Embedding 'impl' without a bounds check
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, impl.options.num_embeddings());{{$}}
  return a + b;
}

torch::Tensor embedBag(torch::nn::EmbeddingBag bag, torch::Tensor ids,
                       torch::Tensor offsets) {
  return bag(ids, offsets);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: index 'ids' reaches EmbeddingBag 'bag' without a bounds check; an id outside [0, num_embeddings) is an illegal memory access on CUDA
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, bag->options.num_embeddings());{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return bag(ids, offsets);{{$}}
}

torch::Tensor embedFunctions(torch::Tensor weight, torch::Tensor ids) {
  auto a = torch::embedding(weight, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches embedding of 'weight' without a bounds check; an id outside [0, weight.size(0)) is an illegal memory access on CUDA
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, weight.size(0));{{$}}
  auto b = F::embedding(ids, weight);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches embedding of 'weight' without a bounds check
  // F::detail::embedding takes the indices first too.
  auto c = F::detail::embedding(ids, weight, {}, {}, 2.0, false, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches embedding of 'weight' without a bounds check
  return a + b + c;
}

void indexOps(torch::Tensor x, torch::Tensor ids, torch::Tensor src) {
  x.index_select(1, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches index_select on 'x' without a bounds check; an index outside [0, x.size(1)) is an illegal memory access on CUDA
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, x.size(1));{{$}}
  // CHECK-FIXES-NEXT: {{^}}  x.index_select(1, ids);{{$}}
  torch::index_select(x, 0, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches index_select on 'x' without a bounds check; an index outside [0, x.size(0))
  x.gather(-1, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches gather on 'x' without a bounds check; an index outside [0, x.size(-1))
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, x.size(-1));{{$}}
  x.scatter_(0, ids, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches scatter_ on 'x'
  x.scatter_add_(0, ids, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches scatter_add_ on 'x'
  x.index_add_(0, ids, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches index_add_ on 'x'
  x.index_copy_(0, ids, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches index_copy_ on 'x'
  x.index_fill_(0, ids, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches index_fill_ on 'x'
  x.index_put_({ids}, src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches index_put_ on 'x' without a bounds check; an index outside [0, x.size(0))
  x.take(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches take on 'x' without a bounds check; an index outside [0, x.numel())
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(ids, x.numel());{{$}}
  x.take_along_dim(ids, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches take_along_dim on 'x' without a bounds check; an index outside [0, x.size(1))
  torch::take_along_dim(x, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index 'ids' reaches take_along_dim on 'x' without a bounds check; an index outside [0, x.numel())
}

torch::Tensor losses(torch::Tensor logits, torch::Tensor labels) {
  auto a = F::nll_loss(logits, labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: target 'labels' reaches nll_loss without a bounds check; a class id outside [0, logits.size(1)) is a device-side assert on CUDA
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(labels, logits.size(1));{{$}}
  auto b = F::cross_entropy(logits, labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: target 'labels' reaches cross_entropy without a bounds check
  auto c = torch::nll_loss(logits, labels);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: target 'labels' reaches nll_loss without a bounds check
  return a + b + c;
}

// ---- Unsafe sources -------------------------------------------------------

torch::Tensor load_ids(const std::string &path);
torch::Tensor global_ids;

struct ModelImpl : torch::nn::Module {
  ModelImpl() { emb = register_module("emb", torch::nn::Embedding(1000, 16)); }

  torch::Tensor fromMember() {
    return emb(cached_);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'cached_' reaches Embedding 'emb' without a bounds check
    // CHECK-FIXES: {{^}}    TORCHTIDY_CHECK_INDEX(cached_, emb->options.num_embeddings());{{$}}
  }
  torch::Tensor fromGlobal() {
    return emb(global_ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'global_ids' reaches Embedding 'emb' without a bounds check
  }
  torch::Tensor fromLoader(const std::string &path) {
    auto ids = load_ids(path);
    return emb(ids.cuda());
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids.cuda()' reaches Embedding 'emb' without a bounds check
    // CHECK-FIXES: {{^}}    TORCHTIDY_CHECK_INDEX(ids, emb->options.num_embeddings());{{$}}
  }
  torch::Tensor fromCallDirectly(const std::string &path) {
    // The index is a call: the fix-it would evaluate it twice, so none.
    return emb(load_ids(path));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'load_ids(path)' reaches Embedding 'emb' without a bounds check
  }
  torch::Tensor fromBlob(int64_t *data) {
    auto ids = torch::from_blob(data, {8}, torch::kLong);
    return emb(ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches Embedding 'emb' without a bounds check
  }
  torch::Tensor computed(torch::Tensor logits) {
    // argmax is in range, argmax + 1 may not be.
    auto ids = logits.argmax(1) + 1;
    return emb(ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches Embedding 'emb' without a bounds check
  }
  torch::Tensor fromLiteralVariables(int64_t a, int64_t b) {
    return emb(torch::tensor({a, b}));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'torch::tensor({a, b})' reaches Embedding 'emb' without a bounds check
  }
  torch::Tensor fromContainer(const std::vector<torch::Tensor> &all) {
    torch::Tensor sum;
    for (const auto &ids : all)
      sum = emb(ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: index 'ids' reaches Embedding 'emb' without a bounds check
    return sum;
  }
  torch::Tensor oneBranchSafe(torch::Tensor logits, bool greedy) {
    // Safe on one path only.
    auto ids = greedy ? logits.argmax(1) : load_ids("x");
    return emb(ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches Embedding 'emb' without a bounds check
  }

  torch::nn::Embedding emb{nullptr};
  torch::Tensor cached_;
};

template <typename Batch> void trainStep(torch::nn::Embedding emb, Batch &batch) {
  emb(batch.data);
}
// The instantiation is analysed, the template as written is not; one
// warning for the one instantiation.
void trainSteps(torch::nn::Embedding emb, torch::data::Example<> batch) {
  trainStep(emb, batch);
}
// CHECK-MESSAGES: :[[@LINE-7]]:3: warning: index 'batch.data' reaches Embedding 'emb' without a bounds check

torch::Tensor batchTarget(torch::Tensor logits,
                          torch::data::Example<> &batch) {
  return F::cross_entropy(logits, batch.target);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: target 'batch.target' reaches cross_entropy without a bounds check
  // CHECK-FIXES: {{^}}  TORCHTIDY_CHECK_INDEX(batch.target, logits.size(1));{{$}}
}

// No fix-it where a statement cannot be inserted before the sink.
torch::Tensor noBraces(torch::nn::Embedding emb, torch::Tensor ids, bool f) {
  if (f)
    return emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index 'ids' reaches Embedding 'emb' without a bounds check
  // CHECK-FIXES: {{^}}    return emb(ids);{{$}}
  return {};
}

// ---- Safe sources: no warning ----------------------------------------------

struct SafeImpl : torch::nn::Module {
  torch::Tensor producers(torch::Tensor logits, torch::Tensor probs) {
    auto a = emb(logits.argmax(1));
    auto b = emb(torch::argmin(logits, 1));
    auto [values, top] = logits.topk(5);
    auto c = emb(top);
    auto d = emb(std::get<1>(logits.sort(1)));
    auto e = emb(logits.argsort(1));
    auto f = emb(logits.nonzero());
    auto g = emb(torch::multinomial(probs, 4));
    auto h = emb(torch::randperm(100));
    auto i = emb(torch::randint(0, 100, {8}));
    auto j = emb(torch::arange(100));
    return a + b + c + d + e + f + g + h + i + j;
  }
  torch::Tensor bounded(torch::Tensor ids) {
    auto a = emb(ids.clamp(0, 99));
    auto b = emb(torch::clamp(ids, 0, 99));
    auto c = emb(ids.remainder(100));
    auto e = emb(torch::tensor({0, 5, 99}));
    auto best = ids.argmax(0);
    auto kept = best.cuda().view({-1});
    auto f = emb(kept);
    return a + b + c + e + f;
  }
  // Not bounds: fmod keeps the sign of what it divides (-1 stays -1), a
  // one-sided clamp has no upper end, and searchsorted / bucketize give
  // values up to the boundaries' size, one past the last boundary.
  torch::Tensor notBounded(torch::Tensor ids, torch::Tensor edges) {
    auto a = emb(torch::fmod(ids, 100));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index 'torch::fmod(ids, 100)' reaches Embedding 'emb' without a bounds check
    auto b = emb(ids.clamp(0));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index 'ids.clamp(0)' reaches Embedding 'emb' without a bounds check
    auto c = emb(torch::searchsorted(edges, ids));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index 'torch::searchsorted(edges, ids)' reaches Embedding 'emb' without a bounds check
    auto d = emb(torch::bucketize(ids, edges));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: index 'torch::bucketize(ids, edges)' reaches Embedding 'emb' without a bounds check
    return a + b + c + d;
  }
  // A slice of a producer's result keeps its values (issue 18, item 5).
  torch::Tensor producerSlices(int64_t k) {
    using torch::indexing::None;
    using torch::indexing::Slice;
    auto opts = torch::TensorOptions().dtype(torch::kLong);
    auto a = emb(torch::randperm(100, opts).index({Slice(None, k)}));
    auto b = emb(torch::randperm(100).slice(0, 0, k));
    auto c = emb(torch::randperm(100).narrow(0, 0, k));
    auto d = emb(torch::randperm(100).split(k, 0)[0]);
    auto e = emb(torch::randperm(100).chunk(2, 0)[1]);
    return a + b + c + d + e;
  }
  torch::Tensor reassignedSafe(torch::Tensor ids) {
    ids = ids.clamp(0, 99);
    return emb(ids);
  }
  torch::Tensor clampedInPlace(torch::Tensor ids) {
    ids.clamp_(0, 99);
    return emb(ids);
  }
  torch::Tensor captured(torch::Tensor ids) {
    // The lambda's own CFG has no guard, and its capture is not analysed.
    auto f = [&] { return emb(ids); };
    return f();
  }
  void notIndexOps(torch::Tensor x, torch::Tensor ids) {
    // Look-alikes: not LibTorch's ops, or not an index argument.
    x.index_select(0, x.argmax(0));
    lin(ids);
    x.mul(ids);
  }

  torch::nn::Embedding emb{nullptr};
  torch::nn::Linear lin{nullptr};
};

// A user class with an index_select method is not LibTorch's.
struct Table {
  torch::Tensor index_select(int64_t dim, const torch::Tensor &index);
};
void lookalike(Table t, torch::Tensor ids) { t.index_select(0, ids); }
