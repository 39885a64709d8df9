# The Debian package (cmake/Packaging.cmake): built, unpacked into an empty
# root and its tools run on the example project with the real LibTorch.
import shutil

if "libtorch" not in config.available_features or not all(
        shutil.which(t) for t in ("dpkg", "dpkg-deb", "dpkg-shlibdeps", "apt-get", "readelf")):
    config.unsupported = True
