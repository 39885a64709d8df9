//===--- IndexGuardsTest.cpp - sources and guards of index tensors --------===//

#include "torchtidy/analysis/IndexGuards.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

const char *const Prelude = "#include <torchtidy/check.h>\n"
                            "void sink(const torch::Tensor &);\n"
                            "torch::Tensor load();\n";

std::string kindName(const IndexOrigin &O) {
  static const char *const Kinds[] = {"safe", "unsafe", "unknown"};
  static const char *const Reasons[] = {
      "none",   "guarded", "producer", "bounded", "literal", "parameter",
      "member", "global",  "batch",    "call",    "element", "computed"};
  return std::string(Kinds[O.K]) + " " + Reasons[O.Why];
}

/// The origin of the argument of the last `sink(...)` call in function f.
std::string origin(const std::string &Code,
                   IndexGuardConfig Config = IndexGuardConfig()) {
  auto AST = parse(Prelude + Code);
  if (!AST)
    return "<no AST>";
  auto &Ctx = AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  auto Calls = match(callExpr(callee(functionDecl(hasName("sink"))),
                              forCallable(functionDecl(hasName("f"))))
                         .bind("c"),
                     Ctx);
  if (Fs.empty() || Calls.empty())
    return "<no f or sink>";
  const auto *F = Fs.front().getNodeAs<clang::FunctionDecl>("f");
  const auto *Call = Calls.back().getNodeAs<clang::CallExpr>("c");
  IndexGuardAnalysis Analysis(Ctx, std::move(Config));
  IndexGuardFinder &Finder = Analysis.finder(F);
  if (!Finder.valid())
    return "<no CFG>";
  return kindName(Finder.classify(Call->getArg(0), Call));
}

TEST(IndexGuards, UnsafeSources) {
  EXPECT_EQ(origin("void f(torch::Tensor ids) { sink(ids); }"),
            "unsafe parameter");
  EXPECT_EQ(origin("torch::Tensor g; void f() { sink(g); }"), "unsafe global");
  EXPECT_EQ(origin("struct M : torch::nn::Module { torch::Tensor ids;"
                   "  void f() { sink(ids); } };"),
            "unsafe member");
  EXPECT_EQ(origin("void f(torch::data::Example<> b) { sink(b.target); }"),
            "unsafe batch");
  EXPECT_EQ(origin("void f() { auto ids = load(); sink(ids.cuda()); }"),
            "unsafe call");
  EXPECT_EQ(origin("void f(torch::Tensor x) { sink(x.argmax() + 1); }"),
            "unsafe computed");
  EXPECT_EQ(origin("void f(int64_t *p) { sink(torch::from_blob(p, {2})); }"),
            "unsafe call");
  EXPECT_EQ(origin("void f(std::vector<torch::Tensor> v) {"
                   "  for (auto &ids : v) sink(ids); }"),
            "unsafe element");
}

TEST(IndexGuards, SafeSources) {
  EXPECT_EQ(origin("void f(torch::Tensor x) { sink(x.argmax(1)); }"),
            "safe producer");
  EXPECT_EQ(origin("void f(torch::Tensor x) {"
                   "  auto [v, i] = x.topk(3); sink(i); }"),
            "safe producer");
  EXPECT_EQ(origin("void f() { sink(torch::randint(0, 9, {3})); }"),
            "safe producer");
  EXPECT_EQ(origin("void f(torch::Tensor ids) { sink(ids.clamp(0, 9)); }"),
            "safe bounded");
  EXPECT_EQ(origin("void f(torch::Tensor ids) { sink(ids.remainder(9)); }"),
            "safe bounded");
  EXPECT_EQ(origin("void f() { auto ids = torch::tensor({1, 2}); sink(ids); }"),
            "safe literal");
  // clamp with one bound does not bound the ids.
  EXPECT_EQ(origin("void f(torch::Tensor ids) { sink(ids.clamp(0)); }"),
            "unsafe computed");
}

TEST(IndexGuards, GuardsThatDominate) {
  EXPECT_EQ(
      origin("void f(torch::Tensor ids) {"
             "  TORCH_CHECK(ids.max().item<int64_t>() < 9); sink(ids); }"),
      "safe guarded");
  EXPECT_EQ(origin("void f(torch::Tensor ids) {"
                   "  TORCHTIDY_CHECK_INDEX(ids, 9); sink(ids); }"),
            "safe guarded");
  EXPECT_EQ(origin("void f(torch::Tensor ids) {"
                   "  if ((ids >= 9).any().item<bool>()) return; sink(ids); }"),
            "safe guarded");
  EXPECT_EQ(
      origin("void f(torch::Tensor ids) { ids.clamp_(0, 8); sink(ids); }"),
      "safe guarded");
  EXPECT_EQ(origin("void check(const torch::Tensor &t) {"
                   "  TORCH_CHECK(t.min().item<int64_t>() >= 0); }"
                   "void f(torch::Tensor ids) { check(ids); sink(ids); }"),
            "safe guarded");
  IndexGuardConfig Config;
  Config.GuardFunctions = {"::v::ok"};
  EXPECT_EQ(origin("namespace v { void ok(const torch::Tensor &); }"
                   "void f(torch::Tensor ids) { v::ok(ids); sink(ids); }",
                   Config),
            "safe guarded");
}

TEST(IndexGuards, GuardsThatDoNotCount) {
  // After the use.
  EXPECT_EQ(origin("void f(torch::Tensor ids) {"
                   "  sink(ids); TORCHTIDY_CHECK_INDEX(ids, 9); }"),
            "unsafe parameter");
  // On one branch.
  EXPECT_EQ(origin("void f(torch::Tensor ids, bool b) {"
                   "  if (b) { TORCHTIDY_CHECK_INDEX(ids, 9); } sink(ids); }"),
            "unsafe parameter");
  // Another tensor.
  EXPECT_EQ(origin("void f(torch::Tensor ids, torch::Tensor o) {"
                   "  TORCHTIDY_CHECK_INDEX(o, 9); sink(ids); }"),
            "unsafe parameter");
  // Reassigned in between, on some path.
  EXPECT_EQ(
      origin("void f(torch::Tensor ids, torch::Tensor o, bool b) {"
             "  TORCHTIDY_CHECK_INDEX(ids, 9); if (b) ids = o; sink(ids); }"),
      "unsafe parameter");
  // A check that is not about the range.
  EXPECT_EQ(origin("void f(torch::Tensor ids) {"
                   "  TORCH_CHECK(ids.numel() > 0); sink(ids); }"),
            "unsafe parameter");
  // A helper that guards only sometimes.
  EXPECT_EQ(
      origin("void check(const torch::Tensor &t, bool on) {"
             "  if (on) { TORCH_CHECK(t.max().item<int64_t>() < 9); } }"
             "void f(torch::Tensor ids) { check(ids, true); sink(ids); }"),
      "unsafe parameter");
}

TEST(IndexGuards, HelperAnswersDoNotDependOnWhatWasAskedFirst) {
  // f -> h3 -> c2 -> c3 guards within the depth limit (3); g0 reaches h3
  // three helpers deep, where h3's own helpers are past the limit. What h3
  // guards for f must not be what it guarded for g0.
  const std::string Code = std::string(Prelude) +
                           "void c3(const torch::Tensor &t) {"
                           "  TORCH_CHECK(t.max().item<int64_t>() < 9); }"
                           "void c2(const torch::Tensor &t) { c3(t); }"
                           "void h3(const torch::Tensor &t) { c2(t); sink(t); }"
                           "void h2(const torch::Tensor &t) { h3(t); }"
                           "void h1(const torch::Tensor &t) { h2(t); }"
                           "void g0(torch::Tensor ids) { h1(ids); sink(ids); }"
                           "void f(torch::Tensor ids) { h3(ids); sink(ids); }";
  auto AST = parse(Code);
  ASSERT_TRUE(AST);
  auto &Ctx = AST->getASTContext();
  auto Ask = [&](IndexGuardAnalysis &Analysis, const char *Name) {
    auto Fs = match(functionDecl(hasName(Name), isDefinition()).bind("f"), Ctx);
    auto Calls = match(callExpr(callee(functionDecl(hasName("sink"))),
                                forCallable(functionDecl(hasName(Name))))
                           .bind("c"),
                       Ctx);
    if (Fs.empty() || Calls.empty())
      return std::string("<no function>");
    const auto *Call = Calls.back().getNodeAs<clang::CallExpr>("c");
    IndexGuardFinder &Finder =
        Analysis.finder(Fs.front().getNodeAs<clang::FunctionDecl>("f"));
    return kindName(Finder.classify(Call->getArg(0), Call));
  };
  IndexGuardAnalysis Alone(Ctx, IndexGuardConfig());
  EXPECT_EQ(Ask(Alone, "f"), "safe guarded");
  IndexGuardAnalysis DeepFirst(Ctx, IndexGuardConfig());
  EXPECT_EQ(Ask(DeepFirst, "g0"), "unsafe parameter"); // past the limit
  EXPECT_EQ(Ask(DeepFirst, "f"), "safe guarded");
  // A function asked about for its own use after it was a deep helper.
  EXPECT_EQ(Ask(DeepFirst, "h3"), "safe guarded");
}

TEST(IndexGuards, CapturedVariablesAreNotAnalysed) {
  auto AST = parse(std::string(Prelude) +
                   "void f(torch::Tensor ids) { [&] { sink(ids); }(); }");
  auto &Ctx = AST->getASTContext();
  auto Calls = match(callExpr(callee(functionDecl(hasName("sink"))),
                              forCallable(functionDecl().bind("fn")))
                         .bind("c"),
                     Ctx);
  ASSERT_EQ(Calls.size(), 1U);
  IndexGuardAnalysis Analysis(Ctx, {});
  const auto *Call = Calls[0].getNodeAs<clang::CallExpr>("c");
  auto &Finder = Analysis.finder(Calls[0].getNodeAs<clang::FunctionDecl>("fn"));
  EXPECT_EQ(kindName(Finder.classify(Call->getArg(0), Call)), "unknown none");
}

TEST(IndexGuards, LiteralIdsAndTableRows) {
  auto AST = parse("void f() { torch::nn::Embedding emb(100, 4);"
                   "  emb(torch::tensor({1, -2, 100})); }");
  auto &Ctx = AST->getASTContext();
  auto Tensors =
      match(callExpr(callee(functionDecl(hasName("tensor")))).bind("t"), Ctx);
  ASSERT_EQ(Tensors.size(), 1U);
  auto Ids = literalIds(Tensors[0].getNodeAs<clang::CallExpr>("t"), Ctx);
  ASSERT_TRUE(Ids);
  ASSERT_EQ(Ids->size(), 3U);
  EXPECT_EQ((*Ids)[1].first, -2);
  EXPECT_EQ((*Ids)[2].first, 100);
  auto Refs = match(declRefExpr(to(varDecl(hasName("emb")))).bind("e"), Ctx);
  ASSERT_FALSE(Refs.empty());
  auto Rows = embeddingRows(Refs[0].getNodeAs<clang::Expr>("e"), Ctx);
  ASSERT_TRUE(Rows);
  EXPECT_EQ(Rows->first, 100);
}

TEST(IndexGuards, IndexVariableLooksThroughValuePreservingOps) {
  auto AST = parse("void f(torch::Tensor ids) { ids.cuda().view({-1}); }");
  auto &Ctx = AST->getASTContext();
  auto Views = match(
      cxxMemberCallExpr(callee(cxxMethodDecl(hasName("view")))).bind("v"), Ctx);
  ASSERT_EQ(Views.size(), 1U);
  const auto *View = Views[0].getNodeAs<clang::Expr>("v");
  auto V = indexVariable(View);
  ASSERT_TRUE(V);
  EXPECT_EQ(llvm::cast<clang::NamedDecl>(V->Base)->getName(), "ids");
  EXPECT_FALSE(directVariable(View));
}

/// The text of the definitions of `g` in f that reach the `sink(...)` call.
std::vector<std::string> reaching(const std::string &Code) {
  auto AST = parse(Prelude + Code);
  std::vector<std::string> Out;
  if (!AST)
    return Out;
  auto &Ctx = AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  auto Calls =
      match(callExpr(callee(functionDecl(hasName("sink")))).bind("c"), Ctx);
  auto Vars = match(varDecl(hasName("g")).bind("g"), Ctx);
  if (Fs.empty() || Calls.empty() || Vars.empty())
    return Out;
  IndexGuardAnalysis Analysis(Ctx, IndexGuardConfig());
  IndexGuardFinder &Finder =
      Analysis.finder(Fs.front().getNodeAs<clang::FunctionDecl>("f"));
  for (const clang::Expr *Def : Finder.reachingDefinitionsOf(
           Vars.front().getNodeAs<clang::VarDecl>("g"),
           Calls.back().getNodeAs<clang::CallExpr>("c"))) {
    clang::Expr::EvalResult R;
    Out.push_back(Def->EvaluateAsInt(R, Ctx)
                      ? std::to_string(R.Val.getInt().getExtValue())
                      : "?");
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

TEST(IndexGuards, ReachingDefinitions) {
  using V = std::vector<std::string>;
  EXPECT_EQ(reaching("void f(bool c) { int g = 1; if (c) g = 2; else g = 3;"
                     " sink(torch::zeros({g})); }"),
            (V{"2", "3"}));
  EXPECT_EQ(reaching("void f(bool c) { int g = 1; if (c) g = 2;"
                     " sink(torch::zeros({g})); }"),
            (V{"1", "2"}));
  // Overwritten before the use on its only path; written after the use.
  EXPECT_EQ(reaching("void f(bool c) { int g = 1; g = 2; g = 3;"
                     " sink(torch::zeros({g})); g = 4; }"),
            (V{"3"}));
  // Around a loop, the value written in the body reaches the next use.
  EXPECT_EQ(reaching("void f(int n) { int g = 1; for (int i = 0; i < n; ++i) {"
                     " sink(torch::zeros({g})); g = 5; } }"),
            (V{"1", "5"}));
}

/// The names of the variables f tests the range of, in order.
std::string tested(const std::string &Code) {
  auto AST = parse(Prelude + Code);
  if (!AST)
    return "<no AST>";
  auto &Ctx = AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  if (Fs.empty())
    return "<no f>";
  IndexGuardAnalysis Analysis(Ctx, IndexGuardConfig());
  std::string Out;
  for (const IndexVar &V :
       Analysis.finder(Fs.front().getNodeAs<clang::FunctionDecl>("f"))
           .testedVariables())
    Out += (Out.empty() ? "" : " ") +
           llvm::cast<clang::NamedDecl>(V.Base)->getNameAsString();
  return Out;
}

TEST(IndexGuards, TestedVariables) {
  EXPECT_EQ(tested("void f(torch::Tensor a, torch::Tensor b, torch::Tensor c) {"
                   "  TORCH_CHECK(b.max().item<int64_t>() < 9);"
                   "  if ((a < 0).any().item<bool>()) return;"
                   "  TORCH_CHECK(b.min().item<int64_t>() >= 0); sink(c); }"),
            "b a");
  EXPECT_EQ(tested("void f(torch::Tensor a) { sink(a); }"), "");
}

} // namespace
