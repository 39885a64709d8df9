//===--- TorchTypesTest.cpp - recognising LibTorch types ------------------===//

#include "torchtidy/analysis/TorchTypes.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;

namespace {

const char *const Members = R"cpp(
  struct Own { at::Tensor t; };
  using MyTensor = torch::Tensor;
  struct NetImpl : torch::nn::Module {
    torch::Tensor a;
    MyTensor b;
    torch::autograd::Variable c;
    c10::optional<torch::Tensor> d;
    std::vector<torch::Tensor> e;
    std::map<std::string, at::Tensor> f;
    torch::nn::Linear g{nullptr};
    std::shared_ptr<torch::nn::LinearImpl> h;
    std::vector<torch::nn::Linear> i;
    torch::nn::ReLU j;
    int k;
    Own l;
    torch::Tensor *m;
    std::shared_ptr<Own> n;
    torch::nn::Sequential o;
  };
  TORCH_MODULE(Net);
  struct Holder { Net net{nullptr}; };
)cpp";

MemberClass classOf(const clang::CXXRecordDecl *RD, llvm::StringRef Field) {
  const clang::FieldDecl *FD = findField(RD, Field);
  EXPECT_TRUE(FD) << Field.str();
  return FD ? classifyMemberType(FD->getType()) : MemberClass();
}

TEST(TorchTypes, TensorUnderAnyAlias) {
  auto AST = parse(Members);
  const auto *RD = findClass(*AST, "NetImpl");
  ASSERT_TRUE(RD);
  for (const char *Name : {"a", "b", "c"}) {
    const MemberClass C = classOf(RD, Name);
    EXPECT_EQ(C.K, MemberClass::Tensor) << Name;
    EXPECT_FALSE(C.InContainer || C.IsOptional) << Name;
  }
  EXPECT_TRUE(isTensorType(findField(RD, "a")->getType()));
  EXPECT_FALSE(isTensorType(findField(RD, "k")->getType()));
}

TEST(TorchTypes, OptionalAndContainersOfTensors) {
  auto AST = parse(Members);
  const auto *RD = findClass(*AST, "NetImpl");
  ASSERT_TRUE(RD);
  const MemberClass D = classOf(RD, "d");
  EXPECT_EQ(D.K, MemberClass::Tensor);
  EXPECT_TRUE(D.IsOptional);
  for (const char *Name : {"e", "f"}) {
    const MemberClass C = classOf(RD, Name);
    EXPECT_EQ(C.K, MemberClass::Tensor) << Name;
    EXPECT_TRUE(C.InContainer) << Name;
  }
}

TEST(TorchTypes, Submodules) {
  auto AST = parse(Members);
  const auto *RD = findClass(*AST, "NetImpl");
  ASSERT_TRUE(RD);
  const MemberClass G = classOf(RD, "g");
  EXPECT_EQ(G.K, MemberClass::Submodule);
  ASSERT_TRUE(G.Module);
  EXPECT_EQ(G.Module->getName(), "LinearImpl");
  EXPECT_FALSE(G.IsSharedPtr);

  const MemberClass H = classOf(RD, "h");
  EXPECT_EQ(H.K, MemberClass::Submodule);
  EXPECT_TRUE(H.IsSharedPtr);

  const MemberClass I = classOf(RD, "i");
  EXPECT_EQ(I.K, MemberClass::Submodule);
  EXPECT_TRUE(I.InContainer);

  const MemberClass J = classOf(RD, "j");
  EXPECT_EQ(J.K, MemberClass::Submodule);
  EXPECT_TRUE(isStatelessModule(J.Module));
  EXPECT_FALSE(isStatelessModule(G.Module));

  EXPECT_EQ(classOf(RD, "o").K, MemberClass::Submodule);
}

TEST(TorchTypes, UserTorchModuleHolder) {
  auto AST = parse(Members);
  const auto *Holder = findClass(*AST, "Holder");
  ASSERT_TRUE(Holder);
  const MemberClass C = classOf(Holder, "net");
  EXPECT_EQ(C.K, MemberClass::Submodule);
  ASSERT_TRUE(C.Module);
  EXPECT_EQ(C.Module->getName(), "NetImpl");
  EXPECT_TRUE(isModuleClass(C.Module));
}

TEST(TorchTypes, LookAlikesAreNotTorch) {
  auto AST = parse(Members);
  const auto *RD = findClass(*AST, "NetImpl");
  ASSERT_TRUE(RD);
  for (const char *Name : {"k", "l", "m", "n"})
    EXPECT_EQ(classOf(RD, Name).K, MemberClass::None) << Name;
}

TEST(TorchTypes, ModuleClassesThroughBases) {
  auto AST = parse(R"cpp(
    struct Base : torch::nn::Module {};
    struct Derived : Base {};
    struct ViaCloneable : torch::nn::Cloneable<ViaCloneable> { void reset() override {} };
    template <typename T> struct Tmpl : torch::nn::Cloneable<Tmpl<T>> { void reset() override {} };
    struct Module {};
    struct NotTorch : Module {};
    namespace other { namespace nn { struct Module {}; } }
    struct AlsoNot : other::nn::Module {};
  )cpp");
  for (const char *Name : {"Base", "Derived", "ViaCloneable", "Tmpl"})
    EXPECT_TRUE(isModuleClass(findClass(*AST, Name))) << Name;
  for (const char *Name : {"NotTorch", "AlsoNot"})
    EXPECT_FALSE(isModuleClass(findClass(*AST, Name))) << Name;
}

// A class of the table (TORCHTIDY_CLASS) is its name in one of its row's
// scopes, past inline namespaces (libstdc++'s std::__cxx11::basic_string) and
// linkage specifications (its std::exception, inside `extern "C++"`); a "*"
// row is its name in any namespace, a "" row the name in the global
// namespace only.
TEST(TorchTypes, ClassesOfTheTable) {
  auto AST = parse(R"cpp(
    namespace other {
    struct Device {};
    struct Scalar {};
    struct dim3 {};
    struct exception {};
    }
    struct dim3 {};
    extern "C++" { struct CUstream_st {}; }
  )cpp");
  // The mock's classes and libstdc++'s are looked up too.
  wholeTranslationUnit(*AST);
  EXPECT_TRUE(isClass(findClass(*AST, "c10::Device"), KnownClass::Device));
  EXPECT_FALSE(isClass(findClass(*AST, "other::Device"), KnownClass::Device));
  // The mock declares at::TensorOptions (the row's second scope; LibTorch's
  // is c10's).
  EXPECT_TRUE(
      isClass(findClass(*AST, "at::TensorOptions"), KnownClass::TensorOptions));
  EXPECT_TRUE(isClass(findClass(*AST, "other::Scalar"), KnownClass::Scalar));
  EXPECT_TRUE(isClass(findClass(*AST, "::dim3"), KnownClass::dim3));
  EXPECT_FALSE(isClass(findClass(*AST, "other::dim3"), KnownClass::dim3));
  EXPECT_TRUE(
      isClass(findClass(*AST, "::CUstream_st"), KnownClass::CUstream_st));
  const clang::CXXRecordDecl *String = findClass(*AST, "std::basic_string");
  ASSERT_TRUE(String);
  EXPECT_TRUE(String->getDeclContext()->isInlineNamespace());
  EXPECT_TRUE(isClass(String, KnownClass::basic_string));
  const clang::CXXRecordDecl *Exception = findClass(*AST, "std::exception");
  ASSERT_TRUE(Exception);
  EXPECT_TRUE(llvm::isa<clang::LinkageSpecDecl>(
      Exception->getDeclContext()->getParent()));
  EXPECT_TRUE(isClass(Exception, KnownClass::exception));
  EXPECT_FALSE(
      isClass(findClass(*AST, "other::exception"), KnownClass::exception));
  EXPECT_TRUE(isClass(Exception, {KnownClass::Error, KnownClass::exception}));
  EXPECT_FALSE(isClass(String, {KnownClass::vector, KnownClass::array}));
  EXPECT_FALSE(isClass(nullptr, KnownClass::Tensor));
}

// What a translation unit declares, found as a qualified name would be:
// through an inline namespace, a using-directive and a using-declaration,
// and nothing where a namespace or the name is missing. A table class is looked
// up in each of its row's scopes; a row of any namespace is not looked up.
TEST(TorchTypes, LookupInTheTranslationUnit) {
  auto AST = parse(R"cpp(
    namespace lib { inline namespace v1 { namespace gpu { int stream(); } } }
    namespace lib { struct Tensor {}; }
    namespace base { constexpr int kOne = 1; struct Holder {}; }
    namespace api { using namespace base; using base::Holder; }
  )cpp");
  clang::ASTContext &Ctx = AST->getASTContext();
  const clang::NamedDecl *Stream = lookupQualified(Ctx, "lib::gpu", "stream");
  ASSERT_TRUE(Stream);
  EXPECT_TRUE(llvm::isa<clang::FunctionDecl>(Stream));
  EXPECT_FALSE(lookupQualified(Ctx, "lib::gpu", "event"));
  EXPECT_FALSE(lookupQualified(Ctx, "lib::cpu", "stream"));
  EXPECT_FALSE(lookupQualified(Ctx, "lib::gpu::stream", "x"));
  EXPECT_TRUE(llvm::isa_and_nonnull<clang::NamespaceDecl>(
      lookupQualified(Ctx, "", "torch")));
  // `api::kOne` through the using-directive, `api::Holder` through the
  // using-declaration: base's own declarations.
  const clang::NamedDecl *One = lookupQualified(Ctx, "api", "kOne");
  ASSERT_TRUE(One);
  EXPECT_TRUE(hasQualifiedName(One, "kOne", {"base"}));
  EXPECT_TRUE(hasQualifiedName(lookupQualified(Ctx, "api", "Holder"), "Holder",
                               {"base"}));
  const clang::NamedDecl *Tensor = lookupClass(Ctx, KnownClass::Tensor);
  ASSERT_TRUE(Tensor);
  EXPECT_TRUE(isClass(Tensor, KnownClass::Tensor));
  // The mock declares at::TensorOptions, the row's second scope.
  EXPECT_TRUE(isClass(lookupClass(Ctx, KnownClass::TensorOptions),
                      KnownClass::TensorOptions));
  EXPECT_FALSE(lookupClass(Ctx, KnownClass::Scalar));
}

} // namespace

// One device-literal parser for every device model; HIP counts as CUDA.
// The dtype and device-type enums under their aliases, through a typedef
// and through a reference (a parameter's declared type); another enum of
// the same name elsewhere is neither.
TEST(TorchTypes, DtypeAndDeviceTypeEnums) {
  auto AST = parse(R"cpp(
    namespace mine { enum class ScalarType { Float }; }
    using Dt = at::ScalarType;
    struct S {
      c10::ScalarType a;
      Dt b;
      const at::ScalarType &c;
      mine::ScalarType d;
      c10::DeviceType e;
      const torch::DeviceType &f;
      int g;
    };
  )cpp");
  const auto *RD = findClass(*AST, "S");
  ASSERT_TRUE(RD);
  auto TypeOf = [&](llvm::StringRef Name) {
    return findField(RD, Name)->getType();
  };
  for (const char *Name : {"a", "b", "c"}) {
    EXPECT_TRUE(isScalarTypeEnum(TypeOf(Name))) << Name;
    EXPECT_FALSE(isDeviceTypeEnum(TypeOf(Name))) << Name;
  }
  for (const char *Name : {"e", "f"}) {
    EXPECT_TRUE(isDeviceTypeEnum(TypeOf(Name))) << Name;
    EXPECT_FALSE(isScalarTypeEnum(TypeOf(Name))) << Name;
  }
  for (const char *Name : {"d", "g"}) {
    EXPECT_FALSE(isScalarTypeEnum(TypeOf(Name))) << Name;
    EXPECT_FALSE(isDeviceTypeEnum(TypeOf(Name))) << Name;
  }
  EXPECT_FALSE(isScalarTypeEnum(clang::QualType()));
}

TEST(TorchTypes, DeviceLiterals) {
  using torchtidy::DeviceLiteral;
  using torchtidy::parseDeviceString;
  EXPECT_EQ(parseDeviceString("cpu"), DeviceLiteral::CPU);
  EXPECT_EQ(parseDeviceString("cpu:0"), DeviceLiteral::CPU);
  EXPECT_EQ(parseDeviceString("cuda"), DeviceLiteral::CUDA);
  EXPECT_EQ(parseDeviceString("cuda:1"), DeviceLiteral::CUDA);
  EXPECT_EQ(parseDeviceString("hip"), DeviceLiteral::CUDA);
  EXPECT_EQ(parseDeviceString("hip:0"), DeviceLiteral::CUDA);
  EXPECT_EQ(parseDeviceString("mps"), DeviceLiteral::Other);
  EXPECT_EQ(parseDeviceString("xla:1"), DeviceLiteral::Other);
  // What c10::Device refuses.
  EXPECT_EQ(parseDeviceString(""), DeviceLiteral::Invalid);
  EXPECT_EQ(parseDeviceString(" cuda"), DeviceLiteral::Invalid);
  EXPECT_EQ(parseDeviceString("cuda:"), DeviceLiteral::Invalid);
  EXPECT_EQ(parseDeviceString("cuda:x"), DeviceLiteral::Invalid);
  EXPECT_EQ(parseDeviceString("CUDA"), DeviceLiteral::Invalid);
  EXPECT_EQ(torchtidy::deviceTypeLiteral("CPU"), DeviceLiteral::CPU);
  EXPECT_EQ(torchtidy::deviceTypeLiteral("CUDA"), DeviceLiteral::CUDA);
  EXPECT_EQ(torchtidy::deviceTypeLiteral("HIP"), DeviceLiteral::CUDA);
  EXPECT_EQ(torchtidy::deviceTypeLiteral("Meta"), DeviceLiteral::Other);
}

TEST(TorchTypes, AutogradFunctionApplyRunsForward) {
  auto AST =
      parse("struct Scale : torch::autograd::Function<Scale> {\n"
            "  static torch::Tensor forward(\n"
            "      torch::autograd::AutogradContext *, torch::Tensor x) {\n"
            "    return x;\n"
            "  }\n"
            "};\n"
            "struct Apply {\n"
            "  template <typename... A> static int apply(A...);\n"
            "};\n"
            "torch::Tensor f(torch::Tensor x) { return Scale::apply(x); }\n"
            "int g() { return Apply::apply(1); }\n");
  ASSERT_TRUE(AST);
  using namespace clang::ast_matchers;
  auto Calls = match(callExpr(callee(functionDecl(hasName("apply")))).bind("c"),
                     AST->getASTContext());
  ASSERT_EQ(Calls.size(), 2U);
  const clang::CXXMethodDecl *Forward = nullptr, *Other = nullptr;
  for (const auto &M : Calls) {
    const auto *Call = M.getNodeAs<clang::CallExpr>("c");
    const clang::CXXMethodDecl *Run =
        autogradFunctionForward(Call->getDirectCallee());
    (Call->getType()->isIntegerType() ? Other : Forward) = Run;
  }
  ASSERT_TRUE(Forward);
  EXPECT_EQ(Forward->getQualifiedNameAsString(), "Scale::forward");
  // apply() of another class runs nothing of the user's.
  EXPECT_FALSE(Other);
}

TEST(TorchTypes, DataExamples) {
  auto AST = parse("torch::data::Example<> e;\n"
                   "namespace other {\n"
                   "template <typename T = int> struct Example {};\n"
                   "}\n"
                   "other::Example<> o;\n");
  ASSERT_TRUE(AST);
  using namespace clang::ast_matchers;
  auto &Ctx = AST->getASTContext();
  auto E = match(varDecl(hasName("e")).bind("v"), Ctx);
  auto O = match(varDecl(hasName("o")).bind("v"), Ctx);
  ASSERT_FALSE(E.empty());
  ASSERT_FALSE(O.empty());
  EXPECT_TRUE(
      isDataExample(E.front().getNodeAs<clang::VarDecl>("v")->getType()));
  EXPECT_FALSE(
      isDataExample(O.front().getNodeAs<clang::VarDecl>("v")->getType()));
}
