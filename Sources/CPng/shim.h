#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <png.h>

/* PNG_IMAGE_SIZE and friends are macros Swift cannot import. */
static inline size_t cpng_row_stride(const png_image *image) {
    return (size_t)PNG_IMAGE_ROW_STRIDE(*image);
}
static inline int cpng_failed(const png_image *image) {
    return PNG_IMAGE_FAILED(*image);
}
static inline png_uint_32 cpng_format_gray(void) { return PNG_FORMAT_GRAY; }
static inline png_uint_32 cpng_format_rgb(void) { return PNG_FORMAT_RGB; }
static inline png_uint_32 cpng_format_rgba(void) { return PNG_FORMAT_RGBA; }
static inline png_uint_32 cpng_format_flag_alpha(void) { return PNG_FORMAT_FLAG_ALPHA; }
static inline png_uint_32 cpng_format_flag_color(void) { return PNG_FORMAT_FLAG_COLOR; }
static inline png_uint_32 cpng_format_flag_colormap(void) { return PNG_FORMAT_FLAG_COLORMAP; }
static inline png_uint_32 cpng_version(void) { return PNG_IMAGE_VERSION; }
/* The most bytes the simplified writer can produce for `image` (stored blocks, every row filtered):
   a buffer this large lets png_image_write_to_memory encode once instead of sizing first. */
static inline size_t cpng_size_max(const png_image *image) { return (size_t)PNG_IMAGE_PNG_SIZE_MAX(*image); }
#endif
