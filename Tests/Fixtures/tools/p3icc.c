// Writes a Display P3 ICC profile (P3 primaries, D65 white, the sRGB curve), made with lcms2 as
// the tests' ColorFixtures.displayP3 is: by default test-display-p3.icc described "Test Display
// P3" (the ICC-tagged AVIF and HEIF fixtures); `p3icc OUT DESCRIPTION` names both (the colour
// benchmark's file). Build: cc p3icc.c $(pkg-config --cflags --libs lcms2)
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  const char *out = argc > 1 ? argv[1] : "test-display-p3.icc";
  const char *name = argc > 2 ? argv[2] : "Test Display P3";
  cmsCIExyY white = {0.3127, 0.3290, 1};
  cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1}, {0.265, 0.690, 1}, {0.150, 0.060, 1}};
  cmsFloat64Number parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
  cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, parameters);
  cmsToneCurve *curves[3] = {curve, curve, curve};
  cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
  cmsMLU *mlu = cmsMLUalloc(NULL, 1);
  cmsMLUsetASCII(mlu, "en", "US", name);
  cmsWriteTag(profile, cmsSigProfileDescriptionTag, mlu);
  if (!cmsSaveProfileToFile(profile, out)) { fprintf(stderr, "save failed\n"); return 1; }
  cmsMLUfree(mlu); cmsFreeToneCurve(curve); cmsCloseProfile(profile);
  return 0;
}
