//===--- IndexRangesTest.cpp - quantities, ranges and evidence ------------===//

#include "torchtidy/analysis/IndexRanges.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

const char *const Prelude = "void sink(const torch::Tensor &);\n"
                            "void use(int64_t);\n";

/// An AST and the function `f` and the last call of `sink` or `use` in it.
struct Snippet {
  std::unique_ptr<clang::ASTUnit> AST;
  const clang::FunctionDecl *F = nullptr;
  const clang::CallExpr *Call = nullptr;
};

Snippet snippet(const std::string &Code, llvm::StringRef Callee) {
  Snippet S;
  S.AST = parse(Prelude + Code);
  auto &Ctx = S.AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  auto Calls = match(callExpr(callee(functionDecl(hasName(Callee))),
                              forCallable(functionDecl(hasName("f"))))
                         .bind("c"),
                     Ctx);
  if (!Fs.empty())
    S.F = Fs.front().getNodeAs<clang::FunctionDecl>("f");
  if (!Calls.empty())
    S.Call = Calls.back().getNodeAs<clang::CallExpr>("c");
  return S;
}

std::string describe(const Quantity &Q, const clang::ASTContext &Ctx) {
  static const char *const Kinds[] = {"unknown", "constant", "named",
                                      "runtime"};
  if (Q.K == Quantity::Unknown)
    return "unknown";
  Quantity Bare = Q;
  Bare.Origin = nullptr;
  return std::string(Kinds[Q.K]) + " " + describeQuantity(Bare, Ctx);
}

/// The quantity of use(...)'s argument in f.
std::string quantity(const std::string &Code) {
  Snippet S = snippet(Code, "use");
  if (!S.F || !S.Call)
    return "<no f or use>";
  IndexGuardAnalysis Guards(S.AST->getASTContext(), {});
  IndexRangeAnalysis Ranges(S.AST->getASTContext(), Guards);
  return describe(Ranges.quantityOf(S.F, S.Call->getArg(0)),
                  S.AST->getASTContext());
}

/// The range of sink(...)'s argument in f, as "interval [lo, hi)",
/// "values {..}", "external how", "produced", "opaque", joined by " | ".
std::string range(const std::string &Code) {
  Snippet S = snippet(Code, "sink");
  if (!S.F || !S.Call)
    return "<no f or sink>";
  auto &Ctx = S.AST->getASTContext();
  IndexGuardAnalysis Guards(Ctx, {});
  IndexRangeAnalysis Ranges(Ctx, Guards);
  IndexRange R = Ranges.rangeOf(S.F, S.Call->getArg(0), S.Call);
  std::vector<std::string> Parts;
  if (R.HasInterval) {
    Quantity Lo = R.Lo, Hi = R.Hi;
    Lo.Origin = Hi.Origin = nullptr;
    Parts.push_back("interval [" + describeQuantity(Lo, Ctx) + ", " +
                    describeQuantity(Hi, Ctx) + ")");
  }
  if (!R.Values.empty()) {
    std::string V = R.Sentinel ? "sentinel {" : "values {";
    for (size_t I = 0; I < R.Values.size(); ++I) {
      Quantity Q = R.Values[I].first;
      Q.Origin = nullptr;
      V += (I ? ", " : "") + describeQuantity(Q, Ctx);
    }
    Parts.push_back(V + "}");
  }
  if (R.External)
    Parts.push_back("external " + R.How);
  if (R.Produced)
    Parts.emplace_back("produced");
  if (R.Opaque)
    Parts.emplace_back("opaque");
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : " | ") + P;
  return Out.empty() ? "<nothing>" : Out;
}

TEST(IndexRanges, Quantities) {
  EXPECT_EQ(quantity("void f() { use(3 + 4); }"), "constant 7");
  EXPECT_EQ(quantity("void f(int64_t n) { use(n + 1); }"), "named n + 1");
  EXPECT_EQ(quantity("void f(torch::Tensor x) { const int64_t T = x.size(1);"
                     " use(T - 2); }"),
            "runtime x.size(1) - 2");
  EXPECT_EQ(quantity("void f(torch::Tensor x) { use(x.sizes()[0]); }"),
            "runtime x.size(0)");
  EXPECT_EQ(
      quantity("void f(const std::vector<int64_t> &v) { use(v.size()); }"),
      "runtime v.size()");
  // A local written twice is no single quantity: it is named by itself.
  EXPECT_EQ(quantity("void f(int64_t a) { int64_t n = a; n = 2 * a; use(n); }"),
            "named n");
  // The size a factory gives a tensor, through moves and elementwise ops.
  EXPECT_EQ(quantity("void f(int64_t n) { auto t = torch::zeros({n, 4}).cuda();"
                     " use(t.size(0)); }"),
            "named n");
  // A config struct's field, read through a local copy.
  EXPECT_EQ(quantity("struct C { int64_t block; };"
                     "void f(const C &cfg) { const C c = cfg; use(c.block); }"),
            "named cfg.block");
}

TEST(IndexRanges, Ranges) {
  EXPECT_EQ(range("void f(int64_t n) { sink(torch::arange(n)); }"),
            "interval [0, n)");
  EXPECT_EQ(range("void f(int64_t n) { sink(torch::randint(1, n + 1, {4})); }"),
            "interval [1, n + 1)");
  EXPECT_EQ(range("void f(int64_t n) { auto t = torch::randint(0, n, {4});"
                  " sink(t - 1); }"),
            "interval [-1, n - 1)");
  EXPECT_EQ(range("void f() { sink(torch::tensor({3, 7})); }"),
            "values {3, 7}");
  EXPECT_EQ(range("void f(int64_t n) { auto ids = torch::full({n}, -1);"
                  " sink(ids); }"),
            "sentinel {-1}");
  EXPECT_EQ(range("void f(torch::Tensor ids, torch::Tensor m) {"
                  " ids.masked_fill_(m, -100); sink(ids); }"),
            "sentinel {-100} | opaque");
  // A producer gives positions along the dimension it works over.
  EXPECT_EQ(
      range("void f(torch::Tensor x) { sink(x.argsort(0).slice(0, 0, 2)); }"),
      "interval [0, x.size(0))");
  EXPECT_EQ(range("void f(torch::Tensor x) { sink(x.argmax(0) + 1); }"),
            "interval [1, x.size(0) + 1)");
  EXPECT_EQ(range("void f() { sink(torch::zeros({2, 7}).argmax(-1)); }"),
            "interval [0, 7)");
  // nonzero gives positions along every dimension; argmax() the flattened
  // tensor's: no size bounds them here.
  EXPECT_EQ(range("void f(torch::Tensor x) { sink(x.nonzero()); }"),
            "interval [0, ?)");
  EXPECT_EQ(range("void f(torch::Tensor x) { sink(x.argmax()); }"),
            "interval [0, ?)");
  EXPECT_EQ(range("void f(const std::vector<std::string> &s) {"
                  " std::vector<int64_t> v;"
                  " for (const auto &t : s) v.push_back(std::stoll(t));"
                  " sink(torch::tensor(v)); }"),
            "external std::stoll");
  EXPECT_EQ(range("void f(const std::string &p) { torch::Tensor ids;"
                  " torch::load(ids, p); sink(ids); }"),
            "external torch::load");
  // Through a helper of the file: its return, its parameter replaced.
  EXPECT_EQ(range("torch::Tensor pos(int64_t n) { return torch::arange(n); }"
                  "void f(int64_t len) { sink(pos(len + 2)); }"),
            "interval [0, len + 2)");
  // A loop variable.
  EXPECT_EQ(range("void f(torch::Tensor x) { for (int64_t t = 0; t < x.size(0);"
                  " ++t) sink(torch::tensor({t})); }"),
            "interval [0, x.size(0))");
  // A guard that dominates the use: in range.
  EXPECT_EQ(range("void f(torch::Tensor ids) {"
                  " TORCH_CHECK(ids.max().item<int64_t>() < 10); sink(ids); }"),
            "produced");
}

/// The evidence kind at the embedding call of f; \p NoCallerIsUnbounded as
/// ReportParameters sets it.
std::string evidence(const std::string &Code,
                     bool NoCallerIsUnbounded = false) {
  auto AST = parse(Code);
  auto &Ctx = AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  auto Calls = match(
      cxxOperatorCallExpr(forCallable(functionDecl(hasName("f")))).bind("c"),
      Ctx);
  const clang::CallExpr *Sink = nullptr;
  std::optional<IndexOpSite> Site;
  for (const auto &M : Calls)
    if (auto S = matchIndexOp(M.getNodeAs<clang::CallExpr>("c"))) {
      Sink = M.getNodeAs<clang::CallExpr>("c");
      Site = S;
    }
  if (Fs.empty() || !Sink)
    return "<no f or sink>";
  IndexGuardAnalysis Guards(Ctx, {});
  IndexRangeAnalysis Ranges(Ctx, Guards, NoCallerIsUnbounded);
  const IndexEvidence E = Ranges.evidence(
      Fs.front().getNodeAs<clang::FunctionDecl>("f"), Sink, *Site);
  static const char *const Kinds[] = {
      "none",      "constant", "negative-start",    "past-the-end",
      "unbounded", "external", "ineffective-guard", "off-by-one"};
  return std::string(Kinds[E.K]) + (E.InRange ? " in-range" : "");
}

TEST(IndexRanges, Evidence) {
  const std::string Gpt =
      "struct GImpl : torch::nn::Module {"
      "  GImpl(int64_t block) : block_(block) {"
      "    wpe = register_module(\"wpe\", torch::nn::Embedding(block, 8)); }"
      "  int64_t block_; torch::nn::Embedding wpe{nullptr};";
  // f has no caller here: no evidence, unless parameters are reported.
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f(torch::Tensor x) {"
                           " return wpe(torch::arange(x.size(1))); } };"),
            "none");
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f(torch::Tensor x) {"
                           " return wpe(torch::arange(x.size(1))); } };",
                     true),
            "unbounded");
  // A comparison bounds the length only by the rows, in that direction.
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f(torch::Tensor x) {"
                           " TORCH_CHECK(x.size(1) > 0);"
                           " return wpe(torch::arange(x.size(1))); } };",
                     true),
            "unbounded");
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f(torch::Tensor x) {"
                           " TORCH_CHECK(x.size(1) >= block_);"
                           " return wpe(torch::arange(x.size(1))); } };",
                     true),
            "unbounded");
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f(torch::Tensor x) {"
                           " if (x.size(1) > block_) return x;"
                           " return wpe(torch::arange(x.size(1))); } };",
                     true),
            "none");
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f(torch::Tensor x) {"
                           " TORCH_CHECK(x.size(1) <= block_);"
                           " return wpe(torch::arange(x.size(1))); } };"),
            "none");
  // arange(block_) into block rows: the constructor's parameter is the
  // member it initialises.
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f() {"
                           " return wpe(torch::arange(block_)); } };"),
            "none in-range");
  EXPECT_EQ(evidence(Gpt + " torch::Tensor f() {"
                           " return wpe(torch::arange(block_ + 1)); } };"),
            "past-the-end");
  EXPECT_EQ(evidence("torch::Tensor f() { torch::nn::Embedding e(10, 2);"
                     " return e(torch::tensor({9, 10})); }"),
            "constant");
  EXPECT_EQ(evidence("torch::Tensor f(torch::Tensor ids) {"
                     " torch::nn::Embedding e(10, 2); return e(ids); }"),
            "none");
  EXPECT_EQ(evidence("torch::Tensor f(torch::Tensor ids, bool b) {"
                     " torch::nn::Embedding e(10, 2);"
                     " if (b) TORCH_CHECK(ids.max().item<int64_t>() < 10);"
                     " return e(ids); }"),
            "ineffective-guard");
  EXPECT_EQ(evidence("torch::Tensor f(torch::Tensor ids) {"
                     " torch::nn::Embedding e(10, 2);"
                     " TORCH_CHECK(ids.max().item<int64_t>() <= 10);"
                     " return e(ids); }"),
            "off-by-one");
}

} // namespace
