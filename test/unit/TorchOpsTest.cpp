//===--- TorchOpsTest.cpp - recognising LibTorch calls --------------------===//

#include "torchtidy/analysis/TorchOps.h"
#include "ASTFixture.h"

#include "clang/Lex/Lexer.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

std::string text(clang::ASTUnit &AST, const clang::Expr *E) {
  if (!E)
    return "<null>";
  return clang::Lexer::getSourceText(
             clang::CharSourceRange::getTokenRange(E->getSourceRange()),
             AST.getSourceManager(), AST.getLangOpts())
      .str();
}

/// What \p Describe says of each call in function f (parameters \p Params,
/// body \p Body, after \p Prologue), in source order; "" says nothing.
std::vector<std::string> describeCalls(
    const std::string &Prologue, const std::string &Params,
    const std::string &Body,
    llvm::function_ref<std::string(clang::ASTUnit &, const clang::CallExpr *)>
        Describe) {
  auto AST = parse(Prologue + "void f(" + Params + ") {\n" + Body + "\n}\n");
  std::vector<std::string> Out;
  auto Calls =
      match(functionDecl(hasName("f"), forEachDescendant(callExpr().bind("c"))),
            AST->getASTContext());
  for (const auto &M : Calls)
    if (std::string D = Describe(*AST, M.getNodeAs<clang::CallExpr>("c"));
        !D.empty())
      Out.push_back(std::move(D));
  return Out;
}

/// Every recognised index op in function f, as "kind name source index
/// module", in source order.
std::vector<std::string> sites(const std::string &Body) {
  return describeCalls(
      "namespace F = torch::nn::functional;\n",
      "torch::Tensor x, torch::Tensor ids, torch::nn::Embedding emb, "
      "torch::nn::EmbeddingBag bag, torch::nn::EmbeddingImpl &impl",
      Body, [](clang::ASTUnit &AST, const clang::CallExpr *Call) {
        std::optional<IndexOpSite> S = matchIndexOp(Call);
        if (!S)
          return std::string();
        return std::to_string(S->K) + " " + S->Name.str() + " " +
               text(AST, S->Source) + " " + text(AST, S->Index) + " " +
               text(AST, S->Module);
      });
}

TEST(TorchOps, MethodAndFreeForms) {
  EXPECT_EQ(sites("x.index_select(0, ids);"),
            std::vector<std::string>{"0 index_select x ids <null>"});
  EXPECT_EQ(sites("torch::index_select(x, 0, ids);"),
            std::vector<std::string>{"0 index_select x ids <null>"});
  EXPECT_EQ(sites("at::gather(x, 1, ids);"),
            std::vector<std::string>{"1 gather x ids <null>"});
  EXPECT_EQ(sites("x.scatter_add_(0, ids, x);"),
            std::vector<std::string>{"2 scatter_add_ x ids <null>"});
  EXPECT_EQ(sites("x.index_fill_(0, ids, 1);"),
            std::vector<std::string>{"3 index_fill_ x ids <null>"});
  EXPECT_EQ(sites("x.take(ids);"),
            std::vector<std::string>{"5 take x ids <null>"});
  EXPECT_EQ(sites("torch::take_along_dim(x, ids, 1);"),
            std::vector<std::string>{"1 take_along_dim x ids <null>"});
}

TEST(TorchOps, Embeddings) {
  EXPECT_EQ(sites("emb(ids);"),
            std::vector<std::string>{"6 Embedding <null> ids emb"});
  EXPECT_EQ(sites("emb->forward(ids);"),
            std::vector<std::string>{"6 Embedding <null> ids emb"});
  EXPECT_EQ(sites("impl.forward(ids);"),
            std::vector<std::string>{"6 Embedding <null> ids impl"});
  EXPECT_EQ(sites("bag(ids);"),
            std::vector<std::string>{"7 EmbeddingBag <null> ids bag"});
  EXPECT_EQ(sites("torch::embedding(x, ids);"),
            std::vector<std::string>{"6 embedding x ids <null>"});
  // The functional form takes the input first, then the weight.
  auto Functional = sites("F::embedding(ids, x);");
  ASSERT_FALSE(Functional.empty());
  EXPECT_EQ(Functional.front(), "6 embedding x ids <null>");
}

TEST(TorchOps, LossesAndAdvancedIndexing) {
  EXPECT_EQ(sites("F::cross_entropy(x, ids);"),
            std::vector<std::string>{"8 cross_entropy x ids <null>"});
  EXPECT_EQ(sites("torch::nll_loss(x, ids);"),
            std::vector<std::string>{"8 nll_loss x ids <null>"});
  EXPECT_EQ(sites("x.index({ids});"),
            std::vector<std::string>{"9 index x ids <null>"});
  EXPECT_EQ(sites("x[ids];"),
            std::vector<std::string>{"9 operator[] x ids <null>"});
  EXPECT_EQ(sites("x.index_put_({ids}, x);"),
            std::vector<std::string>{"4 index_put_ x ids <null>"});
}

TEST(TorchOps, OtherCallsAreNotIndexOps) {
  EXPECT_TRUE(sites("x.clone(); x[0]; torch::zeros({2}); x.max();").empty());
  auto AST = parse(R"cpp(
    struct Mine { torch::Tensor index_select(int, torch::Tensor); };
    torch::Tensor index_select(torch::Tensor, int, torch::Tensor);
    void g(Mine m, torch::Tensor t) { m.index_select(0, t); index_select(t, 0, t); }
  )cpp");
  auto Calls =
      match(functionDecl(hasName("g"), forEachDescendant(callExpr().bind("c"))),
            AST->getASTContext());
  ASSERT_EQ(Calls.size(), 2U);
  for (const auto &M : Calls)
    EXPECT_FALSE(matchIndexOp(M.getNodeAs<clang::CallExpr>("c")));
}

/// Where each move of function f puts its tensor, as "kind operand dtype",
/// in source order.
std::vector<std::string> moves(const std::string &Body) {
  return describeCalls(
      "struct NetImpl : torch::nn::Module {};\n",
      "torch::Tensor x, torch::Tensor y, torch::Device d, NetImpl &net", Body,
      [](clang::ASTUnit &AST, const clang::CallExpr *Call) {
        const MoveDestination D = moveDestination(Call);
        if (!D.isMove())
          return std::string();
        return std::to_string(D.K) + " " + text(AST, D.Operand) + " " +
               text(AST, D.Dtype);
      });
}

TEST(TorchOps, MoveDestinations) {
  using MD = MoveDestination;
  auto One = [](MD::Kind K, const char *Operand, const char *Dtype) {
    return std::vector<std::string>{std::to_string(K) + " " + Operand + " " +
                                    Dtype};
  };
  EXPECT_EQ(moves("x.cuda();"), One(MD::Cuda, "<null>", "<null>"));
  EXPECT_EQ(moves("x.cpu();"), One(MD::Cpu, "<null>", "<null>"));
  // `to(device)` goes through TensorOptions, as in LibTorch; with a dtype it
  // is the Device overload.
  EXPECT_EQ(moves("x.to(d);"), One(MD::Options, "d", "<null>"));
  EXPECT_EQ(moves("x.to(d, torch::kFloat);"),
            One(MD::Device, "d", "torch::kFloat"));
  EXPECT_EQ(moves("x.to(torch::kHalf);"),
            One(MD::SameDevice, "<null>", "torch::kHalf"));
  EXPECT_EQ(moves("x.to(y);"), One(MD::Like, "y", "<null>"));
  EXPECT_EQ(
      moves("x.to(torch::TensorOptions().dtype(torch::kInt));"),
      One(MD::Options, "torch::TensorOptions().dtype(torch::kInt)", "<null>"));
  // A module's move.
  EXPECT_EQ(moves("net.to(d);"), One(MD::Device, "d", "<null>"));
  EXPECT_EQ(moves("net.to(torch::kDouble);"),
            One(MD::SameDevice, "<null>", "torch::kDouble"));
  // Not moves.
  EXPECT_TRUE(moves("x.contiguous(); x.add(y); torch::zeros({2}, d);").empty());
}

} // namespace
