// Writes a Display P3 ICC profile (P3 primaries, D65 white, the sRGB curve; as the library's
// built-in one) to the file named on the command line, for make_files.py.
//
// Build: cc -O2 -o p3_profile p3_profile.c $(pkg-config --cflags --libs lcms2)
#include <lcms2.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: p3_profile OUT.icc\n"); return 2; }
    cmsCIExyY white = {0.3127, 0.3290, 1};
    cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1}, {0.265, 0.690, 1}, {0.150, 0.060, 1}};
    cmsFloat64Number parameters[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, parameters);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsMLU *description = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(description, "en", "US", "Display P3");
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
    int ok = profile && cmsSaveProfileToFile(profile, argv[1]);
    cmsMLUfree(description);
    cmsFreeToneCurve(curve);
    cmsCloseProfile(profile);
    return ok ? 0 : 1;
}
