//===--- TorchOpsTableTest.cpp - the op table against real LibTorch -------===//
//
// Every row of TorchOps.def names something that exists in the real LibTorch
// headers, in every form the row gives, and an index sink's source and index
// are the parameters the row says. A typo, a swapped operand or a form that
// does not exist fails here. Skipped when LibTorch is not installed.
// The headers are Debian's 1.13 by default; TORCHTIDY_TABLE_LIBTORCH_PREFIX
// names another release's (PREFIX/usr/include, tools/fetch-libtorch.sh), whose
// version the test reads from <torch/version.h>: rows of later releases
// (TORCHTIDY_OP_SINCE) and of earlier ones (TORCHTIDY_OP_UNTIL) are checked
// against it (ctest unit.table.libtorch2).
//
//===----------------------------------------------------------------------===//

#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace clang;
using namespace torchtidy;

namespace {

/// The include directories of the LibTorch under test: Debian's API directory
/// (its root is /usr/include), or both of another prefix's.
std::vector<std::string> torchIncludes() {
  if (const char *Prefix = std::getenv("TORCHTIDY_TABLE_LIBTORCH_PREFIX")) {
    if (*Prefix) {
      const std::string Root = std::string(Prefix) + "/usr/include";
      return {Root, Root + "/torch/csrc/api/include"};
    }
  }
  return {TORCHTIDY_TORCH_API_INCLUDE};
}
const std::vector<std::string> TorchIncludes = torchIncludes();
const std::string TorchApiInclude = TorchIncludes.back();

/// -isystem for each of \p Dirs.
std::vector<std::string> systemIncludes(const std::vector<std::string> &Dirs) {
  std::vector<std::string> Args;
  for (const std::string &D : Dirs)
    Args.insert(Args.end(), {"-isystem", D});
  return Args;
}
/// The CUDA toolkit's headers, for the rows of CUDA runtime functions
/// (checked when the toolkit is installed).
constexpr const char *CudaInclude = TORCHTIDY_CUDA_INCLUDE;
/// The stand-ins with which LibTorch's c10/cuda headers parse.
constexpr const char *CudaCompatInclude = TORCHTIDY_CUDA_COMPAT_INCLUDE;

/// Rows of the CUDA runtime's functions and of LibTorch's c10::cuda, which
/// <torch/torch.h> does not declare.
bool isCudaRow(const OpRow &Row) {
  return (Row.Facts &
          (op::ReadsLaunchError | op::OtherStream | op::CurrentStream))
      .any();
}

/// Every function LibTorch declares, by form and name; and its classes.
struct Declared {
  std::map<unsigned, llvm::StringMap<std::vector<const FunctionDecl *>>>
      Functions;
  llvm::StringMap<std::vector<const CXXRecordDecl *>> Classes;
  /// Every class and enum, declared or defined.
  llvm::StringMap<std::vector<const TagDecl *>> Tags;
};

class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(Declared &Out) : Out(Out) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->getIdentifier())
      return true;
    op::Form Form = formOf(FD);
    if (Form != op::NoForm)
      Out.Functions[Form][FD->getName()].push_back(FD);
    return true;
  }
  bool VisitCXXRecordDecl(CXXRecordDecl *RD) {
    if (RD->getIdentifier() && RD->isThisDeclarationADefinition())
      Out.Classes[RD->getName()].push_back(RD);
    return true;
  }
  bool VisitTagDecl(TagDecl *TD) {
    if (TD->getIdentifier())
      Out.Tags[TD->getName()].push_back(TD);
    return true;
  }

private:
  Declared &Out;
};

class TorchOpsTable : public ::testing::Test {
protected:
  /// Parses \p Code into \p Unit and collects its declarations into \p Out;
  /// false (and \p Out left null) when it does not parse.
  static bool parseInto(llvm::StringRef Code, std::vector<std::string> Args,
                        llvm::StringRef Name, ASTUnit *&Unit, Declared *&Out) {
    Args.emplace_back("-w");
    Unit = tooling::buildASTFromCodeWithArgs(Code, Args, Name).release();
    if (!Unit || Unit->getDiagnostics().hasErrorOccurred())
      return false;
    Out = new Declared;
    Collector(*Out).TraverseDecl(
        Unit->getASTContext().getTranslationUnitDecl());
    return true;
  }
  static void SetUpTestSuite() {
    const std::string Header = TorchApiInclude + "/torch/torch.h";
    std::vector<std::string> Args = {"-std=c++17"};
    for (const std::string &A : systemIncludes(TorchIncludes))
      Args.push_back(A);
    if (!llvm::sys::fs::exists(Header) ||
        !parseInto("#include <torch/torch.h>\n#include <cstdio>\n"
                   "#include <cstdlib>\n#include <fstream>\n",
                   Args, "table.cpp", AST, Decls))
      return;
    Version = releaseOf(*AST);
    const std::string Cuda = std::string(CudaInclude) + "/cuda_runtime_api.h";
    if (!llvm::sys::fs::exists(Cuda) ||
        !parseInto("#include <cuda_runtime_api.h>\n#include <cuda.h>\n"
                   "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n",
                   {"-std=c++17", "-isystem", CudaInclude}, "cuda.cpp", CudaAST,
                   CudaDecls))
      return;
    // Thrust's algorithms, as host code (its C++ device system).
    const std::string Cccl = std::string(CudaInclude) + "/cccl";
    parseInto("#include <thrust/sort.h>\n#include <thrust/copy.h>\n"
              "#include <thrust/sequence.h>\n"
              "#include <thrust/iterator/counting_iterator.h>\n",
              {"-std=c++17", "-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP",
               "-isystem", Cccl, "-isystem", CudaInclude},
              "thrust.cpp", ThrustAST, ThrustDecls);
    std::vector<std::string> CudaArgs = {
        "-std=c++17", "-isystem", CudaCompatInclude, "-isystem", CudaInclude};
    for (const std::string &A : systemIncludes(TorchIncludes))
      CudaArgs.push_back(A);
    parseInto("#include <c10/cuda/CUDAGuard.h>\n"
              "#include <c10/cuda/CUDAStream.h>\n",
              CudaArgs, "c10cuda.cpp", C10CudaAST, C10CudaDecls);
  }
  static void TearDownTestSuite() {
    delete Decls;
    delete AST;
    delete CudaDecls;
    delete CudaAST;
    delete C10CudaDecls;
    delete C10CudaAST;
    delete ThrustDecls;
    delete ThrustAST;
    Decls = nullptr;
    AST = nullptr;
    CudaDecls = nullptr;
    CudaAST = nullptr;
    C10CudaDecls = nullptr;
    C10CudaAST = nullptr;
    ThrustDecls = nullptr;
    ThrustAST = nullptr;
  }
  void SetUp() override {
    if (!Decls)
      GTEST_SKIP() << "no parsable LibTorch headers under " << TorchApiInclude;
  }

  static const std::vector<const FunctionDecl *> &functions(unsigned Form,
                                                            llvm::StringRef N) {
    static const std::vector<const FunctionDecl *> None;
    auto &ByName = Decls->Functions[Form];
    auto It = ByName.find(N);
    return It == ByName.end() ? None : It->second;
  }

  /// "major.minor" of the headers parsed, from <torch/version.h>.
  static std::string releaseOf(ASTUnit &Unit) {
    Preprocessor &PP = Unit.getPreprocessor();
    auto Value = [&](llvm::StringRef Name) -> std::string {
      const MacroInfo *MI = PP.getMacroInfo(PP.getIdentifierInfo(Name));
      if (!MI || MI->getNumTokens() != 1)
        return "";
      const Token &T = MI->getReplacementToken(0);
      return T.is(tok::numeric_constant)
                 ? std::string(T.getLiteralData(), T.getLength())
                 : "";
    };
    const std::string Major = Value("TORCH_VERSION_MAJOR");
    const std::string Minor = Value("TORCH_VERSION_MINOR");
    return Major.empty() || Minor.empty() ? "" : Major + "." + Minor;
  }

  /// Whether the headers under test are of \p Release or later ("2.1").
  static bool atLeast(llvm::StringRef Release) {
    auto Parse = [](llvm::StringRef R) {
      std::pair<unsigned, unsigned> V{0, 0};
      auto [Major, Minor] = R.split('.');
      (void)Major.getAsInteger(10, V.first);
      (void)Minor.getAsInteger(10, V.second);
      return V;
    };
    return Parse(Version) >= Parse(Release);
  }

  /// Whether a row belongs in the release under test.
  static bool inRelease(const OpRow &Row) {
    return (Row.Since.empty() || atLeast(Row.Since)) &&
           (Row.Until.empty() || !atLeast(Row.Until));
  }

  static inline std::string Version;
  static inline ASTUnit *AST = nullptr;
  static inline Declared *Decls = nullptr;
  static inline ASTUnit *CudaAST = nullptr;
  static inline Declared *CudaDecls = nullptr;
  static inline ASTUnit *C10CudaAST = nullptr;
  static inline Declared *C10CudaDecls = nullptr;
  static inline ASTUnit *ThrustAST = nullptr;
  static inline Declared *ThrustDecls = nullptr;
};

const unsigned EachForm[] = {op::Method,  op::Aten,       op::Functional,
                             op::Options, op::ModuleBase, op::Std,
                             op::Global};

std::string formName(unsigned F) {
  switch (F) {
  case op::Method:
    return "Method";
  case op::Aten:
    return "Aten";
  case op::Functional:
    return "Functional";
  case op::Options:
    return "Options";
  case op::ModuleBase:
    return "ModuleBase";
  case op::Std:
    return "Std";
  case op::Global:
    return "Global";
  default:
    return "?";
  }
}

/// The name of parameter \p Pos (free-function numbering) of \p FD.
std::string paramName(const FunctionDecl *FD, unsigned Pos, bool Method) {
  if (Method) {
    if (Pos == 0)
      return "self";
    --Pos;
  }
  if (Pos >= FD->getNumParams())
    return "<none>";
  return FD->getParamDecl(Pos)->getName().str();
}

TEST_F(TorchOpsTable, EveryOpExistsInEachOfItsForms) {
  for (const OpRow &Row : opRows()) {
    // The CUDA runtime's functions are the toolkit's; c10::cuda's are not
    // in <torch/torch.h> (checked below).
    if (isCudaRow(Row))
      continue;
    for (const unsigned Form : EachForm)
      if ((Row.Forms & Form) && inRelease(Row))
        EXPECT_FALSE(functions(Form, Row.Name).empty())
            << Row.Name.str() << " has no " << formName(Form)
            << " form in LibTorch " << Version;
  }
}

// The ops the analyses read by name: each exists in each form its row gives,
// and hasOpName recognises the declarations found.
TEST_F(TorchOpsTable, EveryNamedOpExistsInEachOfItsForms) {
  for (unsigned I = 0; I < namedOpRows().size(); ++I) {
    const NamedOpRow &Row = namedOpRows()[I];
    for (const unsigned Form : EachForm) {
      if (!(Row.Forms & Form))
        continue;
      const std::vector<const FunctionDecl *> &Found =
          functions(Form, Row.Name);
      EXPECT_FALSE(Found.empty())
          << Row.Name.str() << " has no " << formName(Form)
          << " form in LibTorch " << Version;
      for (const FunctionDecl *FD : Found)
        EXPECT_TRUE(hasOpName(FD, static_cast<op::Named>(I))) << Row.Name.str();
    }
  }
}

TEST_F(TorchOpsTable, EveryCudaRuntimeOpExists) {
  if (!CudaDecls)
    GTEST_SKIP() << "no CUDA toolkit headers under " << CudaInclude;
  unsigned Rows = 0;
  for (const OpRow &Row : opRows()) {
    if (!isCudaRow(Row) || Row.Forms != op::Global)
      continue;
    ++Rows;
    EXPECT_TRUE(CudaDecls->Functions[op::Global].count(Row.Name))
        << Row.Name.str() << " is not declared by cuda_runtime_api.h";
  }
  EXPECT_GT(Rows, 0U);
}

// The CUDA runtime's and driver's functions are the families' (every C
// function at global scope that cuda_runtime_api.h and cuda.h declare), and
// each family names some of them.
TEST_F(TorchOpsTable, TheCudaFamiliesNameTheToolkitsFunctions) {
  if (!CudaDecls)
    GTEST_SKIP() << "no CUDA toolkit headers under " << CudaInclude;
  const SourceManager &SM = CudaAST->getSourceManager();
  std::vector<unsigned> Named(opFamilyRows().size());
  unsigned Functions = 0;
  for (const auto &[Name, Decls] : CudaDecls->Functions[op::Global]) {
    const FunctionDecl *FD = Decls.front();
    const llvm::StringRef File =
        llvm::sys::path::filename(SM.getFilename(FD->getLocation()));
    if (!FD->isExternC() || (File != "cuda_runtime_api.h" && File != "cuda.h"))
      continue;
    ++Functions;
    bool InAFamily = false;
    for (unsigned I = 0; I < opFamilyRows().size(); ++I) {
      const OpFamilyRow &Row = opFamilyRows()[I];
      if ((Row.Forms & op::Global) && Row.names(Name) &&
          (Row.Facts & op::CudaRuntimeCall)) {
        InAFamily = true;
        ++Named[I];
      }
    }
    EXPECT_TRUE(InAFamily) << Name.str() << " is in no CUDA runtime family";
  }
  EXPECT_GT(Functions, 100U);
  for (unsigned I = 0; I < opFamilyRows().size(); ++I)
    EXPECT_GT(Named[I], 0U) << opFamilyRows()[I].Prefix.str()
                            << " names none of the toolkit's functions";
}

// Thrust's rows: each is a function of namespace thrust.
TEST_F(TorchOpsTable, EveryThrustOpExists) {
  if (!ThrustDecls)
    GTEST_SKIP() << "no thrust headers under " << CudaInclude << "/cccl";
  unsigned Rows = 0;
  for (const OpRow &Row : opRows()) {
    if (!(Row.Forms & op::Thrust))
      continue;
    ++Rows;
    EXPECT_TRUE(ThrustDecls->Functions[op::Thrust].count(Row.Name))
        << Row.Name.str() << " is not declared in namespace thrust";
  }
  EXPECT_GT(Rows, 0U);
}

// The parameters read by name: functions of at:: declare each, and
// hasParamName recognises them.
TEST_F(TorchOpsTable, EveryParameterReadByNameExists) {
  for (unsigned I = 0; I < paramRows().size(); ++I) {
    unsigned Found = 0;
    for (const auto &[Name, Fns] : Decls->Functions[op::Aten])
      for (const FunctionDecl *FD : Fns)
        for (const ParmVarDecl *P : FD->parameters())
          Found += hasParamName(P, static_cast<op::Param>(I));
    EXPECT_GT(Found, 0U) << paramRows()[I].Name.str()
                         << " is no parameter of at::'s functions";
  }
}

// The c10::cuda rows: functions (Aten) and classes (Class) of LibTorch's
// c10/cuda headers, in namespace c10::cuda.
TEST_F(TorchOpsTable, EveryC10CudaOpExists) {
  if (!C10CudaDecls)
    GTEST_SKIP() << "c10/cuda headers do not parse with " << CudaCompatInclude
                 << " and " << CudaInclude;
  unsigned Rows = 0;
  auto InC10Cuda = [](const Decl *D) {
    const auto *NS = dyn_cast<NamespaceDecl>(D->getDeclContext());
    const auto *Top = NS ? dyn_cast<NamespaceDecl>(NS->getParent()) : nullptr;
    return NS && Top && NS->getName() == "cuda" && Top->getName() == "c10";
  };
  for (const OpRow &Row : opRows()) {
    if (!isCudaRow(Row) || Row.Forms == op::Global)
      continue;
    ++Rows;
    EXPECT_TRUE(Row.Forms == op::Aten || Row.Forms == op::Class)
        << Row.Name.str();
    bool Found = false;
    if (Row.Forms == op::Aten)
      for (const FunctionDecl *FD :
           C10CudaDecls->Functions[op::Aten].lookup(Row.Name))
        Found |= InC10Cuda(FD);
    if (Row.Forms == op::Class)
      for (const CXXRecordDecl *RD : C10CudaDecls->Classes.lookup(Row.Name))
        Found |= InC10Cuda(RD);
    EXPECT_TRUE(Found) << Row.Name.str()
                       << " is not declared in c10::cuda by c10/cuda/";
  }
  EXPECT_GT(Rows, 0U);
}

// The classes the analyses test types against (TORCHTIDY_CLASS): isClass
// recognises a declaration of each in the headers its row names, LibTorch's
// and the C++ library's through <torch/torch.h>, LibTorch's c10/cuda headers,
// the CUDA runtime's, Thrust's.
TEST_F(TorchOpsTable, EveryClassIsDeclaredWhereItsRowSays) {
  unsigned Checked = 0;
  for (unsigned I = 0; I < classRows().size(); ++I) {
    const ClassRow &Row = classRows()[I];
    const Declared *In = nullptr;
    switch (Row.Origin) {
    case ClassOrigin::Torch:
    case ClassOrigin::Std:
      In = Decls;
      break;
    case ClassOrigin::TorchCuda:
      In = C10CudaDecls;
      break;
    case ClassOrigin::Cuda:
      In = CudaDecls;
      break;
    case ClassOrigin::Thrust:
      In = ThrustDecls;
      break;
    }
    // The CUDA toolkit's headers, or the stand-ins that c10/cuda needs, are
    // missing (the tests of the CUDA rows above skip then too).
    if (!In)
      continue;
    ++Checked;
    const bool Found =
        llvm::any_of(In->Tags.lookup(Row.Name), [&](const TagDecl *D) {
          return isClass(D, static_cast<KnownClass>(I));
        });
    EXPECT_TRUE(Found) << Row.Name.str() << " is not declared in "
                       << (Row.Scope.empty() ? "the global namespace"
                                             : Row.Scope.str())
                       << " in LibTorch " << Version << "'s headers";
  }
  // LibTorch's and the C++ library's rows at least, whatever the machine has.
  EXPECT_GE(Checked, static_cast<unsigned>(
                         llvm::count_if(classRows(), [](const ClassRow &Row) {
                           return Row.Origin == ClassOrigin::Torch ||
                                  Row.Origin == ClassOrigin::Std;
                         })));
}

// The macros the analyses and checks read by name (TORCHTIDY_MACRO): after
// the headers of its origin's rows, each row's macro is defined, and no
// header defines a Build row's. LibTorch's, the C++ library's and the shim's
// rows are checked wherever LibTorch's headers parse; the c10/cuda row where
// the CUDA toolkit's headers are installed, the pybind11 row where pybind11's
// and Python's are.
TEST_F(TorchOpsTable, EveryMacroIsDefinedByItsHeader) {
  std::vector<std::string> TorchArgs = {"-std=c++17"};
  for (const std::string &A : systemIncludes(TorchIncludes))
    TorchArgs.push_back(A);
  std::vector<std::string> ShimArgs = TorchArgs;
  ShimArgs.insert(ShimArgs.end(), {"-isystem", TORCHTIDY_RUNTIME_INCLUDE});
  std::vector<std::string> CudaArgs = TorchArgs;
  CudaArgs.insert(CudaArgs.end(),
                  {"-isystem", CudaCompatInclude, "-isystem", CudaInclude});
  const std::string Python = TORCHTIDY_PYTHON_INCLUDE;
  struct OriginHeaders {
    MacroOrigin Origin;
    std::vector<std::string> Args;
    /// The headers may be missing here (not a failure).
    bool Optional;
  };
  const OriginHeaders Origins[] = {
      {MacroOrigin::Torch, TorchArgs, false},
      {MacroOrigin::Std, TorchArgs, false},
      {MacroOrigin::Shim, ShimArgs, false},
      {MacroOrigin::TorchCuda, CudaArgs,
       !llvm::sys::fs::exists(std::string(CudaInclude) + "/cuda.h")},
      {MacroOrigin::Pybind,
       {"-std=c++17", "-isystem", Python.empty() ? "/nonexistent" : Python},
       true},
  };
  unsigned Checked = 0, Build = 0;
  for (const OriginHeaders &O : Origins) {
    std::string Code;
    std::vector<const MacroRow *> Rows;
    for (const MacroRow &Row : macroRows()) {
      if (Row.Origin != O.Origin)
        continue;
      Rows.push_back(&Row);
      Code += "#include <" + Row.Header.str() + ">\n";
    }
    if (Rows.empty())
      continue;
    std::vector<std::string> Args = O.Args;
    Args.emplace_back("-w");
    std::unique_ptr<ASTUnit> Unit =
        tooling::buildASTFromCodeWithArgs(Code, Args, "macros.cpp");
    if (!Unit || Unit->getDiagnostics().hasErrorOccurred()) {
      EXPECT_TRUE(O.Optional) << "the headers of " << Rows.front()->Name.str()
                              << "'s row do not parse:\n"
                              << Code;
      continue;
    }
    Preprocessor &PP = Unit->getPreprocessor();
    for (const MacroRow *Row : Rows) {
      ++Checked;
      EXPECT_TRUE(PP.isMacroDefined(Row->Name))
          << Row->Name.str() << " is not defined by <" << Row->Header.str()
          << "> (LibTorch " << Version << ")";
    }
    for (const MacroRow &Row : macroRows())
      if (Row.Origin == MacroOrigin::Build) {
        ++Build;
        EXPECT_TRUE(Row.Header.empty()) << Row.Name.str();
        EXPECT_FALSE(PP.isMacroDefined(Row.Name))
            << Row.Name.str() << " is defined by " << Code;
      }
  }
  // Every row but the optional origins' was checked, and a Build row.
  EXPECT_GE(Checked, static_cast<unsigned>(
                         llvm::count_if(macroRows(), [](const MacroRow &Row) {
                           return Row.Origin == MacroOrigin::Torch ||
                                  Row.Origin == MacroOrigin::Std ||
                                  Row.Origin == MacroOrigin::Shim;
                         })));
  EXPECT_GT(Build, 0U);
}

// A row of a later release (TORCHTIDY_OP_SINCE) names an op that earlier
// releases do not have, and a row of earlier releases (TORCHTIDY_OP_UNTIL) one
// that later releases no longer have (else it would be a plain row): the
// release under test has neither outside its range.
TEST_F(TorchOpsTable, OpsOutsideTheirReleasesAreNotDeclared) {
  ASSERT_FALSE(Version.empty())
      << "no TORCH_VERSION_MAJOR/MINOR in the headers";
  unsigned Ranged = 0;
  for (const OpRow &Row : opRows()) {
    if (Row.Since.empty() && Row.Until.empty())
      continue;
    ++Ranged;
    if (inRelease(Row))
      continue;
    for (const unsigned Form : EachForm)
      if (Row.Forms & Form)
        EXPECT_TRUE(functions(Form, Row.Name).empty())
            << Row.Name.str() << " (since '" << Row.Since.str() << "', until '"
            << Row.Until.str() << "') is declared by LibTorch " << Version
            << ": widen its range";
  }
  EXPECT_GT(Ranged, 0U);
}

TEST_F(TorchOpsTable, TheReleaseIsKnown) {
  EXPECT_TRUE(llvm::StringRef(Version).starts_with("1.") ||
              llvm::StringRef(Version).starts_with("2."))
      << Version;
  if (const char *Want = std::getenv("TORCHTIDY_TABLE_LIBTORCH_RELEASE"))
    EXPECT_EQ(Version, Want);
}

TEST_F(TorchOpsTable, EverySinkReadsTheParametersItNames) {
  for (const IndexSinkRow &Row : indexSinkRows()) {
    for (const unsigned Form : EachForm) {
      if (!(Row.Forms & Form))
        continue;
      const auto &Candidates = functions(Form, Row.Name);
      ASSERT_FALSE(Candidates.empty())
          << Row.Name.str() << " has no " << formName(Form) << " form";
      const bool Method = Form == op::Method;
      // Some overload of this form takes the source and the index where
      // the row says (and the dim, where it names one).
      bool Found = false;
      std::string Seen;
      for (const FunctionDecl *FD : Candidates) {
        std::string Source = paramName(FD, Row.SourceArg, Method);
        std::string Index = paramName(FD, Row.IndexArg, Method);
        std::string Dim =
            Row.BoundArg < 0 ? "dim" : paramName(FD, Row.BoundArg, Method);
        Seen += llvm::formatv(" ({0}, {1}, {2})", Source, Index, Dim).str();
        if ((Method || Source == Row.SourceParam) && Index == Row.IndexParam &&
            Dim == "dim")
          Found = true;
      }
      EXPECT_TRUE(Found) << Row.Name.str() << " (" << formName(Form)
                         << "): expected source '" << Row.SourceParam.str()
                         << "' and index '" << Row.IndexParam.str()
                         << "', overloads have" << Seen;
    }
  }
}

TEST_F(TorchOpsTable, EveryModuleExists) {
  for (const ModuleRow &Row : moduleRows()) {
    const std::string Impl = (Row.Name + "Impl").str();
    bool Found = false;
    for (const CXXRecordDecl *RD : Decls->Classes.lookup(Impl))
      if (hasQualifiedName(RD, Impl, {"torch", "nn"}) &&
          (moduleFacts(RD) == Row.Facts ||
           // A class template (MaxPoolImpl<D, Derived>).
           RD->getDescribedClassTemplate()))
        Found = true;
    EXPECT_TRUE(Found) << "torch::nn::" << Impl << " not found";
  }
}

TEST_F(TorchOpsTable, EveryDataHookIsAMethodOfItsClass) {
  for (const DataHookRow &Row : dataHookRows()) {
    bool Found = false;
    for (const CXXRecordDecl *RD : Decls->Classes.lookup(Row.Base)) {
      if (!isClass(RD, Row.Class))
        continue;
      for (const Decl *D : RD->decls()) {
        const auto *ND = dyn_cast<NamedDecl>(D);
        if (!ND)
          continue;
        if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(ND))
          ND = FTD->getTemplatedDecl();
        const auto *MD = dyn_cast<CXXMethodDecl>(ND);
        if (!MD)
          continue;
        const std::string Name = MD->getOverloadedOperator() == OO_Call
                                     ? "operator()"
                                     : MD->getNameAsString();
        if (Name == Row.Method)
          Found = true;
      }
    }
    EXPECT_TRUE(Found) << Row.Base.str() << "::" << Row.Method.str()
                       << " not found";
  }
}

// Each dtype row (TorchDtypes.def) is an enumerator of c10::ScalarType
// whose C++ type (c10::impl::ScalarTypeToCPPType) has the row's size and
// kind (bool; an integer; a floating type, c10::Half or c10::BFloat16;
// c10::complex, of its Real row's type; any other row is its own Real),
// and its spelling names a constant of torch:: with the enumerator's value;
// a row without a spelling has no torch::k<Name>.
TEST_F(TorchOpsTable, EveryDtypeIsAScalarTypeOfItsSize) {
  ASTContext &Ctx = AST->getASTContext();
  const auto *ScalarType =
      dyn_cast_or_null<EnumDecl>(lookupClass(Ctx, KnownClass::ScalarType));
  ASSERT_TRUE(ScalarType);
  const auto *ToCpp = dyn_cast_or_null<ClassTemplateDecl>(
      lookupQualified(Ctx, "c10::impl", "ScalarTypeToCPPType"));
  ASSERT_TRUE(ToCpp);
  // Each row's C++ type, by row, for the complex rows' parts.
  std::vector<QualType> CppTypes(dtypeRows().size());
  for (const DtypeRow &Row : dtypeRows()) {
    const EnumConstantDecl *Enumerator = nullptr;
    for (const EnumConstantDecl *E : ScalarType->enumerators())
      if (E->getName() == Row.Name)
        Enumerator = E;
    if (!Enumerator) {
      ADD_FAILURE() << "c10::ScalarType::" << Row.Name.str()
                    << " is not declared in LibTorch " << Version;
      continue;
    }
    const llvm::APSInt &Value = Enumerator->getInitVal();
    std::optional<CharUnits> Size;
    std::optional<DtypeRow::Kind> Kind;
    for (const ClassTemplateSpecializationDecl *Spec :
         ToCpp->specializations()) {
      const TemplateArgumentList &Args = Spec->getTemplateArgs();
      if (Args.size() != 1 || Args[0].getKind() != TemplateArgument::Integral ||
          !llvm::APSInt::isSameValue(Args[0].getAsIntegral(), Value))
        continue;
      for (const NamedDecl *ND : Spec->lookup(&Ctx.Idents.get("type")))
        if (const auto *Alias = dyn_cast<TypedefNameDecl>(ND)) {
          const QualType T = Alias->getUnderlyingType().getCanonicalType();
          CppTypes[&Row - dtypeRows().data()] = T;
          Size = Ctx.getTypeSizeInChars(T);
          const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
          if (T->isBooleanType())
            Kind = DtypeRow::Bool;
          else if (T->isIntegerType())
            Kind = DtypeRow::Integer;
          else if (T->isRealFloatingType() ||
                   isClass(RD, {KnownClass::Half, KnownClass::BFloat16}))
            Kind = DtypeRow::Floating;
          else if (isClass(RD, KnownClass::complex))
            Kind = DtypeRow::Complex;
        }
    }
    ASSERT_TRUE(Size) << "no ScalarTypeToCPPType<" << Row.Name.str() << ">";
    EXPECT_EQ(Size->getQuantity(), Row.Bytes) << Row.Name.str();
    EXPECT_EQ(Kind, std::optional<DtypeRow::Kind>(Row.K)) << Row.Name.str();
    if (Row.Spelling.empty()) {
      EXPECT_FALSE(lookupQualified(Ctx, "torch", ("k" + Row.Name).str()))
          << "torch::k" << Row.Name.str() << " is declared: spell it so";
      continue;
    }
    const auto [Scope, Name] = Row.Spelling.rsplit("::");
    const auto *Constant =
        dyn_cast_or_null<VarDecl>(lookupQualified(Ctx, Scope, Name));
    ASSERT_TRUE(Constant) << Row.Spelling.str() << " is not declared";
    const APValue *Evaluated = Constant->evaluateValue();
    ASSERT_TRUE(Evaluated && Evaluated->isInt()) << Row.Spelling.str();
    EXPECT_TRUE(llvm::APSInt::isSameValue(Evaluated->getInt(), Value))
        << Row.Spelling.str() << " is not " << Row.Name.str();
  }
  for (const DtypeRow &Row : dtypeRows()) {
    const DtypeRow &Real = dtypeRow(Row.Real);
    if (Row.K != DtypeRow::Complex) {
      EXPECT_EQ(Real.Name, Row.Name) << "a real dtype is its own Real";
      continue;
    }
    const QualType T = CppTypes[&Row - dtypeRows().data()];
    const auto *Spec = T.isNull()
                           ? nullptr
                           : dyn_cast_or_null<ClassTemplateSpecializationDecl>(
                                 T->getAsCXXRecordDecl());
    ASSERT_TRUE(Spec && Spec->getTemplateArgs().size() == 1 &&
                Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
        << Row.Name.str() << " is not a c10::complex<T>";
    const QualType Part = CppTypes[&Real - dtypeRows().data()];
    EXPECT_FALSE(Part.isNull()) << Real.Name.str();
    EXPECT_TRUE(Ctx.hasSameType(Spec->getTemplateArgs()[0].getAsType(), Part))
        << Row.Name.str() << " is not c10::complex of " << Real.Name.str();
  }
}

// Facts of different domains are different bits of different words; `|`
// and `&` work on each word.
TEST(TorchOpsLookup, FactSetsKeepDomainsApart) {
  const op::FactSet S = op::View | op::MovesToCuda | op::InPlace;
  EXPECT_TRUE(S & op::View);
  EXPECT_TRUE(S & op::MovesToCuda);
  EXPECT_FALSE(S & op::Factory);
  // Bit 0 of two domains: Factory (Making) and MovesToCuda (Devices).
  EXPECT_FALSE(op::FactSet(op::Factory) & op::MovesToCuda);
  EXPECT_EQ(S.word(op::Domain::Memory),
            op::FactSet(op::View | op::InPlace).word(op::Domain::Memory));
  EXPECT_EQ(S.word(op::Domain::Making), 0U);
  EXPECT_TRUE(op::NoFact == op::FactSet());
  EXPECT_FALSE(op::NoFact.any());
  EXPECT_TRUE((op::FactSet::all() & op::OtherStream) == op::OtherStream);
}

// The lookups agree with the rows: what a row says is what a query gets.
TEST(TorchOpsLookup, FactsFollowTheRows) {
  for (const OpRow &Row : opRows())
    EXPECT_EQ(opFacts(Row.Name, Row.Forms) & Row.Facts, Row.Facts)
        << Row.Name.str();
  EXPECT_TRUE(hasOpFact("argsort", op::Method, op::IndexProducer));
  EXPECT_FALSE(hasOpFact("argsort", op::Std, op::IndexProducer));
  EXPECT_FALSE(
      hasOpFact("no_such_op", op::Method | op::Aten, op::FactSet::all()));
  EXPECT_TRUE(hasOpFact("clone", op::Method, op::KeepsShape));
  EXPECT_FALSE(hasOpFact("clone", op::Aten, op::MovesToCuda));
  const IndexSinkRow *F = findIndexSink("embedding", op::Functional);
  ASSERT_TRUE(F);
  EXPECT_EQ(F->IndexArg, 0U);
  EXPECT_EQ(F->SourceArg, 1U);
  const IndexSinkRow *A = findIndexSink("embedding", op::Aten);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->IndexArg, 1U);
  EXPECT_EQ(A->SourceArg, 0U);
  EXPECT_EQ(findIndexSink("embedding", op::Method), nullptr);
}

// op::Named follows the rows' order, so each name is its row's.
TEST(TorchOpsLookup, NamedOpsFollowTheRows) {
  ASSERT_FALSE(namedOpRows().empty());
  for (unsigned I = 0; I < namedOpRows().size(); ++I)
    EXPECT_EQ(opName(static_cast<op::Named>(I)), namedOpRows()[I].Name);
  EXPECT_EQ(opName(op::Named::where), "where");
  EXPECT_EQ(opName(op::Named::index_put_), "index_put_");
  EXPECT_FALSE(hasOpName(nullptr, op::Named::where));
  EXPECT_FALSE(hasOpName(nullptr, {op::Named::fmod, op::Named::fmod_}));
}

// The macro lookups read the rows: a name's facts, the names with a fact in
// the table's order, the macro a fix-it writes.
TEST(TorchOpsLookup, MacrosFollowTheRows) {
  for (const MacroRow &Row : macroRows())
    EXPECT_EQ(macroFacts(Row.Name) & Row.Facts, Row.Facts) << Row.Name.str();
  EXPECT_EQ(macroFacts("NO_SUCH_MACRO"), op::NoMacroFact);
  EXPECT_TRUE(macroFacts("TORCH_LIBRARY_IMPL") & op::RegistersOps);
  EXPECT_FALSE(macroFacts("TORCH_CHECK") & op::RegistersOps);
  EXPECT_EQ(llvm::join(macrosWith(op::AssertsCondition), ";"),
            "CUDA_KERNEL_ASSERT;assert;TORCH_CHECK;TORCH_INTERNAL_ASSERT");
  EXPECT_EQ(llvm::join(macrosWith(op::ChecksLaunch), ";"),
            "C10_CUDA_KERNEL_LAUNCH_CHECK;TORCHTIDY_CHECK_LAUNCH");
  EXPECT_TRUE(macrosWith(op::ChecksLaunch | op::ChecksIndex).empty());
  const MacroRow *Written = firstMacroWith(op::WrittenAfterLaunch);
  ASSERT_TRUE(Written);
  EXPECT_EQ(Written->Name, "C10_CUDA_KERNEL_LAUNCH_CHECK");
  EXPECT_EQ(Written->Header, "c10/cuda/CUDAException.h");
  EXPECT_TRUE(Written->Facts & op::ChecksLaunch);
  // The assertion and the shim's index check that fix-its write.
  const MacroRow *Assertion = firstMacroWith(op::WrittenInKernel);
  ASSERT_TRUE(Assertion);
  EXPECT_EQ(Assertion->Name, "CUDA_KERNEL_ASSERT");
  EXPECT_TRUE(Assertion->Facts & op::AssertsCondition);
  const MacroRow *IndexCheck = firstMacroWith(op::ChecksIndex);
  ASSERT_TRUE(IndexCheck);
  EXPECT_EQ(IndexCheck->Name, "TORCHTIDY_CHECK_INDEX");
  EXPECT_EQ(IndexCheck->Header, "torchtidy/check.h");
}

// KnownClass follows the rows' order, so each name is its row's.
TEST(TorchOpsLookup, ClassesFollowTheRows) {
  ASSERT_FALSE(classRows().empty());
  for (unsigned I = 0; I < classRows().size(); ++I)
    EXPECT_EQ(className(static_cast<KnownClass>(I)), classRows()[I].Name);
  EXPECT_EQ(className(KnownClass::Tensor), "Tensor");
  EXPECT_EQ(className(KnownClass::dim3), "dim3");
  EXPECT_EQ(classRows()[static_cast<unsigned>(KnownClass::dim3)].Scope, "");
  EXPECT_EQ(classRows()[static_cast<unsigned>(KnownClass::Scalar)].Scope, "*");
}

} // namespace
