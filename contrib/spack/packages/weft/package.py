# SPDX-License-Identifier: GPL-3.0-or-later
# Spack package of weft (https://spack.io): from a weft checkout,
#   spack repo add contrib/spack && spack install weft
# builds the checkout's main branch (or WEFT_GIT: the URL of the repository
# your site mirrors) and installs it with its man pages, completions and
# modulefile (PREFIX/share/weft/modulefile).
import os

from spack.package import *

# this checkout: contrib/spack/packages/weft/ is four folders down
_HERE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.normpath(os.path.join(_HERE, "..", "..", "..", ".."))


class Weft(MakefilePackage):
    """weft turns ovni runtime traces (nOS-V, Nanos6, OpenMP, MPI, TAMPI,
    NODES, kernel) and legacy logs (PICL, VisAndOr, CHARISMA) into Paraver
    timelines that wxParaver opens as they are, with ovniemu's answers."""

    git = os.environ.get("WEFT_GIT", "file://" + _CHECKOUT)

    license("GPL-3.0-or-later")

    version("main", branch="main")

    variant("mpi", default=False, description="weft emu --mpi: split the emulation across MPI ranks")

    depends_on("c", type="build")
    depends_on("gmake", type="build")
    depends_on("autoconf", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("uthash", type="build")
    # configure wants Check (the unit tests) even for a build without them
    depends_on("check", type="build")
    depends_on("cjson")
    depends_on("zlib-api")
    depends_on("libdeflate")
    depends_on("mpi", when="+mpi")

    def build(self, spec, prefix):
        # DEPS=no: the libraries come from Spack, not from Debian packages
        make("DEPS=no")

    def install(self, spec, prefix):
        make("DEPS=no", "install", f"PREFIX={prefix}")

    def check(self):
        make("DEPS=no", "check")
