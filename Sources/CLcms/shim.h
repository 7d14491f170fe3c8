#ifndef CLCMS_SHIM_H
#define CLCMS_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* Little CMS through a typed dlopen table, opened the first time an image carries a profile;
   and the pixel-format and flag macros Swift cannot import. */
#include <lcms2.h>

#define CLCMS_FUNCTIONS(X) X(cmsOpenProfileFromMem) X(cmsCloseProfile) X(cmsCreate_sRGBProfile) X(cmsCreateRGBProfile) \
    X(cmsBuildGamma) X(cmsFreeToneCurve) X(cmsCreateTransform) X(cmsDeleteTransform) X(cmsDoTransform) \
    X(cmsGetColorSpace) X(cmsGetProfileInfoASCII) X(cmsBuildParametricToneCurve) X(cmsSaveProfileToMem)

MP_DYNAMIC_TABLE(clcms, CLCMS_FUNCTIONS, "liblcms2.so.2")

static inline cmsUInt32Number clcms_type_rgb8(void) { return TYPE_RGB_8; }
static inline cmsUInt32Number clcms_type_rgba8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number clcms_type_cmyk8(void) { return TYPE_CMYK_8; }
/* Adobe's inverted CMYK (a stored value is 255 − ink). */
static inline cmsUInt32Number clcms_type_cmyk8_inverted(void) { return TYPE_CMYK_8_REV; }
static inline cmsUInt32Number clcms_relative_colorimetric(void) { return INTENT_RELATIVE_COLORIMETRIC; }
static inline cmsUInt32Number clcms_flags(int copy_alpha) {
    return cmsFLAGS_BLACKPOINTCOMPENSATION | (copy_alpha ? cmsFLAGS_COPY_ALPHA : 0);
}
/* For a handful of samples: the pipeline evaluated as it stands, not first turned into a table. */
static inline cmsUInt32Number clcms_flags_few_samples(void) {
    return cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE;
}
#endif
