#include <lcms2.h>

// lcms2's pixel-format constants are function-like macros, which Swift does not import.
static const cmsUInt32Number CLCMS2_TYPE_RGBA_8 = TYPE_RGBA_8;
static const cmsUInt32Number CLCMS2_TYPE_CMYK_8 = TYPE_CMYK_8;
static const cmsUInt32Number CLCMS2_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
static const cmsUInt32Number CLCMS2_TYPE_RGB_FLT = TYPE_RGB_FLT;
static const cmsUInt32Number CLCMS2_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number CLCMS2_TYPE_GRAY_8 = TYPE_GRAY_8;
static const cmsUInt32Number CLCMS2_TYPE_RGB_DBL = TYPE_RGB_DBL;
static const cmsUInt32Number CLCMS2_TYPE_Lab_DBL = TYPE_Lab_DBL;
