//===--- OpSwitchTest.cpp - per-op transfer chosen by the op table --------===//

#include "torchtidy/analysis/OpSwitch.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

/// A switch that names the case that took each call, in order.
const OpSwitch<std::string> &namingSwitch() {
  using R = std::optional<std::string>;
  static const OpSwitch<std::string> S =
      OpSwitch<std::string>()
          .caseOf(facts(op::PassesThrough).args(1),
                  [](const OpCall &) -> R { return "pass-through"; })
          // Declines every call: the next case tries.
          .caseOf(anyCall(), [](const OpCall &) -> R { return std::nullopt; })
          .caseOf(form(op::Method).named({op::Named::where}),
                  [](const OpCall &) -> R { return "method where"; })
          .caseOf(form(op::Aten).named({op::Named::where}),
                  [](const OpCall &) -> R { return "free where"; })
          .caseOf(form(op::Aten).anyOf(op::Factory).noneOf(op::ZeroDimResult),
                  [](const OpCall &) -> R { return "factory"; })
          .caseOf(OpPattern().forms({op::NoForm, op::Global}),
                  [](const OpCall &) -> R { return "no form"; });
  return S;
}

/// What the switch says of each call in f's body, in source order.
std::vector<std::string> cases(const std::string &Prologue,
                               const std::string &Body) {
  auto AST = parse(Prologue + "void f(torch::Tensor x, torch::Tensor m) {\n" +
                   Body + "\n}\n");
  std::vector<std::string> Out;
  for (const auto &M : match(
           functionDecl(hasName("f"), forEachDescendant(callExpr().bind("c"))),
           AST->getASTContext()))
    Out.push_back(namingSwitch()(OpCall::of(M.getNodeAs<clang::CallExpr>("c")),
                                 "default"));
  return Out;
}

TEST(OpSwitch, FirstMatchingCaseDecides) {
  EXPECT_EQ(cases("", "x.where(m, x);"),
            std::vector<std::string>({"method where"}));
  EXPECT_EQ(cases("", "torch::where(m, x, x);"),
            std::vector<std::string>({"free where"}));
  // zeros is a factory of a tensor that is not zero-dimensional.
  EXPECT_EQ(cases("", "torch::zeros({2});"),
            std::vector<std::string>({"factory"}));
  // A method the table says nothing of reaches the default.
  EXPECT_EQ(cases("", "x.numel();"), std::vector<std::string>({"default"}));
}

TEST(OpSwitch, PatternsOfFactsNamesFormsAndArguments) {
  // std::move passes its one argument through.
  EXPECT_EQ(cases("#include <utility>\n", "std::move(x);"),
            std::vector<std::string>({"pass-through"}));
  // A function of the file: no form in the table.
  EXPECT_EQ(cases("int helper();\n", "helper();"),
            std::vector<std::string>({"no form"}));
}

TEST(OpSwitch, ReadsTheCallOnce) {
  auto AST = parse("void f(torch::Tensor x) { x.where(x, x); }\n");
  const auto *Call = selectFirst<clang::CallExpr>(
      "c",
      match(functionDecl(hasName("f"), forEachDescendant(callExpr().bind("c"))),
            AST->getASTContext()));
  ASSERT_TRUE(Call);
  const OpCall C = OpCall::of(Call);
  EXPECT_EQ(C.Call, Call);
  EXPECT_EQ(C.Callee, Call->getDirectCallee());
  EXPECT_EQ(C.Form, op::Method);
  EXPECT_EQ(C.Facts, callFacts(Call));
  // No call: no pattern matches it, not even anyCall().
  EXPECT_FALSE(anyCall().matches(OpCall::of(nullptr)));
  EXPECT_EQ(namingSwitch().size(), 6U);
}

} // namespace
