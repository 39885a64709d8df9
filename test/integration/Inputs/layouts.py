"""Lays out the LibTorch headers of the suite as a pip wheel and as the
libtorch zip do, and writes a compile_commands.json for the example project
in each layout, the way a user's build gives them: plain -I directories
(setup.py, a Makefile) for the wheel and the zip, -isystem (CMake's imported
Torch target) for the headers where they are installed.

Usage: layouts.py OUT_DIR SRC_ROOT -isystem DIR [-isystem DIR ...]
(the -isystem list is lit's %torch_includes). The layouts are links to the
headers' directories, not copies.
"""
import json
import os
import shutil
import sys

out, src_root = sys.argv[1], sys.argv[2]
dirs = [sys.argv[i + 1] for i in range(3, len(sys.argv) - 1) if sys.argv[i] == "-isystem"]
api = next(d for d in dirs if d.rstrip("/").endswith("torch/csrc/api/include"))
root = api.rstrip("/")[: -len("/torch/csrc/api/include")]

project = os.path.join(out, "project")
shutil.copytree(os.path.join(src_root, "examples", "buggy"), project)
layouts = {
    "wheel": os.path.join(out, "venv", "lib", "python3.11", "site-packages", "torch", "include"),
    "zip": os.path.join(out, "libtorch", "include"),
}
for include in layouts.values():
    os.makedirs(include)
    for name in ("ATen", "c10", "caffe2", "torch", "kineto"):
        if os.path.isdir(os.path.join(root, name)):
            os.symlink(os.path.join(root, name), os.path.join(include, name))


def write_db(name, include_args):
    build = os.path.join(out, "build-" + name)
    os.makedirs(build)
    entries = []
    for tu in ("main.cpp", "model.cpp"):
        args = ["c++", "-std=c++17", "-D_GLIBCXX_USE_CXX11_ABI=1"] + include_args + \
               ["-o", tu + ".o", "-c", os.path.join(project, tu)]
        entries.append({"directory": build, "arguments": args,
                        "file": os.path.join(project, tu)})
    with open(os.path.join(build, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)


write_db("installed", [a for d in dirs for a in ("-isystem", d)])
for name, include in layouts.items():
    write_db(name, ["-I" + include, "-I", os.path.join(include, "torch", "csrc", "api", "include")])
