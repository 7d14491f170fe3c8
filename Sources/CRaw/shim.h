#ifndef CRAW_SHIM_H
#define CRAW_SHIM_H
/* LibRaw (its reentrant build) through a typed dlopen table, opened the first time a DNG holds raw
   sensor data and no picture libtiff can render: demosaiced, white-balanced as shot, into 8-bit sRGB,
   turned upright by the file's orientation. LibRaw prints nothing (no callbacks); every error is a code. */
#include <string.h>
#include <libraw/libraw.h>

#define CRAW_FUNCTIONS(X) X(libraw_init) X(libraw_open_buffer) X(libraw_unpack) X(libraw_dcraw_process) \
    X(libraw_dcraw_make_mem_image) X(libraw_dcraw_clear_mem) X(libraw_close) X(libraw_strerror)

#define CRAW_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct craw { CRAW_FUNCTIONS(CRAW_FIELD) } craw;
#undef CRAW_FIELD

/* The table's members by name, in order, and the library that has them (opened by DynamicTable.swift). */
#define CRAW_NAME(name) #name,
static inline const char *const *_Nonnull craw_symbols(void) { static const char *const s[] = { CRAW_FUNCTIONS(CRAW_NAME) NULL }; return s; }
#undef CRAW_NAME
#define CRAW_STR2(x) #x
#define CRAW_STR(x) CRAW_STR2(x)
/* The soname of the LibRaw these headers are: its structures' layout is compiled in. */
static inline const char *const *_Nonnull craw_libraries(void) { static const char *const l[] = { "libraw_r.so." CRAW_STR(LIBRAW_SHLIB_CURRENT), NULL }; return l; }

/* One file's decode: LibRaw's handle, then its rendered picture; both freed by craw_close. */
typedef struct craw_image {
    libraw_data_t *_Nullable raw;
    libraw_processed_image_t *_Nullable out;
    /* The picture's size on the sensor (before any halving or turn), and the samples the sensor data
       holds (masked borders too), once opened. */
    int width, height;
    long long raw_samples;
    /* The picture's, once rendered: 3 bytes a pixel, rows packed. */
    int out_width, out_height;
    const unsigned char *_Nullable pixels;
} craw_image;

/* Reads the file's structure (no pixel yet) from `data`, which must outlive the image; LibRaw
   allocates at most `max_mb` for the sensor data. 0, or LibRaw's error code. */
static inline int craw_open(const craw *_Nonnull t, craw_image *_Nonnull img, const void *_Nonnull data, size_t size, unsigned max_mb) {
    memset(img, 0, sizeof *img);
    img->raw = t->libraw_init(LIBRAW_OPIONS_NO_MEMERR_CALLBACK | LIBRAW_OPIONS_NO_DATAERR_CALLBACK);
    if (!img->raw) return LIBRAW_UNSUFFICIENT_MEMORY;
    img->raw->params.max_raw_memory_mb = max_mb;
    int e = t->libraw_open_buffer(img->raw, (void *)data, size);
    if (e != LIBRAW_SUCCESS) return e;
    img->width = img->raw->sizes.width;
    img->height = img->raw->sizes.height;
    img->raw_samples = (long long)img->raw->sizes.raw_width * img->raw->sizes.raw_height;
    return 0;
}

/* Demosaics (or, with `half`, takes each 2×2 block of the mosaic as one pixel: half the sides,
   no interpolation) into 8-bit sRGB with the camera's white balance. 0, or LibRaw's error code. */
static inline int craw_render(const craw *_Nonnull t, craw_image *_Nonnull img, int half) {
    libraw_data_t *raw = img->raw;
    if (!raw) return LIBRAW_UNSPECIFIED_ERROR;
    raw->params.half_size = half;
    raw->params.output_bps = 8;
    raw->params.use_camera_wb = 1;
    raw->params.output_color = 1;  /* sRGB */
    int e = t->libraw_unpack(raw);
    if (e != LIBRAW_SUCCESS) return e;
    e = t->libraw_dcraw_process(raw);
    if (e != LIBRAW_SUCCESS) return e;
    img->out = t->libraw_dcraw_make_mem_image(raw, &e);
    if (!img->out) return e != LIBRAW_SUCCESS ? e : LIBRAW_UNSPECIFIED_ERROR;
    libraw_processed_image_t *o = img->out;
    if (o->type != LIBRAW_IMAGE_BITMAP || o->colors != 3 || o->bits != 8
        || (size_t)o->data_size != (size_t)o->width * o->height * 3) return LIBRAW_UNSPECIFIED_ERROR;
    img->out_width = o->width;
    img->out_height = o->height;
    img->pixels = o->data;
    return 0;
}

static inline void craw_close(const craw *_Nonnull t, craw_image *_Nonnull img) {
    if (img->out) t->libraw_dcraw_clear_mem(img->out);
    if (img->raw) t->libraw_close(img->raw);
    img->out = NULL;
    img->raw = NULL;
    img->pixels = NULL;
}
#endif
