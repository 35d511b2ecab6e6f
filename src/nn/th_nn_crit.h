/*
** th_nn_crit.h: kernels of Torch7's margin criterions over class scores
** (MultiMarginCriterion, MultiLabelMarginCriterion).
** input: nClasses or batch x nClasses (Float or Double, any strides);
** class numbers stay 1-based up to the kernels. Losses accumulate in
** double. Every function checks its arguments (shapes, target values,
** weight sizes) and returns TH_OK, or TH_ERR with a message naming what
** was expected and what came; the binding prefixes "nn.Class:method".
*/
#ifndef TH_NN_CRIT_H
#define TH_NN_CRIT_H

#include "../tensor/th_tensor.h"

/* MultiMarginCriterion: per row with target class y,
   sum_{i != y} w[y] * max(0, margin - x[y] + x[i])^p / nClasses,
   summed over rows (/ rows when sizeAverage). target: one class number per
   row (a 1-element tensor for 1D input, a 1D tensor of batch for 2D).
   weights: NULL or nClasses elements. p: 1 or 2. */
int th_nn_multimargin_update_output(const th_tensor *input, const th_tensor *target,
                                    const th_tensor *weights, int sizeAverage, int p,
                                    double margin, double *output);
int th_nn_multimargin_update_grad_input(const th_tensor *input, const th_tensor *target,
                                        const th_tensor *weights, int sizeAverage, int p,
                                        double margin, th_tensor *gradInput);

/* MultiLabelMarginCriterion: target has the input's shape; each row lists
   its target classes, ended by the first 0 (values 0..nClasses). Per row,
   sum over targets j and non-targets i of max(0, 1 - x[j] + x[i]) /
   nClasses, summed over rows (/ rows when sizeAverage). isTarget (the
   input's dtype) is resized to the input's shape and set to 1 at each
   row's target classes, 0 elsewhere (Torch7's field). */
int th_nn_multilabelmargin_update_output(const th_tensor *input, const th_tensor *target,
                                         th_tensor *isTarget, int sizeAverage, double *output);
int th_nn_multilabelmargin_update_grad_input(const th_tensor *input, const th_tensor *target,
                                             th_tensor *isTarget, int sizeAverage,
                                             th_tensor *gradInput);

#endif
