"""Build leaky_ext, the seed scenario's PyTorch C++ extension, for Valgrind.

    python setup.py build_ext --build-lib build/lib      (or: ./build.sh)

-O0 keeps every function and source line in the call stacks Memcheck prints and -g
gives them file and line; optimisation would inline the bugs away or move them
between lines. The flags come after Python's own CFLAGS (which say -O3 on most
builds), so they win.
"""

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(
    name="leaky_ext",
    ext_modules=[
        CppExtension(
            "leaky_ext",
            ["src/leaky_ext.cpp"],
            extra_compile_args=["-O0", "-g"],
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
