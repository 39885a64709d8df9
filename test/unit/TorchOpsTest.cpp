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

/// The callee's form and the facts of each call in f that \p Fact picks
/// out, as "name form yes|no", sorted (the matcher visits a call of a
/// template's specialization out of source order).
std::vector<std::string> factsOf(const std::string &Prologue,
                                 const std::string &Body, op::FactSet Fact) {
  std::vector<std::string> Out =
      describeCalls(Prologue, "torch::Tensor x", Body,
                    [&](clang::ASTUnit &, const clang::CallExpr *Call) {
                      const clang::FunctionDecl *FD = Call->getDirectCallee();
                      return FD->getNameAsString() + " " +
                             std::to_string(static_cast<unsigned>(formOf(FD))) +
                             " " + ((callFacts(Call) & Fact) ? "yes" : "no");
                    });
  llvm::sort(Out);
  return Out;
}

std::vector<std::string> sorted(std::vector<std::string> V) {
  llvm::sort(V);
  return V;
}

std::string formed(const char *Name, op::Form F, bool Has) {
  return std::string(Name) + " " + std::to_string(static_cast<unsigned>(F)) +
         (Has ? " yes" : " no");
}

// A row of the AnyScope form gives its facts to every function of its name:
// CUDA's global device min, std::min, a member, a kernel's own clamp.
TEST(TorchOps, AnyScopeRowsReadTheNameAlone) {
  const std::string Prologue =
      "#include <algorithm>\n"
      "int min(int a, int b);\n"
      "namespace k { float clamp(float v, float lo, float hi); }\n"
      "struct Box { int max(int a, int b); int mid(int a, int b); };\n"
      "int minimum(int a, int b);\n";
  EXPECT_EQ(
      factsOf(Prologue,
              "Box b; min(1, 2); std::min(1, 2); k::clamp(1.f, 0.f, 2.f);"
              " b.max(1, 2); b.mid(1, 2); minimum(1, 2);",
              op::BoundsByArguments),
      sorted({formed("min", op::Global, true), formed("min", op::Std, true),
              formed("clamp", op::NoForm, true),
              formed("max", op::AnyMember, true),
              formed("mid", op::AnyMember, false),
              formed("minimum", op::Global, false)}));
  // `min` alone is the smaller of its arguments; std::min keeps its Std facts.
  EXPECT_EQ(
      factsOf(Prologue, "min(1, 2); std::max(1, 2);", op::TakesMinimum),
      sorted({formed("min", op::Global, true), formed("max", op::Std, false)}));
  EXPECT_EQ(factsOf(Prologue, "std::min(1, 2);", op::StdMin),
            sorted({formed("min", op::Std, true)}));
}

// A function of namespace thrust (or one nested in it) has the Thrust form;
// a function of that name elsewhere has none of its facts.
TEST(TorchOps, ThrustForm) {
  const std::string Prologue =
      "namespace thrust { inline namespace v2 {\n"
      "template <class I> void sort(I first, I last);\n"
      "namespace system { template <class I> void copy(I, I, I); }\n"
      "} }\n"
      "namespace mine { template <class I> void sort(I first, I last); }\n";
  EXPECT_EQ(factsOf(Prologue,
                    "int *p = nullptr; thrust::sort(p, p + 1);"
                    " mine::sort(p, p + 1);",
                    op::PermutesRange),
            sorted({formed("sort", op::Thrust, true),
                    formed("sort", op::NoForm, false)}));
  EXPECT_EQ(factsOf(Prologue,
                    "int *p = nullptr; thrust::system::copy(p, p, p);",
                    op::CopiesRange),
            sorted({formed("copy", op::Thrust, true)}));
}

// The CUDA runtime's and driver's functions, by their families' prefixes:
// `cuda` and more, `cu` and an upper-case letter, at global scope.
TEST(TorchOps, FamiliesOfTheCudaRuntime) {
  const std::string Prologue =
      "extern \"C\" int cudaMemcpyAsync(void *, const void *, unsigned long);\n"
      "extern \"C\" int cuMemAlloc(void **, unsigned long);\n"
      "extern \"C\" int cublasCreate(void **);\n"
      "extern \"C\" int cuda();\n"
      "namespace ns { int cudaMalloc(void **, unsigned long); }\n";
  EXPECT_EQ(factsOf(Prologue,
                    "void *p = nullptr; cudaMemcpyAsync(p, p, 1);"
                    " cuMemAlloc(&p, 1); cublasCreate(&p); cuda();"
                    " ns::cudaMalloc(&p, 1);",
                    op::CudaRuntimeCall),
            sorted({formed("cudaMemcpyAsync", op::Global, true),
                    formed("cuMemAlloc", op::Global, true),
                    formed("cublasCreate", op::Global, false),
                    formed("cuda", op::Global, false),
                    formed("cudaMalloc", op::NoForm, false)}));
}

TEST(TorchOps, FamilyRowsReadTheirPrefix) {
  const OpFamilyRow Upper{"cu", op::Global, op::CudaRuntimeCall,
                          op::FamilyNext::Upper};
  EXPECT_TRUE(Upper.names("cuInit"));
  EXPECT_FALSE(Upper.names("cu"));
  EXPECT_FALSE(Upper.names("cudnnCreate"));
  EXPECT_FALSE(Upper.names("xcuInit"));
  const OpFamilyRow Any{"cuda", op::Global, op::CudaRuntimeCall,
                        op::FamilyNext::AnyChar};
  EXPECT_TRUE(Any.names("cudaFree"));
  EXPECT_TRUE(Any.names("cuda_helper"));
  EXPECT_FALSE(Any.names("cuda"));
}

// Parameters read by name: a `dim`, not a `self`, `keepdim` or unnamed one.
TEST(TorchOps, ParametersByName) {
  auto AST =
      parse("long argmax_like(int self, long dim, bool keepdim, int);\n");
  const auto Found = match(functionDecl(hasName("argmax_like")).bind("f"),
                           AST->getASTContext());
  ASSERT_EQ(Found.size(), 1U);
  std::vector<bool> Dims;
  for (const clang::ParmVarDecl *P :
       Found.front().getNodeAs<clang::FunctionDecl>("f")->parameters())
    Dims.push_back(hasParamName(P, op::Param::dim));
  EXPECT_EQ(Dims, (std::vector<bool>{false, true, false, false}));
  EXPECT_FALSE(hasParamName(nullptr, op::Param::dim));
}

// LibTorch's namespaces are read from the outermost one: at::, c10::cuda::,
// torch::nn::, through an inline namespace; a user's namespace named `at`
// inside another is not LibTorch's; caffe2 only when asked.
TEST(TorchOps, TorchNamespacesByTheOutermost) {
  auto AST = parse("namespace at { void ns_a(); }\n"
                   "namespace c10 { namespace cuda { void ns_b(); } }\n"
                   "namespace torch { inline namespace v1 { namespace nn {\n"
                   "  struct M { void ns_c(); }; } } }\n"
                   "namespace caffe2 { void ns_d(); }\n"
                   "namespace user { namespace at { void ns_e(); } }\n"
                   "namespace { namespace torch { void ns_f(); } }\n"
                   "void ns_g();\n");
  auto In = [&](const char *Name, bool OrCaffe2) {
    const auto Found =
        match(functionDecl(hasName(Name)).bind("f"), AST->getASTContext());
    EXPECT_EQ(Found.size(), 1U) << Name;
    return !Found.empty() &&
           inTorchNamespace(Found.front().getNodeAs<clang::Decl>("f"),
                            OrCaffe2);
  };
  EXPECT_TRUE(In("ns_a", false));
  EXPECT_TRUE(In("ns_b", false));
  EXPECT_TRUE(In("ns_c", false));
  EXPECT_FALSE(In("ns_d", false));
  EXPECT_TRUE(In("ns_d", true));
  EXPECT_FALSE(In("ns_e", true));
  EXPECT_FALSE(In("ns_f", true));
  EXPECT_FALSE(In("ns_g", true));
  EXPECT_FALSE(inTorchNamespace(nullptr));
}

TEST(TorchOps, InPlaceTensorMethodsByTheirName) {
  // Each member call's callee and whether it is one.
  auto Kinds = describeCalls(
      "struct Mine { void add_(); };\n", "torch::Tensor x, Mine m",
      "x.clamp_(0, 1); x.index_put_({x}, 0); x.clamp(0, 1); m.add_(); "
      "x.size(0);",
      [](clang::ASTUnit &, const clang::CallExpr *Call) {
        const auto *MC = llvm::dyn_cast<clang::CXXMemberCallExpr>(Call);
        if (!MC)
          return std::string();
        const clang::CXXMethodDecl *MD = MC->getMethodDecl();
        return MD->getParent()->getName().str() + "::" + MD->getName().str() +
               (isInPlaceTensorMethod(MD) ? " in-place" : " other");
      });
  llvm::sort(Kinds);
  EXPECT_EQ(Kinds, (std::vector<std::string>{
                       "Mine::add_ other", "Tensor::clamp other",
                       "Tensor::clamp_ in-place", "Tensor::index_put_ in-place",
                       "TensorBase::size other"}));
  EXPECT_FALSE(isInPlaceTensorMethod(nullptr));
}

} // namespace
