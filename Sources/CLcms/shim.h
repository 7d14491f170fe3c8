#ifndef CLCMS_SHIM_H
#define CLCMS_SHIM_H
/* Little CMS through a typed dlopen table, opened the first time an image carries a profile;
   and the pixel-format and flag macros Swift cannot import. */
#include <lcms2.h>
#include <dlfcn.h>
#include <stdio.h>

#define CLCMS_FUNCTIONS(X) X(cmsOpenProfileFromMem) X(cmsCloseProfile) X(cmsCreate_sRGBProfile) X(cmsCreateRGBProfile) \
    X(cmsBuildGamma) X(cmsFreeToneCurve) X(cmsCreateTransform) X(cmsDeleteTransform) X(cmsDoTransform) \
    X(cmsGetColorSpace) X(cmsGetProfileInfoASCII) X(cmsBuildParametricToneCurve) X(cmsSaveProfileToMem)

#define CLCMS_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct clcms { CLCMS_FUNCTIONS(CLCMS_FIELD) } clcms;
#undef CLCMS_FIELD

/* Fills `table` (memory of sizeof(clcms)) from liblcms2.so.2. Returns 0, or -1 with the reason in `err`. */
static inline int clcms_load(void *table, char *err, int errlen) {
#define CLCMS_NAME(name) #name,
    static const char *const symbols[] = { CLCMS_FUNCTIONS(CLCMS_NAME) };
#undef CLCMS_NAME
    void *lib = dlopen("liblcms2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(err, (size_t)errlen, "cannot load liblcms2.so.2: %s", dlerror()); return -1; }
    void **t = (void **)table;
    for (size_t i = 0; i < sizeof(symbols) / sizeof(*symbols); i++) {
        if (!(t[i] = dlsym(lib, symbols[i]))) { snprintf(err, (size_t)errlen, "missing symbol %s", symbols[i]); return -1; }
    }
    return 0;
}
static inline size_t clcms_size(void) { return sizeof(clcms); }

static inline cmsUInt32Number clcms_type_rgb8(void) { return TYPE_RGB_8; }
static inline cmsUInt32Number clcms_type_rgba8(void) { return TYPE_RGBA_8; }
static inline cmsUInt32Number clcms_type_cmyk8(void) { return TYPE_CMYK_8; }
/* Adobe's inverted CMYK (a stored value is 255 − ink). */
static inline cmsUInt32Number clcms_type_cmyk8_inverted(void) { return TYPE_CMYK_8_REV; }
static inline cmsUInt32Number clcms_relative_colorimetric(void) { return INTENT_RELATIVE_COLORIMETRIC; }
static inline cmsUInt32Number clcms_flags(int copy_alpha) {
    return cmsFLAGS_BLACKPOINTCOMPENSATION | (copy_alpha ? cmsFLAGS_COPY_ALPHA : 0);
}
#endif
