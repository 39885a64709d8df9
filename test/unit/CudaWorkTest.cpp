//===--- CudaWorkTest.cpp - CUDA work, devices and the call walk ----------===//

#include "torchtidy/analysis/CudaWork.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

const clang::FunctionDecl *findFunction(clang::ASTUnit &AST,
                                        llvm::StringRef Name) {
  auto M = match(functionDecl(hasName(Name), isDefinition()).bind("f"),
                 AST.getASTContext());
  return M.empty() ? nullptr : M.front().getNodeAs<clang::FunctionDecl>("f");
}

const clang::CXXMethodDecl *
findMethod(clang::ASTUnit &AST, llvm::StringRef Class, llvm::StringRef Name) {
  auto M = match(
      cxxMethodDecl(hasName(Name), isDefinition(), ofClass(hasName(Class)))
          .bind("m"),
      AST.getASTContext());
  return M.empty() ? nullptr : M.front().getNodeAs<clang::CXXMethodDecl>("m");
}

/// The class of the initialiser of `probe` in `void f(<Params>) { auto probe
/// = <E>; }` (after <Prelude> in f's body).
DeviceClass device(const std::string &E, const std::string &Prelude = "") {
  auto AST = parse("struct S { torch::Device dev{torch::kCPU}; };\n"
                   "torch::Device global_device(torch::kCPU);\n"
                   "const torch::Device cpu_device(torch::kCPU);\n"
                   "void f(torch::Device param, torch::Tensor t, S s) {\n" +
                   Prelude + "\nauto probe = " + E + ";\n}\n");
  auto M = match(varDecl(hasName("probe")).bind("v"), AST->getASTContext());
  if (M.empty())
    return DeviceClass::NotADevice;
  return classifyDevice(M.front().getNodeAs<clang::VarDecl>("v")->getInit());
}

TEST(CudaWork, DeviceSpellings) {
  EXPECT_EQ(device("torch::kCUDA"), DeviceClass::CUDA);
  EXPECT_EQ(device("torch::kCPU"), DeviceClass::CPU);
  EXPECT_EQ(device("c10::DeviceType::CUDA"), DeviceClass::CUDA);
  EXPECT_EQ(device("torch::Device(\"cuda:1\")"), DeviceClass::CUDA);
  EXPECT_EQ(device("torch::Device(\"cpu\")"), DeviceClass::CPU);
  EXPECT_EQ(device("torch::Device(torch::kCUDA, 1)"), DeviceClass::CUDA);
  EXPECT_EQ(device("torch::TensorOptions().device(torch::kCUDA)"),
            DeviceClass::CUDA);
  EXPECT_EQ(device("torch::device(torch::kCUDA).dtype(torch::kFloat)"),
            DeviceClass::CUDA);
  EXPECT_EQ(device("torch::TensorOptions(torch::kCPU)"), DeviceClass::CPU);
  EXPECT_EQ(device("torch::TensorOptions().dtype(torch::kFloat)"),
            DeviceClass::NotADevice);
  EXPECT_EQ(device("torch::kFloat"), DeviceClass::NotADevice);
}

TEST(CudaWork, DeviceVariables) {
  EXPECT_EQ(device("param"), DeviceClass::Configurable);
  EXPECT_EQ(device("s.dev"), DeviceClass::Configurable);
  EXPECT_EQ(device("global_device"), DeviceClass::Configurable);
  EXPECT_EQ(device("cpu_device"), DeviceClass::CPU);
  EXPECT_EQ(device("local", "torch::Device local(torch::kCPU);"),
            DeviceClass::CPU);
  EXPECT_EQ(device("local", "torch::Device local = param;"),
            DeviceClass::Configurable);
  EXPECT_EQ(device("torch::cuda::is_available() ? torch::kCUDA : torch::kCPU"),
            DeviceClass::CUDA);
  EXPECT_EQ(device("true ? torch::kCPU : torch::Device(\"cpu\")"),
            DeviceClass::CPU);
  // The device of another tensor is not known, and not configurable.
  EXPECT_EQ(device("t.device()"), DeviceClass::Unknown);
  EXPECT_EQ(device("t.options()"), DeviceClass::Unknown);
}

/// The kinds of CUDA work found in f's body, in source order.
std::vector<CudaOp::Kind> ops(const std::string &Body) {
  auto AST = parse("#include <cuda_runtime_api.h>\n"
                   "void f(torch::Tensor x, torch::Device d) {\n" +
                   Body + "\n}\n");
  CudaWorkFinder Finder(4);
  std::vector<CudaOp::Kind> Out;
  for (const CudaWorkFinding &F : Finder.find(findFunction(*AST, "f"))) {
    EXPECT_TRUE(F.Chain.empty());
    Out.push_back(F.Op.K);
  }
  return Out;
}

TEST(CudaWork, Operations) {
  using V = std::vector<CudaOp::Kind>;
  EXPECT_EQ(ops("x.cuda();"), V{CudaOp::CudaMethod});
  EXPECT_EQ(ops("x.to(torch::kCUDA);"), V{CudaOp::MoveToDevice});
  EXPECT_EQ(ops("x.to(d);"), V{CudaOp::MoveToDevice});
  EXPECT_EQ(ops("torch::zeros({2}, torch::kCUDA);"), V{CudaOp::Factory});
  EXPECT_EQ(ops("at::cuda::getCurrentCUDAStream();"), V{CudaOp::CudaLibrary});
  EXPECT_EQ(ops("torch::cuda::synchronize();"), V{CudaOp::CudaLibrary});
  EXPECT_EQ(ops("cudaDeviceSynchronize();"), V{CudaOp::CudaRuntime});
  EXPECT_EQ(ops("x.to(torch::kCUDA).cuda();"),
            (V{CudaOp::CudaMethod, CudaOp::MoveToDevice}));
  // Not CUDA work.
  EXPECT_EQ(ops("x.to(torch::kFloat); x.to(torch::kCPU); x.pin_memory();"
                "x.cpu(); torch::zeros({2}); torch::cuda::is_available();"
                "(void)sizeof(x.cuda());"),
            V{});
}

TEST(CudaWork, Hooks) {
  auto AST = parse(R"cc(
    namespace D = torch::data;
    struct A : D::datasets::Dataset<A> {
      D::Example<> get(size_t) override { return {}; }
      c10::optional<size_t> size() const override { return 1; }
    };
    struct B : A { D::Example<> get(size_t) override { return {}; } };
    struct T : D::transforms::TensorTransform<> {
      torch::Tensor operator()(torch::Tensor t) override { return t; }
    };
    struct NotData { virtual ~NotData() = default; virtual int get(size_t) { return 0; } };
    struct NotData2 : NotData { int get(size_t) override { return 1; } };
  )cc");
  const DataHook H = getDataHook(findMethod(*AST, "A", "get"));
  EXPECT_EQ(H.Base, "Dataset");
  EXPECT_EQ(H.Method, "get");
  EXPECT_EQ(getDataHook(findMethod(*AST, "B", "get")).Base, "Dataset");
  EXPECT_EQ(getDataHook(findMethod(*AST, "T", "operator()")).Base,
            "TensorTransform");
  EXPECT_FALSE(getDataHook(findMethod(*AST, "NotData2", "get")));
  EXPECT_FALSE(getDataHook(findMethod(*AST, "A", "size")));
}

TEST(CudaWork, WalkIsBoundedAndEndsOnRecursion) {
  auto AST = parse(R"cc(
    torch::Tensor l4(torch::Tensor t) { return t.cuda(); }
    torch::Tensor l3(torch::Tensor t) { return l4(t); }
    torch::Tensor l2(torch::Tensor t) { return l3(t); }
    torch::Tensor l1(torch::Tensor t) { return l2(t); }
    torch::Tensor ping(torch::Tensor t, int n);
    torch::Tensor pong(torch::Tensor t, int n) { return ping(t, n - 1); }
    torch::Tensor ping(torch::Tensor t, int n) { return n ? pong(t, n) : t; }
    void root(torch::Tensor t) { l1(t); ping(t, 3); }
  )cc");
  const clang::FunctionDecl *Root = findFunction(*AST, "root");
  {
    CudaWorkFinder Finder(4);
    auto Found = Finder.find(Root);
    ASSERT_EQ(Found.size(), 1U);
    EXPECT_EQ(Found[0].Op.K, CudaOp::CudaMethod);
    ASSERT_EQ(Found[0].Chain.size(), 4U);
    EXPECT_EQ(Found[0].Chain.front().Callee->getName(), "l1");
    EXPECT_EQ(Found[0].Chain.back().Callee->getName(), "l4");
    // root, l1..l4, ping, pong: each body scanned once.
    EXPECT_EQ(Finder.scannedFunctions(), 7U);
  }
  {
    CudaWorkFinder Finder(3);
    EXPECT_TRUE(Finder.find(Root).empty());
    // l4 is past the limit and never scanned.
    EXPECT_EQ(Finder.scannedFunctions(), 6U);
  }
  {
    CudaWorkFinder Finder(0);
    EXPECT_TRUE(Finder.find(Root).empty());
    EXPECT_EQ(Finder.scannedFunctions(), 1U);
  }
}

TEST(CudaWork, MembersMovedToCuda) {
  // M's constructor and later() run on the worker threads (get() calls
  // them); N's code only on the main thread: it puts data on the GPU once.
  auto AST = parse(R"cc(
    struct M {
      explicit M(torch::Tensor x) : a(x.cuda()), b(x) { c = x.to(torch::kCUDA).view({2}); }
      void later(torch::Device d) { e = e.to(d); }
      torch::Tensor a, b, c, e;
      torch::Tensor f = torch::zeros({2}, torch::kCUDA);
      torch::Tensor g = torch::zeros({2}).cuda().cpu();
    };
    struct N {
      explicit N(torch::Tensor x) : a(x.cuda()) {}
      void later(torch::Device d) { e = e.to(d); }
      torch::Tensor a, e;
    };
    struct OnWorker : torch::data::datasets::Dataset<OnWorker> {
      torch::data::Example<> get(size_t i) override {
        M m(x_);
        m.later(d_);
        return {x_, x_};
      }
      c10::optional<size_t> size() const override { return 1; }
      torch::Tensor x_;
      torch::Device d_{torch::kCPU};
    };
    void mainThread(torch::Tensor x, torch::Device d) { N n(x); n.later(d); }
  )cc");
  const clang::CXXRecordDecl *M = findClass(*AST, "M");
  const clang::CXXRecordDecl *N = findClass(*AST, "N");
  CudaWorkFinder Finder(4);
  EXPECT_TRUE(Finder.cudaWriteOf(findField(M, "a")));
  EXPECT_FALSE(Finder.cudaWriteOf(findField(M, "b")));
  EXPECT_TRUE(Finder.cudaWriteOf(findField(M, "c")));
  EXPECT_TRUE(Finder.cudaWriteOf(findField(M, "e")));
  EXPECT_TRUE(Finder.cudaWriteOf(findField(M, "f")));
  EXPECT_FALSE(Finder.cudaWriteOf(findField(M, "g")));
  EXPECT_FALSE(Finder.cudaWriteOf(findField(N, "a")));
  EXPECT_FALSE(Finder.cudaWriteOf(findField(N, "e")));
}

} // namespace
