#!/bin/sh
# Prints the OPENBLAS_CORETYPE this CPU can run: Debian's OpenBLAS 0.3.21
# does not recognise recent Xeons and falls back to SSE3 kernels, 3-6x
# slower. Prints nothing when the CPU lacks AVX2 (never force a kernel the
# CPU cannot execute) or when the user already chose one.
[ -n "$OPENBLAS_CORETYPE" ] && { echo "$OPENBLAS_CORETYPE"; exit 0; }
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
case " $flags " in
  *" avx512f "*" avx512bw "*|*" avx512bw "*" avx512f "*) echo SkylakeX ;;
  *" avx2 "*) echo Haswell ;;
esac
