// Writes test-display-p3.icc: Display P3 (P3 primaries, D65 white, the sRGB curve) described
// "Test Display P3", made with lcms2 exactly as the tests' ColorFixtures.displayP3 is, for the
// ICC-tagged AVIF and HEIF fixtures. Build: gcc p3icc.c $(pkg-config --cflags --libs lcms2)
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  cmsCIExyY white = {0.3127, 0.3290, 1};
  cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1}, {0.265, 0.690, 1}, {0.150, 0.060, 1}};
  cmsFloat64Number parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
  cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, parameters);
  cmsToneCurve *curves[3] = {curve, curve, curve};
  cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
  cmsMLU *mlu = cmsMLUalloc(NULL, 1);
  cmsMLUsetASCII(mlu, "en", "US", "Test Display P3");
  cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
  if (!cmsSaveProfileToFile(profile, "test-display-p3.icc")) { fprintf(stderr, "save failed\n"); return 1; }
  cmsMLUfree(mlu); cmsFreeToneCurve(curve); cmsCloseProfile(profile);
  return 0;
}
