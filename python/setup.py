"""The wheel of daekit's Python module: setuptools drives CMake (the repository root is the
CMake project; only the library, the module and the example models are built).

    /usr/bin/python3 -m build --wheel --no-isolation python/

DAEKIT_CMAKE_BUILD_DIR=DIR reuses a configured build tree (the test python_wheel uses build/)
instead of configuring a fresh one; DAEKIT_JOBS sets the parallel build jobs (default 2).
"""

import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("DAEKIT_CMAKE_BUILD_DIR")
        if not build_dir:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            os.makedirs(build_dir, exist_ok=True)
            subprocess.check_call([
                "cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                "-DDAEKIT_BUILD_PYTHON=ON", "-DDAEKIT_BUILD_TESTS=OFF", "-DDAEKIT_BUILD_APPS=OFF",
                "-DDAEKIT_BUILD_BENCH=OFF", "-DDAEKIT_BUILD_EXAMPLES=OFF",
                "-DDAEKIT_PYTHON=" + sys.executable])
        jobs = os.environ.get("DAEKIT_JOBS", "2")
        subprocess.check_call(["cmake", "--build", build_dir, "-j", jobs, "--target", "_daekit",
                               "daekit_example_models"])
        target = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        os.makedirs(target, exist_ok=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        shutil.copy2(os.path.join(build_dir, "python", "daekit", "_daekit" + suffix),
                     os.path.join(target, "_daekit" + suffix))
        shutil.copy2(os.path.join(build_dir, "python", "libdaekit_example_models.so"),
                     os.path.join(target, "libdaekit_example_models.so"))


setup(ext_modules=[CMakeExtension("daekit._daekit")], cmdclass={"build_ext": CMakeBuild},
      package_data={"daekit": ["libdaekit_example_models.so"]}, zip_safe=False)
