#ifndef CJXL_SHIM_H
#define CJXL_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* libjxl's decoder through a typed dlopen table, opened the first time a JPEG XL file arrives;
   and the calls whose arguments changed between libjxl versions. */
#include <jxl/decode.h>
#include <jxl/version.h>

#define CJXL_FUNCTIONS(X) X(JxlDecoderCreate) X(JxlDecoderDestroy) X(JxlDecoderSubscribeEvents) X(JxlDecoderSetInput) \
    X(JxlDecoderCloseInput) X(JxlDecoderProcessInput) X(JxlDecoderGetBasicInfo) X(JxlDecoderGetICCProfileSize) \
    X(JxlDecoderGetColorAsICCProfile) X(JxlDecoderImageOutBufferSize) X(JxlDecoderSetImageOutBuffer) X(JxlDecoderSetUnpremultiplyAlpha) \
    X(JxlDecoderGetColorAsEncodedProfile)

/* A literal, so the binary names it (scripts/make-deb.sh reads the sonames it may open). */
#define CJXL_STR2(x) #x
#define CJXL_STR(x) CJXL_STR2(x)
MP_DYNAMIC_TABLE(cjxl, CJXL_FUNCTIONS, "libjxl.so." CJXL_STR(JPEGXL_MAJOR_VERSION) "." CJXL_STR(JPEGXL_MINOR_VERSION))
#undef CJXL_STR
#undef CJXL_STR2

/* The ICC profile of the decoded data (its size with `out` NULL); libjxl before 0.9 took an unused format. */
static inline JxlDecoderStatus cjxl_icc(const cjxl *j, const JxlDecoder *dec, uint8_t *out, size_t *size) {
#if JPEGXL_NUMERIC_VERSION < JPEGXL_COMPUTE_NUMERIC_VERSION(0, 9, 0)
    if (!out) return j->JxlDecoderGetICCProfileSize(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, size);
    return j->JxlDecoderGetColorAsICCProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, out, *size);
#else
    if (!out) return j->JxlDecoderGetICCProfileSize(dec, JXL_COLOR_PROFILE_TARGET_DATA, size);
    return j->JxlDecoderGetColorAsICCProfile(dec, JXL_COLOR_PROFILE_TARGET_DATA, out, *size);
#endif
}

/* The decoded data's colour as an encoded profile (primaries, transfer), when it is one rather than ICC. */
static inline JxlDecoderStatus cjxl_encoding(const cjxl *j, const JxlDecoder *dec, JxlColorEncoding *out) {
#if JPEGXL_NUMERIC_VERSION < JPEGXL_COMPUTE_NUMERIC_VERSION(0, 9, 0)
    return j->JxlDecoderGetColorAsEncodedProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_DATA, out);
#else
    return j->JxlDecoderGetColorAsEncodedProfile(dec, JXL_COLOR_PROFILE_TARGET_DATA, out);
#endif
}
#endif
