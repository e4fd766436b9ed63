/* samples/aot/main.c: a plain C program calling the function that
 * `sluice compile --emit obj` generated from model.sluice, checked against
 * the same arithmetic written out by hand. */
#include <math.h>
#include <stdio.h>

#include "model.h"

int main(void) {
  float x[MODEL_RUN_X_ELEMENTS], b[MODEL_RUN_B_ELEMENTS];
  float y[MODEL_RUN_Y_ELEMENTS], energy[MODEL_RUN_ENERGY_ELEMENTS];
  for (int i = 0; i < MODEL_RUN_X_ELEMENTS; ++i)
    x[i] = (float)i - 5.0f;
  for (int j = 0; j < MODEL_RUN_B_ELEMENTS; ++j)
    b[j] = 0.5f * (float)j;
  if (model_run(x, b, y, energy) != 0) {
    fprintf(stderr, "model_run failed\n");
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < 4; ++i) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) {
      float want = fmaxf(1.5f * x[i * 3 + j] + b[j], 0.0f);
      if (y[i * 3 + j] != want) {
        printf("y[%d][%d] = %g, expected %g\n", i, j, y[i * 3 + j], want);
        bad = 1;
      }
      sum += (double)want * want;
    }
    if (fabs(energy[i] - sum) > 1e-5 * (sum + 1)) {
      printf("energy[%d] = %g, expected %g\n", i, energy[i], sum);
      bad = 1;
    }
    printf("row %d: y = [%g %g %g], energy = %g\n", i, y[i * 3], y[i * 3 + 1], y[i * 3 + 2],
           energy[i]);
  }
  return bad;
}
