# Sourced by scripts/build.sh and scripts/test.sh: with ccache installed
# (scripts/install-deps.sh installs it), every build compiles through it, so
# a repeated build (a clean clone included, wherever it lies: paths are
# hashed relative to the clone, and the sanitized builds' debug line tables
# do not pin the directory) recompiles only what changed.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
fi
