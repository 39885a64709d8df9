#!/usr/bin/env python3
"""package_check.py PACKAGE_DIR ROOT SRC_ROOT LLVM_MAJOR

Checks the Debian package in PACKAGE_DIR the way a user's machine would
take it:
  * its name and control fields: torch-tidy_<version>_amd64.deb, the
    version of project() in SRC_ROOT/CMakeLists.txt;
  * Depends: every shared library that an installed binary or the plugin
    needs (readelf NEEDED, resolved as ldd resolves it) belongs to a package
    that Depends names (dpkg -S), and the plugin's clang-tidy is there;
  * apt can install it on an empty Debian 12 system: `apt-get install -s`
    with an empty dpkg status (nothing installed) resolves every dependency
    from the archive, and changes nothing;
  * dpkg unpacks it into the empty root ROOT (its own admin directory; the
    machine's dpkg database is not touched), with the files where the docs
    say they are.
Prints what it checked, for FileCheck."""
import os
import re
import subprocess
import sys
import tempfile

package_dir, root, src_root, llvm = sys.argv[1:5]
version = re.search(r"project\(torch-tidy VERSION (\S+)",
                    open(os.path.join(src_root, "CMakeLists.txt")).read()).group(1)


def run(*cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("%s failed (%d):\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def fail(msg):
    sys.exit("package_check: " + msg)


debs = sorted(f for f in os.listdir(package_dir) if f.endswith(".deb"))
name = "torch-tidy_%s_amd64.deb" % version
if name not in debs:
    fail("no %s in %s (found: %s)" % (name, package_dir, " ".join(debs) or "nothing"))
deb = os.path.join(package_dir, name)
fields = {f: run("dpkg-deb", "-f", deb, f).strip()
          for f in ("Package", "Version", "Architecture", "Depends")}
if (fields["Package"], fields["Version"], fields["Architecture"]) != \
        ("torch-tidy", version, "amd64"):
    fail("control fields: %s" % fields)
depends = {re.sub(r"\s*\(.*\)", "", d).strip()
           for d in fields["Depends"].split(",")}
print("package %s: %d dependencies" % (name, len(depends)))

# Unpack into the empty root with dpkg, its database under ROOT.
admin = os.path.join(root, "var", "lib", "dpkg")
for d in ("updates", "info"):
    os.makedirs(os.path.join(admin, d), exist_ok=True)
open(os.path.join(admin, "status"), "a").close()
run("dpkg", "--root=" + root, "--admindir=" + admin, "--force-not-root",
    "--force-depends", "--log=/dev/null", "--unpack", deb)
listed = run("dpkg", "--root=" + root, "--admindir=" + admin, "-L", "torch-tidy").split()
expected = [
    "/usr/bin/torch-tidy", "/usr/bin/torch-clangd",
    "/usr/lib/torch-tidy/TorchTidy.so",
    "/usr/include/torchtidy/check.h", "/usr/lib/libtorchtidy_runtime.a",
    "/usr/lib/cmake/TorchTidy/TorchTidyConfig.cmake",
    "/usr/lib/cmake/TorchTidy/TorchTidyConfigVersion.cmake",
    "/usr/share/man/man1/torch-tidy.1.gz",
    "/usr/share/doc/torch-tidy/README.md", "/usr/share/doc/torch-tidy/ci.md",
    "/usr/share/doc/torch-tidy/ide.md",
    "/usr/share/doc/torch-tidy/checks/unchecked-index.md",
    "/usr/share/torch-tidy",
    "/usr/share/torch-tidy/extension-compile-commands.py",
]
if os.path.isdir(os.path.join(src_root, "lib", "cuda-compat", "include")):
    expected.append("/usr/share/torch-tidy/cuda-compat/include")
for path in expected:
    if path not in listed or not os.path.exists(root + path):
        fail("%s is not installed by the package" % path)
print("dpkg unpacked %d paths into the empty root; layout ok" % len(listed))

# Depends covers the shared libraries the binaries need.
elves = [root + p for p in ("/usr/bin/torch-tidy", "/usr/bin/torch-clangd",
                            "/usr/lib/torch-tidy/TorchTidy.so")]
owners = set()
for elf in elves:
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", run("readelf", "-d", elf))
    ldd = run("ldd", elf)
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
    # The dynamic loader is listed by its path alone.
    for path in re.findall(r"^\s*(/\S+) \(0x", ldd, re.M):
        resolved.setdefault(os.path.basename(path), path)
    for lib in needed:
        path = resolved.get(lib)
        if not path or path == "not":
            fail("%s: %s is not found on this machine" % (elf, lib))
        # usrmerge: dpkg may know the file as /lib/... or /usr/lib/...
        real = os.path.realpath(path)
        candidates = {path, real}
        for p in list(candidates):
            if p.startswith("/usr/lib/"):
                candidates.add(p[len("/usr"):])
            elif p.startswith("/lib/"):
                candidates.add("/usr" + p)
        owner = None
        for p in sorted(candidates):
            r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
            if r.returncode == 0:
                owner = r.stdout.split(":")[0].strip()
                break
        if not owner:
            fail("%s: no Debian package owns %s (%s)" % (elf, lib, path))
        if owner not in depends:
            fail("%s needs %s from %s, which Depends does not name (Depends: %s)"
                 % (elf, lib, owner, fields["Depends"]))
        owners.add(owner)
for must in ("clang-tidy-" + llvm, "libclang-common-%s-dev" % llvm, "libtorch-dev"):
    if must not in depends:
        fail("Depends lacks %s" % must)
print("Depends covers the %d packages of the libraries the binaries link: %s"
      % (len(owners), " ".join(sorted(owners))))

# apt on an empty system: every dependency resolves from the archive.
with tempfile.TemporaryDirectory() as tmp:
    status = os.path.join(tmp, "status")
    open(status, "w").close()
    out = run("apt-get", "install", "-s", "-q", "--no-install-recommends",
              "-o", "Dir::State::status=" + status, "-o", "Debug::NoLocking=1",
              os.path.abspath(deb))
installs = re.findall(r"^Inst (\S+)", out, re.M)
for must in ("torch-tidy", "clang-tidy-" + llvm, "libtorch-dev"):
    if must not in installs:
        fail("apt's simulated install on an empty system does not install %s" % must)
print("apt-get install -s on an empty system: %d packages, torch-tidy among them"
      % len(installs))
