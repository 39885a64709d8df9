//===--- RegistrationTest.cpp - registration facts ------------------------===//

#include "torchtidy/analysis/Registration.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;

namespace {

struct Analysed {
  std::unique_ptr<clang::ASTUnit> AST;
  ModuleRegistration R;
  bool Complete = false;
  const clang::CXXRecordDecl *RD = nullptr;

  const MemberFacts &operator[](llvm::StringRef Name) const {
    const clang::FieldDecl *FD = findField(RD, Name);
    EXPECT_TRUE(FD) << Name.str();
    const auto *It = R.members().find(FD);
    EXPECT_TRUE(It != R.members().end()) << Name.str();
    return It->second;
  }
};

std::unique_ptr<Analysed> analyse(const std::string &Code,
                                  llvm::StringRef Class = "NetImpl") {
  auto A = std::make_unique<Analysed>();
  A->AST = parse(Code);
  A->RD = findClass(*A->AST, Class);
  EXPECT_TRUE(A->RD);
  if (A->RD)
    A->Complete = A->R.analyze(A->RD);
  return A;
}

TEST(Registration, AssignedFromRegisterCalls) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() : b(register_buffer("b", torch::zeros({2}))) {
        w = register_parameter("w", torch::randn({3})).set_requires_grad(true);
        fc = register_module("fc", torch::nn::Linear(3, 4));
        plain = torch::ones({3});
      }
      torch::Tensor w, b, plain;
      torch::nn::Linear fc{nullptr};
    };
  )cpp");
  ASSERT_TRUE(A->Complete);
  EXPECT_TRUE((*A)["w"].Registered);
  EXPECT_TRUE((*A)["b"].Registered);
  EXPECT_TRUE((*A)["fc"].Registered);
  EXPECT_FALSE((*A)["plain"].Registered);
  ASSERT_EQ((*A)["plain"].Writes.size(), 1U);
  EXPECT_TRUE((*A)["plain"].Writes[0].IsTopLevelAssignment);
  EXPECT_EQ((*A)["plain"].Writes[0].How, MemberWrite::Assignment);
}

TEST(Registration, PassedItselfOrThroughAlias) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() {
        mask = torch::ones({3});
        register_buffer("mask", mask);
        auto layer = torch::nn::Linear(2, 2);
        rnn = layer;
        register_module("rnn", layer);
        auto t = torch::zeros({1});
        shared = t;
        other = torch::zeros({1});
      }
      torch::Tensor mask, shared, other;
      torch::nn::Linear rnn{nullptr};
    };
  )cpp");
  ASSERT_TRUE(A->Complete);
  EXPECT_TRUE((*A)["mask"].Registered);
  EXPECT_TRUE((*A)["rnn"].Registered);
  // `t` is never registered, so `shared` is not either.
  EXPECT_FALSE((*A)["shared"].Registered);
  EXPECT_FALSE((*A)["other"].Registered);
}

TEST(Registration, ContainersFilledOrIterated) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() {
        for (int i = 0; i < 3; ++i)
          filled.push_back(register_module("l" + std::to_string(i),
                                           torch::nn::Linear(2, 2)));
        for (int i = 0; i < 3; ++i)
          iterated.push_back(torch::nn::Linear(2, 2));
        for (auto &l : iterated)
          register_module("it", l);
        indexed.push_back(torch::zeros({1}));
        register_buffer("x", indexed[0]);
        loose.push_back(torch::zeros({1}));
      }
      std::vector<torch::nn::Linear> filled, iterated;
      std::vector<torch::Tensor> indexed, loose;
    };
  )cpp");
  ASSERT_TRUE(A->Complete);
  EXPECT_TRUE((*A)["filled"].Registered);
  EXPECT_TRUE((*A)["iterated"].Registered);
  EXPECT_TRUE((*A)["indexed"].Registered);
  EXPECT_FALSE((*A)["loose"].Registered);
  ASSERT_EQ((*A)["loose"].Writes.size(), 1U);
  EXPECT_EQ((*A)["loose"].Writes[0].How, MemberWrite::ContainerFill);
}

TEST(Registration, ResetAndCalledHelpersAreBuildingCode) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Cloneable<NetImpl> {
      NetImpl() { reset(); }
      void reset() override { init(); }
      void init() { w = register_parameter("w", torch::randn({2})); }
      torch::Tensor forward(torch::Tensor x) { last = x; return x; }
      torch::Tensor w, last;
    };
  )cpp");
  ASSERT_TRUE(A->Complete);
  EXPECT_TRUE((*A)["w"].Registered);
  EXPECT_FALSE((*A)["last"].Registered);
  // forward() is not building code: its write is not recorded.
  EXPECT_TRUE((*A)["last"].Writes.empty());
}

TEST(Registration, ConstructorDefinedElsewhereKnowsNothing) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl();
      torch::Tensor w;
    };
  )cpp");
  EXPECT_FALSE(A->Complete);
  auto B = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() { init(); }
      void init();
      torch::Tensor w;
    };
  )cpp");
  EXPECT_FALSE(B->Complete);
}

TEST(Registration, NullHoldersAndDefaultInitialisers) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() {}
      torch::nn::Linear empty{nullptr};
      torch::Tensor init = torch::zeros({2});
      torch::Tensor reg = register_buffer("reg", torch::zeros({2}));
    };
  )cpp");
  ASSERT_TRUE(A->Complete);
  ASSERT_EQ((*A)["empty"].Writes.size(), 1U);
  EXPECT_TRUE((*A)["empty"].Writes[0].IsNull);
  ASSERT_EQ((*A)["init"].Writes.size(), 1U);
  EXPECT_EQ((*A)["init"].Writes[0].How, MemberWrite::DefaultMemberInit);
  EXPECT_FALSE((*A)["init"].Registered);
  EXPECT_TRUE((*A)["reg"].Registered);
}

TEST(Registration, DependentBaseInClassTemplate) {
  auto A = analyse(R"cpp(
    template <typename T>
    struct NetImpl : torch::nn::Cloneable<NetImpl<T>> {
      NetImpl() { reset(); }
      void reset() override {
        w = this->register_parameter("w", torch::randn({2}));
        plain = torch::zeros({2});
      }
      torch::Tensor w, plain;
    };
  )cpp");
  ASSERT_TRUE(A->Complete);
  EXPECT_TRUE((*A)["w"].Registered);
  EXPECT_FALSE((*A)["plain"].Registered);
}

TEST(Registration, RecognisesRegistrationExpressions) {
  auto AST = parse(R"cpp(
    struct M : torch::nn::Module {
      void f() {
        register_buffer("a", torch::zeros({1}));
        register_parameter("b", torch::zeros({1})).set_requires_grad(false);
        torch::zeros({1}).clone();
      }
    };
  )cpp");
  using namespace clang::ast_matchers;
  auto Calls =
      match(cxxMethodDecl(hasName("f"),
                          hasBody(compoundStmt(forEach(expr().bind("e"))))),
            AST->getASTContext());
  ASSERT_EQ(Calls.size(), 3U);
  EXPECT_TRUE(isRegistrationExpr(Calls[0].getNodeAs<clang::Expr>("e")));
  EXPECT_TRUE(isRegistrationExpr(Calls[1].getNodeAs<clang::Expr>("e")));
  EXPECT_FALSE(isRegistrationExpr(Calls[2].getNodeAs<clang::Expr>("e")));
}

} // namespace
