//===--- RegistrationTest.cpp - registration facts ------------------------===//

#include "torchtidy/analysis/Registration.h"
#include "ASTFixture.h"
#include "torchtidy/analysis/ProjectSummaries.h"

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

TEST(Registration, SharedPerClassAndTranslationUnit) {
  auto A = analyse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
      torch::nn::Linear fc{nullptr};
      torch::Tensor mask;
    };
    struct OpaqueImpl : torch::nn::Module {
      OpaqueImpl();
      torch::Tensor w;
    };
  )cpp");
  ASSERT_TRUE(A->RD);
  // The same object for every asker, with what analyze found.
  const ModuleRegistration &R = registrationOf(A->RD);
  EXPECT_EQ(&R, &registrationOf(A->RD));
  EXPECT_TRUE(R.complete());
  EXPECT_EQ(R.complete(), A->Complete);
  ASSERT_EQ(R.members().size(), A->R.members().size());
  EXPECT_TRUE(R.members().find(findField(A->RD, "fc"))->second.Registered);
  EXPECT_FALSE(R.members().find(findField(A->RD, "mask"))->second.Registered);
  // Following summaries is another analysis.
  EXPECT_NE(&R, &registrationOf(A->RD, /*FollowSummaries=*/true));
  // A constructor with no body here: incomplete, and asked once too.
  const clang::CXXRecordDecl *Opaque = findClass(*A->AST, "OpaqueImpl");
  ASSERT_TRUE(Opaque);
  const ModuleRegistration &O = registrationOf(Opaque);
  EXPECT_FALSE(O.complete());
  EXPECT_EQ(&O, &registrationOf(Opaque));
  EXPECT_FALSE(registrationOf(nullptr).complete());
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

TEST(Registration, BuildingCodeOfAnotherUnitFromItsSummary) {
  // The unit that defines init() and forward() summarises them.
  auto Other = parse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl();
      void init() {
        fc = register_module("fc", torch::nn::Linear(2, 2));
        mask = torch::ones({2});
        more();
      }
      void more();
      torch::Tensor forward(torch::Tensor x) {
        return fc(x) * mask.to(x.device()) + mask;
      }
      torch::nn::Linear fc{nullptr};
      torch::Tensor mask;
    };
  )cpp");
  ProjectSummaries &P = ProjectSummaries::instance();
  P.clear();
  P.disable();
  const TranslationUnitSummary Summary =
      summarizeTranslationUnit(Other->getASTContext(), /*MaxCallDepth=*/4);
  const FunctionSummary *Init = nullptr, *Forward = nullptr;
  for (const FunctionSummary &F : Summary.Functions) {
    if (F.Name == "NetImpl::init")
      Init = &F;
    if (F.Name == "NetImpl::forward")
      Forward = &F;
  }
  ASSERT_TRUE(Init && Init->MemberEffects);
  ASSERT_EQ(Init->MemberEffects->Members.size(), 2U);
  EXPECT_EQ(Init->MemberEffects->Members[0].Name, "fc");
  EXPECT_TRUE(Init->MemberEffects->Members[0].Registered);
  EXPECT_EQ(Init->MemberEffects->Members[1].Name, "mask");
  EXPECT_FALSE(Init->MemberEffects->Members[1].Registered);
  ASSERT_EQ(Init->MemberEffects->Members[1].Writes.size(), 1U);
  EXPECT_EQ(Init->MemberEffects->Members[1].Writes[0].How, "assigned");
  EXPECT_FALSE(Init->MemberEffects->Members[1].Writes[0].Null);
  // more() has no body there: named, for the reader to find.
  ASSERT_EQ(Init->MemberEffects->Calls.size(), 1U);
  EXPECT_EQ(Init->MemberEffects->Calls[0].Name, "NetImpl::more");
  // forward reads mask twice, once moved to the input's device, and fc.
  ASSERT_TRUE(Forward && Forward->MemberEffects);
  for (const FunctionSummary::MemberEffect &E : Forward->MemberEffects->Members)
    if (E.Name == "mask") {
      EXPECT_EQ(E.Reads, 2U);
      EXPECT_EQ(E.MovedReads, 1U);
      EXPECT_TRUE(E.Writes.empty());
    }

  // The unit that reports: the constructor calls init(), which it does not
  // define, and more() is its own.
  auto A = std::make_unique<Analysed>();
  A->AST = parse(R"cpp(
    struct NetImpl : torch::nn::Module {
      NetImpl() { init(); }
      void init();
      void more() { extra = torch::zeros({3}); }
      torch::Tensor forward(torch::Tensor x);
      torch::nn::Linear fc{nullptr};
      torch::Tensor mask;
      torch::Tensor extra;
    };
  )cpp");
  A->RD = findClass(*A->AST, "NetImpl");
  ASSERT_TRUE(A->RD);
  // Without summaries, as before: nothing known, nothing asked.
  EXPECT_FALSE(A->R.analyze(A->RD));
  EXPECT_TRUE(P.takeAsked().empty());
  // Following them with none at hand: nothing known; init was asked about.
  EXPECT_FALSE(A->R.analyze(A->RD, /*FollowSummaries=*/true));
  const std::vector<std::string> Asked = P.takeAsked();
  ASSERT_EQ(Asked.size(), 1U);
  EXPECT_EQ(Asked[0], "memberEffects " + Init->USR);
  // With init's and forward's summaries: fc registered there, mask written
  // there without registration, more() walked here, the reads of forward
  // counted.
  P.set(LinkedSummaries{{*Forward, *Init}});
  ASSERT_TRUE(A->R.analyze(A->RD, /*FollowSummaries=*/true));
  const MemberFacts &Fc = (*A)["fc"];
  EXPECT_TRUE(Fc.Registered);
  EXPECT_FALSE(Fc.RegisteredAt);
  ASSERT_TRUE(Fc.RegisteredElsewhere);
  EXPECT_EQ(Fc.RegisteredElsewhere->Line,
            Init->MemberEffects->Members[0].Registered->Line);
  const MemberFacts &Mask = (*A)["mask"];
  EXPECT_FALSE(Mask.Registered);
  ASSERT_EQ(Mask.Writes.size(), 1U);
  EXPECT_TRUE(Mask.Writes[0].Elsewhere);
  EXPECT_FALSE(Mask.Writes[0].Site);
  EXPECT_EQ(Mask.ReadsElsewhere, 2U);
  EXPECT_EQ(Mask.MovedReadsElsewhere, 1U);
  EXPECT_FALSE(Mask.ReadsUnknown);
  ASSERT_EQ(Mask.BuiltElsewhere.size(), 1U);
  EXPECT_EQ(Mask.BuiltElsewhere[0].first, "NetImpl::init");
  const MemberFacts &Extra = (*A)["extra"];
  ASSERT_EQ(Extra.Writes.size(), 1U);
  EXPECT_TRUE(Extra.Writes[0].Site);
  // Without forward's summary its reads are unknown.
  P.set(LinkedSummaries{{*Init}});
  ASSERT_TRUE(A->R.analyze(A->RD, /*FollowSummaries=*/true));
  EXPECT_TRUE((*A)["mask"].ReadsUnknown);
  P.clear();
  P.disable();
}

} // namespace
