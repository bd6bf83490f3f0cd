# SPDX-License-Identifier: MIT
# The cisp Python package: `pip install ./python` (docs/python.md). The C
# extension is compiled against the installed libcisp, found with pkg-config
# (PKG_CONFIG_PATH for one installed elsewhere).
import subprocess

from setuptools import Extension, setup


def pkg_config(*args):
    try:
        return subprocess.run(['pkg-config', *args, 'cisp'], check=True, capture_output=True,
                              text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit('cisp: pkg-config cannot find the cisp library (install libcisp-dev, or set '
                         'PKG_CONFIG_PATH): %s' % getattr(e, 'stderr', e))


version = pkg_config('--modversion')[0]
extension = Extension('cisp._cisp', ['src/_cisp.c'],
                      extra_compile_args=['-std=c11'] + pkg_config('--cflags'),
                      extra_link_args=pkg_config('--libs'),
                      define_macros=[('CISP_VERSION', '"%s"' % version)])

setup(name='cisp',
      version=version,
      description='Python binding of cisp, the canonical ISP camera stack',
      license='MIT',
      packages=['cisp'],
      ext_modules=[extension],
      python_requires='>=3.9',
      install_requires=['numpy', 'PyYAML'])
