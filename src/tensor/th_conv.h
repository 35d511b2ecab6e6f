/*
** th_conv.h: Torch7's conv2, xcorr2, conv3, xcorr3 (th_conv.c).
** 'V' (valid): the output covers the positions where the kernel fits
** inside the input; 'F' (full): every position where they overlap.
** A convolution flips the kernel in every dimension, a cross-correlation
** does not. Forms, for nd = 2 (3 is the same one dimension up):
**   input 2D, kernel 2D -> 2D
**   input 3D (p planes), kernel 3D (p planes) -> 3D: plane i is input i
**     with kernel i
**   input 3D (p planes), kernel 4D (o x p) -> 3D (o planes): plane j is the
**     sum over i of input i with kernel j, i
*/
#ifndef TH_CONV_H
#define TH_CONV_H

#include "th_tensor.h"

int th_tensor_conv(th_tensor *r, const th_tensor *x, const th_tensor *k, int nd, int full, int flip);

#endif
