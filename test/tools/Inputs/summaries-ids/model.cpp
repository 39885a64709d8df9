#include "reading.h"

struct TaggerImpl : torch::nn::Module {
  TaggerImpl() { emb = register_module("emb", torch::nn::Embedding(1000, 32)); }
  torch::Tensor forward(const std::string &line) {
    return emb(torch::tensor(read_ids(line)));
  }
  torch::nn::Embedding emb{nullptr};
};

torch::Tensor embed_tokens(torch::nn::Embedding emb,
                           const std::vector<std::string> &tokens) {
  torch::Tensor ids = load_ids(tokens);
  return emb(ids);
}

torch::Tensor embed_line(torch::nn::Embedding emb, const std::string &line) {
  std::vector<int64_t> ids = read_ids(line);
  return emb(torch::tensor(ids));
}

// Checked before the use: no finding.
torch::Tensor embed_checked(torch::nn::Embedding emb,
                            const std::vector<std::string> &tokens) {
  torch::Tensor ids = load_ids(tokens);
  TORCH_CHECK(ids.max().item<int64_t>() < emb->options.num_embeddings(),
              "id out of range");
  return emb(ids);
}

// Values the other file makes itself: no finding.
torch::Tensor embed_made(torch::nn::Embedding emb) {
  return emb(positions(10)) + emb(torch::tensor(counts(10)));
}
