#!/usr/bin/env python3
"""compile_commands.json for a PyTorch extension built by setup.py.

torch.utils.cpp_extension builds write no compile_commands.json. This reads
the extension's setup.py without building anything: it runs setup.py with
stand-ins for torch.utils.cpp_extension (CppExtension, CUDAExtension,
BuildExtension, include_paths) and for setuptools' setup(), collects each
extension's sources, include_dirs, define_macros and extra_compile_args, and
writes one command per source with the flags cpp_extension passes:

  .cpp  c++ -I<LibTorch includes> -I<Python> <include_dirs> -D<macros>
        -DTORCH_API_INCLUDE_EXTENSION_H -DTORCH_EXTENSION_NAME=<name>
        <extra_compile_args['cxx']> -std=c++17 -fPIC -c SOURCE
  .cu   <CUDA_HOME>/bin/nvcc, the same includes and defines, then
        cpp_extension's COMMON_NVCC_FLAGS (the __CUDA_NO_HALF_OPERATORS__
        family, --expt-relaxed-constexpr), --compiler-options -fPIC,
        <extra_compile_args['nvcc']>, -std=c++17 -c SOURCE

torch-tidy turns nvcc's commands into clang's CUDA mode (host side) and
treats the LibTorch, Python and CUDA directories as system headers.

The LibTorch include root (the directory with ATen/ and torch/csrc/api/
include/) is --libtorch-include, else that of an importable torch
(torch.utils.cpp_extension.include_paths()). What setup.py computes from a
real torch (versions, torch.cuda.is_available()) sees the stand-ins' values:
torch 2.6.0 with CUDA available; pass --no-cuda for a CPU build.

Usage: tools/extension-compile-commands.py [--libtorch-include DIR]
         [--cuda-home DIR] [--no-cuda] [-o compile_commands.json] SETUP_PY
Another way: build once with `bear -- python3 setup.py build_ext`, or run
`ninja -t compdb` in the build.ninja directory cpp_extension leaves under
build/temp.* (docs/libtorch.md).
"""

import argparse
import json
import os
import runpy
import subprocess
import sys
import sysconfig
import types

COMMON_NVCC_FLAGS = [
    "-D__CUDA_NO_HALF_OPERATORS__",
    "-D__CUDA_NO_HALF_CONVERSIONS__",
    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
    "-D__CUDA_NO_HALF2_OPERATORS__",
    "--expt-relaxed-constexpr",
]
CUDA_SOURCES = (".cu", ".cuh")


def real_torch_includes():
    """include_paths() of a torch that python3 can import, or None."""
    code = "import torch.utils.cpp_extension as c; print('\\n'.join(c.include_paths()))"
    try:
        r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.split() if r.returncode == 0 and r.stdout.strip() else None


def libtorch_includes(root):
    dirs = [root, os.path.join(root, "torch", "csrc", "api", "include")]
    return dirs + [os.path.join(root, d) for d in ("TH", "THC") if os.path.isdir(os.path.join(root, d))]


def stand_in_torch(cuda_home, cuda, includes):
    """Modules torch, torch.utils, torch.utils.cpp_extension (and torch.cuda,
    torch.version) that record what setup.py asks for."""
    from setuptools import Extension
    from setuptools.command.build_ext import build_ext

    def make(kind):
        def extension(name, sources, *args, **kwargs):
            kwargs.setdefault("language", "c++")
            include_dirs = list(kwargs.pop("include_dirs", None) or [])
            ext = Extension(name, sources, *args, include_dirs=include_dirs, **kwargs)
            ext.torch_kind = kind
            return ext
        return extension

    class BuildExtension(build_ext):
        @classmethod
        def with_options(cls, **options):
            return cls

    torch = types.ModuleType("torch")
    torch.__version__ = "2.6.0"
    torch.__path__ = []
    utils = types.ModuleType("torch.utils")
    utils.__path__ = []
    ext = types.ModuleType("torch.utils.cpp_extension")
    ext.CppExtension = make("cpp")
    ext.CUDAExtension = make("cuda")
    ext.BuildExtension = BuildExtension
    ext.CUDA_HOME = cuda_home if cuda else None
    ext.ROCM_HOME = None
    ext.IS_HIP_EXTENSION = False
    ext.include_paths = lambda *a, **k: list(includes)
    ext.library_paths = lambda *a, **k: []
    torch_cuda = types.ModuleType("torch.cuda")
    torch_cuda.is_available = lambda: cuda
    torch_cuda.device_count = lambda: 1 if cuda else 0
    version = types.ModuleType("torch.version")
    version.cuda = "12.4" if cuda else None
    version.hip = None
    torch.utils, utils.cpp_extension = utils, ext
    torch.cuda, torch.version = torch_cuda, version
    return {"torch": torch, "torch.utils": utils, "torch.utils.cpp_extension": ext,
            "torch.cuda": torch_cuda, "torch.version": version}


def extensions_of(setup_py, modules):
    """The ext_modules setup.py passes to setup(), without running it."""
    import setuptools
    captured = []

    def setup(**kwargs):
        captured.extend(kwargs.get("ext_modules") or [])

    saved_modules = {k: sys.modules.get(k) for k in modules}
    saved = (setuptools.setup, sys.argv, os.getcwd(), list(sys.path))
    sys.modules.update(modules)
    setuptools.setup = setup
    try:
        import distutils.core
        distutils.core.setup = setup
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(setup_py))
    sys.argv = [setup_py, "build_ext"]
    sys.path.insert(0, here)
    os.chdir(here)
    try:
        runpy.run_path(os.path.abspath(setup_py), run_name="__main__")
    finally:
        setuptools.setup, sys.argv, cwd, sys.path[:] = saved
        os.chdir(cwd)
        for k, v in saved_modules.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return captured


def flags_for(args, key):
    if isinstance(args, dict):
        return list(args.get(key) or [])
    return list(args or [])


def commands(setup_py, exts, includes, cuda_home):
    here = os.path.dirname(os.path.abspath(setup_py))
    python_include = sysconfig.get_paths()["include"]
    entries = []
    for ext in exts:
        name = ext.name.split(".")[-1]
        incs = [os.path.abspath(os.path.join(here, d)) for d in ext.include_dirs]
        incs += includes + [python_include]
        if getattr(ext, "torch_kind", "") == "cuda":
            incs.append(os.path.join(cuda_home, "include"))
        defines = ["-D%s" % m if v is None else "-D%s=%s" % (m, v)
                   for m, v in (ext.define_macros or [])]
        defines += ["-DTORCH_API_INCLUDE_EXTENSION_H", "-DTORCH_EXTENSION_NAME=" + name]
        for src in ext.sources:
            path = os.path.abspath(os.path.join(here, src))
            if src.endswith(CUDA_SOURCES):
                extra = flags_for(ext.extra_compile_args, "nvcc")
                args = [os.path.join(cuda_home, "bin", "nvcc")] + ["-I" + d for d in incs] + \
                    defines + COMMON_NVCC_FLAGS + ["--compiler-options", "-fPIC"] + extra
            else:
                extra = flags_for(ext.extra_compile_args, "cxx")
                args = ["c++"] + ["-I" + d for d in incs] + defines + extra + ["-fPIC"]
            if not any(a.startswith("-std=") for a in extra):
                args.append("-std=c++17")
            obj = os.path.join("build", os.path.splitext(src)[0] + ".o")
            args += ["-c", path, "-o", obj]
            entries.append({"directory": here, "arguments": args, "file": path})
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setup_py")
    ap.add_argument("--libtorch-include", help="LibTorch's include root (with ATen/)")
    ap.add_argument("--cuda-home", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--no-cuda", action="store_true",
                    help="torch.cuda.is_available() is False for setup.py")
    ap.add_argument("-o", "--output", help="default: compile_commands.json beside setup.py")
    a = ap.parse_args()
    if not os.path.isfile(a.setup_py):
        sys.exit("extension-compile-commands: no file %s" % a.setup_py)
    if a.libtorch_include:
        root = os.path.abspath(a.libtorch_include)
        if not os.path.isfile(os.path.join(root, "ATen", "ATen.h")):
            sys.exit("extension-compile-commands: %s has no ATen/ATen.h: not a LibTorch "
                     "include root" % root)
        includes = libtorch_includes(root)
    else:
        includes = real_torch_includes()
        if includes is None:
            sys.exit("extension-compile-commands: no importable torch: pass --libtorch-include "
                     "(the directory of ATen/, e.g. site-packages/torch/include)")
    modules = stand_in_torch(a.cuda_home, not a.no_cuda, includes)
    try:
        exts = extensions_of(a.setup_py, modules)
    except SystemExit as e:
        if e.code not in (None, 0):
            sys.exit("extension-compile-commands: %s exited with %s" % (a.setup_py, e.code))
        exts = []
    except Exception as e:  # setup.py's own code failed: say where
        sys.exit("extension-compile-commands: running %s failed: %s: %s"
                 % (a.setup_py, type(e).__name__, e))
    if not exts:
        sys.exit("extension-compile-commands: %s passes no ext_modules to setup()" % a.setup_py)
    entries = commands(a.setup_py, exts, includes, a.cuda_home)
    out = a.output or os.path.join(os.path.dirname(os.path.abspath(a.setup_py)),
                                   "compile_commands.json")
    with open(out, "w") as f:
        json.dump(entries, f, indent=1)
    print("extension-compile-commands: %d sources of %d extensions in %s"
          % (len(entries), len(exts), out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
