//===--- DeviceFlowTest.cpp - device facts of the dataflow ----------------===//

#include "torchtidy/analysis/DeviceFlow.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

/// "source | index" facts at each index op of function `f`, the probes
/// being `x.take(i)` calls (source x, index i).
std::vector<std::string> facts(const std::string &Code) {
  auto AST = parse(Code);
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                  AST->getASTContext());
  EXPECT_EQ(Fs.size(), 1U);
  if (Fs.empty())
    return {};
  DeviceFlow Flow;
  EXPECT_TRUE(Flow.analyze(Fs.front().getNodeAs<clang::FunctionDecl>("f"),
                           AST->getASTContext()));
  std::vector<std::string> Out;
  for (const IndexSiteFacts &S : Flow.sites())
    Out.push_back(S.Source.describe() + " | " + S.Index.describe());
  return Out;
}

using V = std::vector<std::string>;

TEST(DeviceFlow, Factories) {
  EXPECT_EQ(facts("void f() { auto x = torch::zeros({2}); "
                  "auto i = torch::arange(2); x.take(i); }"),
            V{"the CPU | the CPU"});
  EXPECT_EQ(facts("void f() { auto x = torch::zeros({2}, torch::kCUDA); "
                  "auto i = torch::randint(0, 2, {2}, torch::kLong); "
                  "x.take(i); }"),
            V{"CUDA | the CPU"});
  EXPECT_EQ(facts("void f() { auto o = torch::TensorOptions().device("
                  "torch::Device(\"cuda:1\")); auto x = torch::ones({2}, o); "
                  "x.take(torch::full({2}, 1, o.dtype(torch::kLong))); }"),
            V{"CUDA | CUDA"});
}

TEST(DeviceFlow, Moves) {
  EXPECT_EQ(facts("void f() { auto x = torch::zeros({2}).cuda(); "
                  "auto i = x.cpu(); x.take(i.to(torch::kLong)); }"),
            V{"CUDA | the CPU"});
  EXPECT_EQ(facts("void f(torch::Tensor p) { auto i = torch::arange(2); "
                  "p.take(i.to(p.device())); p.take(i.to(p)); "
                  "p.take(torch::arange(2, p.options())); }"),
            (V{"the device of 'p' | the device of 'p'",
               "the device of 'p' | the device of 'p'",
               "the device of 'p' | the device of 'p'"}));
}

// The two call forms DeviceFlow reads as the op table places them: a
// torch::nn::functional function is a free LibTorch function (its result on
// its first tensor argument's device), a static member of a LibTorch class
// is no op (its result's device is not known).
TEST(DeviceFlow, FunctionalAndStaticMembers) {
  EXPECT_EQ(facts("void f(torch::Tensor w) { auto i = torch::arange(2); "
                  "w.take(torch::nn::functional::pad(i, "
                  "torch::nn::functional::PadFuncOptions({0, 1}))); }"),
            V{"the device of 'w' | the CPU"});
  EXPECT_EQ(facts("namespace at { struct Maker { static at::Tensor "
                  "make(const at::Tensor &t); }; } "
                  "void f(torch::Tensor w) { auto i = torch::arange(2); "
                  "w.take(at::Maker::make(i)); }"),
            V{"the device of 'w' | an unknown device"});
}

TEST(DeviceFlow, DeviceVariables) {
  EXPECT_EQ(
      facts("void f() { torch::Device d(torch::cuda::is_available() ? "
            "torch::kCUDA : torch::kCPU); auto x = torch::zeros({2}).to(d); "
            "x.take(torch::arange(2)); }"),
      V{"the device held by 'd' (CUDA when available) | the CPU"});
  EXPECT_EQ(facts("void f(torch::Device d) { torch::Device e = d; "
                  "auto x = torch::zeros({2}, torch::device(e)); "
                  "x.take(torch::arange(2)); }"),
            V{"the device held by 'd' | the CPU"});
  EXPECT_EQ(facts("void f() { torch::Device d(torch::kCUDA); "
                  "torch::zeros({2}).to(d).take(torch::arange(2)); }"),
            V{"CUDA | the CPU"});
  // d reassigned: tensors moved to its old run-time value are Unknown.
  EXPECT_EQ(facts("void f(torch::Device d) { auto x = torch::zeros({2}).to(d); "
                  "d = torch::kCPU; x.take(torch::arange(2).to(d)); }"),
            V{"the device of 'x' | the CPU"});
}

TEST(DeviceFlow, JoinsAndReassignment) {
  EXPECT_EQ(facts("void f(bool c) { auto i = torch::arange(2); "
                  "if (c) i = i.cuda(); torch::zeros({2}).take(i); }"),
            V{"the CPU | the device of 'i'"});
  EXPECT_EQ(facts("void f(bool c) { auto i = torch::arange(2); "
                  "if (c) i = i.cuda(); else i = torch::zeros({2}, "
                  "torch::kCUDA); torch::zeros({2}).take(i); }"),
            V{"the CPU | CUDA"});
  EXPECT_EQ(facts("void f(int n) { auto i = torch::arange(2); "
                  "while (n--) { torch::zeros({2}).take(i); i = i.cuda(); } }"),
            V{"the CPU | the device of 'i'"});
  // SameAs(t) of a reassigned t keeps t's old, known device.
  EXPECT_EQ(facts("void f() { auto t = torch::zeros({2}); auto i = t.clone(); "
                  "t = t.cuda(); t.take(i); }"),
            V{"CUDA | the CPU"});
}

TEST(DeviceFlow, Modules) {
  EXPECT_EQ(facts("void f(torch::Device d) { torch::nn::Embedding e(4, 2); "
                  "e(torch::arange(2)); e->to(d); e(torch::arange(2)); "
                  "e->to(torch::kFloat); e->forward(torch::arange(2)); "
                  "e->to(torch::kCUDA); e(torch::arange(2).cuda()); }"),
            (V{"the CPU | the CPU", "the device held by 'd' | the CPU",
               "the device held by 'd' | the CPU", "CUDA | CUDA"}));
  // Output of a module call is on the module's device.
  EXPECT_EQ(facts("void f() { torch::nn::Linear l(2, 2); l->to(torch::kCUDA); "
                  "auto y = l(torch::zeros({2})); y.take(torch::arange(1)); }"),
            V{"CUDA | the CPU"});
}

TEST(DeviceFlow, ZeroDim) {
  auto AST = parse("void f() { auto x = torch::zeros({2}).cuda(); "
                   "x.take(torch::arange(2).sum()); x.take(torch::arange(2)); "
                   "x.take(torch::scalar_tensor(1)); }");
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                  AST->getASTContext());
  DeviceFlow Flow;
  ASSERT_TRUE(Flow.analyze(Fs.front().getNodeAs<clang::FunctionDecl>("f"),
                           AST->getASTContext()));
  ASSERT_EQ(Flow.sites().size(), 3U);
  EXPECT_TRUE(Flow.sites()[0].Index.ZeroDim);
  EXPECT_EQ(Flow.sites()[0].Mismatch, IndexDeviceMismatch::None);
  EXPECT_FALSE(Flow.sites()[1].Index.ZeroDim);
  EXPECT_EQ(Flow.sites()[1].Mismatch, IndexDeviceMismatch::Error);
  EXPECT_TRUE(Flow.sites()[2].Index.ZeroDim);
}

TEST(DeviceFlow, Classification) {
  auto Fact = [](DeviceFact::Kind K) {
    DeviceFact F;
    F.K = K;
    return F;
  };
  using F = DeviceFact;
  using M = IndexDeviceMismatch;
  EXPECT_EQ(
      classifyIndexDevices(IndexOpSite::Gather, Fact(F::CUDA), Fact(F::CPU)),
      M::Error);
  EXPECT_EQ(classifyIndexDevices(IndexOpSite::AdvancedIndex, Fact(F::CUDA),
                                 Fact(F::CPU)),
            M::ImplicitCopy);
  EXPECT_EQ(classifyIndexDevices(IndexOpSite::AdvancedIndex, Fact(F::CPU),
                                 Fact(F::CUDA)),
            M::Error);
  EXPECT_EQ(
      classifyIndexDevices(IndexOpSite::Take, Fact(F::DeviceOf), Fact(F::CPU)),
      M::Error);
  EXPECT_EQ(
      classifyIndexDevices(IndexOpSite::Take, Fact(F::DeviceOf), Fact(F::CUDA)),
      M::None);
  EXPECT_EQ(
      classifyIndexDevices(IndexOpSite::Take, Fact(F::Unknown), Fact(F::CPU)),
      M::None);
  EXPECT_EQ(
      classifyIndexDevices(IndexOpSite::Take, Fact(F::SameAs), Fact(F::CUDA)),
      M::None);
}

TEST(DeviceFlow, Lattice) {
  const DeviceFact A = DeviceFact::make(DeviceFact::CPU, nullptr);
  const DeviceFact B = DeviceFact::make(DeviceFact::CUDA, nullptr);
  EXPECT_EQ(join(A, A).K, DeviceFact::CPU);
  EXPECT_EQ(join(A, B).K, DeviceFact::Unknown);
  EXPECT_EQ(join(A, DeviceFact::unknown()).K, DeviceFact::Unknown);
}

TEST(DeviceFlow, ContainsIndexOpAndDependentCode) {
  auto AST = parse("template <typename T> void f(T t) { t.take(t); }\n"
                   "void g(torch::Tensor x) { x + x; }\n"
                   "void h(torch::Tensor x) { x.gather(0, x); }\n");
  auto &Ctx = AST->getASTContext();
  auto Find = [&](llvm::StringRef Name) {
    return match(functionDecl(hasName(Name), isDefinition()).bind("f"), Ctx)
        .front()
        .getNodeAs<clang::FunctionDecl>("f");
  };
  DeviceFlow Flow;
  EXPECT_FALSE(Flow.analyze(Find("f"), Ctx));
  EXPECT_FALSE(containsIndexOp(Find("g")->getBody()));
  EXPECT_TRUE(containsIndexOp(Find("h")->getBody()));
}

/// The ops of `f` whose operands must be on one device, each as "op:
/// fact, fact..." (a module call names the module's fact first).
std::vector<std::string> combines(const std::string &Code) {
  auto AST = parse(Code);
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                  AST->getASTContext());
  EXPECT_EQ(Fs.size(), 1U);
  if (Fs.empty())
    return {};
  DeviceFlow Flow;
  Flow.setCollectCombineSites(true);
  EXPECT_TRUE(Flow.analyze(Fs.front().getNodeAs<clang::FunctionDecl>("f"),
                           AST->getASTContext()));
  std::vector<std::string> Out;
  for (const CombineSiteFacts &C : Flow.combineSites()) {
    std::string S =
        C.Module ? "module " + C.ModuleFact.describe() + ":" : "op:";
    for (const OperandFact &O : C.Operands)
      S += " " + O.Fact.describe() + ";";
    Out.push_back(S);
  }
  return Out;
}

TEST(DeviceFlow, CombineSites) {
  // Operators of two tensors, table ops (SameDevice), list elements.
  EXPECT_EQ(
      combines("void f(torch::Tensor x) { auto z = torch::zeros({2}); "
               "x + z; x * 2.0; x.mul(z); torch::cat({x, z, x}); "
               "x.index_select(0, z); }"),
      (V{"op: the device of 'x'; the CPU;", "op: the device of 'x'; the CPU;",
         "op: the device of 'x'; the CPU; the device of 'x';"}));
  // Nested operators are each one site, in source order; index ops and
  // scalar operands are none.
  EXPECT_EQ(combines("void f(torch::Tensor x, torch::Tensor y) { "
                     "(x + y) - x; }"),
            (V{"op: the device of 'x'; the device of 'x';",
               "op: the device of 'x'; the device of 'y';"}));
  // A module call: its device, then its tensor inputs; its output is on
  // the module's device.
  EXPECT_EQ(
      combines("struct M : torch::nn::Module { torch::nn::Linear fc{nullptr};"
               " torch::Tensor f(torch::Tensor x) { auto h = fc(x); "
               "return h + torch::ones({2}); } };"),
      (V{"module the device of 'fc': the device of 'x';",
         "op: the device of 'fc'; the CPU;"}));
  // Off unless asked.
  auto AST = parse("void f(torch::Tensor x) { x + x; }");
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                  AST->getASTContext());
  DeviceFlow Flow;
  ASSERT_TRUE(Flow.analyze(Fs.front().getNodeAs<clang::FunctionDecl>("f"),
                           AST->getASTContext()));
  EXPECT_TRUE(Flow.combineSites().empty());
}

// What each return gives back, and which locals keep their initialiser's
// value (never assigned, never escaping).
TEST(DeviceFlow, ReturnsAndKeptInitializers) {
  auto AST = parse("void g(torch::Tensor &t);\n"
                   "torch::Tensor f(torch::Tensor x, bool c) {\n"
                   "auto a = torch::zeros({2}); auto b = torch::ones({2});\n"
                   "auto r = torch::ones({2}); auto e = torch::ones({2});\n"
                   "b = b.to(x.device()); g(r); auto l = [&e] { e = e * 2; };\n"
                   "if (c) return a.triu(1); return x + b; }\n");
  clang::ASTContext &Ctx = AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  ASSERT_EQ(Fs.size(), 1U);
  const DeviceFlow *Flow =
      sharedDeviceFlow(Fs.front().getNodeAs<clang::FunctionDecl>("f"), Ctx);
  ASSERT_TRUE(Flow);
  std::vector<std::string> Returned;
  for (const OperandFact &R : Flow->returns())
    Returned.push_back(R.Fact.describe());
  EXPECT_EQ(Returned, (V{"the CPU", "the device of 'x'"}));
  auto Var = [&](llvm::StringRef Name) {
    auto Vs =
        match(varDecl(hasName(Name), hasAncestor(functionDecl(hasName("f"))))
                  .bind("v"),
              Ctx);
    return Vs.empty() ? nullptr : Vs.front().getNodeAs<clang::VarDecl>("v");
  };
  EXPECT_TRUE(Flow->keepsInitializer(Var("a")));
  EXPECT_FALSE(Flow->keepsInitializer(Var("b"))); // assigned
  EXPECT_FALSE(Flow->keepsInitializer(Var("r"))); // by non-const reference
  EXPECT_FALSE(Flow->keepsInitializer(Var("e"))); // captured by reference
  EXPECT_FALSE(Flow->keepsInitializer(Var("x"))); // no initialiser
}

// The checks share one device flow of a function (with its combine sites):
// asked twice, the same analysis, with what a fresh one finds; none for a
// function template's pattern, as analyze declines it.
TEST(DeviceFlow, SharedOncePerFunction) {
  auto AST = parse("void f() { auto x = torch::zeros({2}).cuda(); "
                   "auto i = torch::arange(2); x.take(i); auto y = x + i; }\n"
                   "template <typename T> void g(T t) { t.take(t); }\n");
  clang::ASTContext &Ctx = AST->getASTContext();
  auto Fs = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  ASSERT_EQ(Fs.size(), 1U);
  const auto *F = Fs.front().getNodeAs<clang::FunctionDecl>("f");
  const DeviceFlow *Shared = sharedDeviceFlow(F, Ctx);
  ASSERT_TRUE(Shared);
  EXPECT_EQ(sharedDeviceFlow(F, Ctx), Shared);
  DeviceFlow Fresh;
  Fresh.setCollectCombineSites(true);
  ASSERT_TRUE(Fresh.analyze(F, Ctx));
  ASSERT_EQ(Shared->sites().size(), 1U);
  EXPECT_EQ(Shared->sites().size(), Fresh.sites().size());
  EXPECT_EQ(Shared->sites()[0].Source.describe(), "CUDA");
  EXPECT_EQ(Shared->sites()[0].Index.describe(), "the CPU");
  EXPECT_EQ(Shared->combineSites().size(), Fresh.combineSites().size());
  EXPECT_FALSE(Shared->combineSites().empty());
  auto Gs = match(
      functionTemplateDecl(hasName("g"), has(functionDecl().bind("g"))), Ctx);
  ASSERT_EQ(Gs.size(), 1U);
  EXPECT_EQ(
      sharedDeviceFlow(Gs.front().getNodeAs<clang::FunctionDecl>("g"), Ctx),
      nullptr);
  EXPECT_EQ(sharedDeviceFlow(nullptr, Ctx), nullptr);
}

} // namespace
