#ifndef CTIFF_SHIM_H
#define CTIFF_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* libtiff through a typed dlopen table, opened the first time a TIFF or BigTIFF is decoded: its RGBA
   interface reads every compression, layout and bit depth a TIFF may hold, from memory or from a file
   descriptor (pread: the file is never whole in memory), with libtiff's own allocation cap and its
   messages kept per image, never printed. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tiffio.h>

/* DNG's linear (demosaiced but unrendered) raw data, which libtiff's header does not name. */
#define CTIFF_PHOTOMETRIC_LINEAR_RAW 34892

#define CTIFF_FUNCTIONS(X) X(TIFFOpenOptionsAlloc) X(TIFFOpenOptionsFree) X(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    X(TIFFOpenOptionsSetErrorHandlerExtR) X(TIFFOpenOptionsSetWarningHandlerExtR) X(TIFFClientOpenExt) X(TIFFClose) \
    X(TIFFRGBAImageOK) X(TIFFReadRGBAImageOriented) X(TIFFRGBAImageBegin) X(TIFFRGBAImageGet) X(TIFFRGBAImageEnd) X(TIFFReadScanline) X(TIFFIsTiled) X(TIFFSetSubDirectory) \
    X(TIFFSetDirectory) X(TIFFIsCODECConfigured)
/* Variadic: held untyped (Swift imports no variadic function pointer), called through ctiff_get below. */
#define CTIFF_VARIADIC(X) X(TIFFGetField) X(TIFFGetFieldDefaulted)

#define CTIFF_UNTYPED(name) void *_Nonnull name;
typedef struct ctiff { CTIFF_FUNCTIONS(MP_TABLE_FIELD) CTIFF_VARIADIC(CTIFF_UNTYPED) } ctiff;
#undef CTIFF_UNTYPED
static inline const char *const *_Nonnull ctiff_symbols(void) { static const char *const s[] = { CTIFF_FUNCTIONS(MP_TABLE_NAME) CTIFF_VARIADIC(MP_TABLE_NAME) NULL }; return s; }
MP_TABLE_LIBRARIES(ctiff, "libtiff.so.6")

/* What libtiff reads from: bytes in memory, or a descriptor read with pread. */
typedef struct ctiff_source {
    const uint8_t *_Nullable data;
    int fd;
    uint64_t size;
    uint64_t position;
} ctiff_source;

/* One open image: libtiff's handle, and what its first directory says. */
typedef struct ctiff_image {
    ctiff_source source;
    TIFF *_Nullable tif;
    TIFFOpenOptions *_Nullable options;
    uint32_t width, height;
    uint16_t orientation;
    /* Raster bytes libtiff writes premultiplied by alpha: it premultiplies an RGB image's unassociated
       alpha and passes associated alpha through, but leaves a gray image's samples as they are. */
    int premultiplied;
    /* 8-bit CMYK in strips, samples side by side: read as inks (ctiff_read_cmyk) for its profile. */
    int cmyk;
    /* A DNG with nothing but sensor data: no directory libtiff renders. */
    int raw_only;
    /* Sensor data (a CFA or linear directory, the first or a SubIFD) in a TIFF that is no DNG: a camera
       maker's raw (Nikon NEF, Sony ARW, Pentax PEF…), whose own directories are a thumbnail at best. */
    int camera_raw;
    /* An alpha extra sample: the picture may be transparent (whether it is, only its pixels tell). */
    int alpha;
    /* Rows a strip holds, or a tile's height: what one read decodes at once. */
    uint32_t rows_per_band;
    const uint8_t *_Nullable icc;
    uint32_t icc_size;
    char message[512];
} ctiff_image;

static tmsize_t ctiff_read_proc(thandle_t h, void *buffer, tmsize_t n) {
    ctiff_source *s = (ctiff_source *)h;
    if (n < 0 || s->position >= s->size) return 0;
    uint64_t left = s->size - s->position;
    size_t want = (uint64_t)n < left ? (size_t)n : (size_t)left;
    if (s->data) {
        memcpy(buffer, s->data + s->position, want);
        s->position += want;
        return (tmsize_t)want;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(s->fd, (uint8_t *)buffer + got, want - got, (off_t)(s->position + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    s->position += got;
    return (tmsize_t)got;
}
static tmsize_t ctiff_write_proc(thandle_t h, void *buffer, tmsize_t n) { (void)h; (void)buffer; (void)n; return -1; }
static toff_t ctiff_seek_proc(thandle_t h, toff_t offset, int whence) {
    ctiff_source *s = (ctiff_source *)h;
    uint64_t base = whence == SEEK_CUR ? s->position : whence == SEEK_END ? s->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    s->position = base + offset;
    return s->position;
}
static int ctiff_close_proc(thandle_t h) { (void)h; return 0; }
static toff_t ctiff_size_proc(thandle_t h) { return ((ctiff_source *)h)->size; }
/* Bytes in memory are handed over as libtiff's map: it reads strips in place, without copies. */
static int ctiff_map_proc(thandle_t h, void **base, toff_t *size) {
    ctiff_source *s = (ctiff_source *)h;
    if (!s->data) return 0;
    *base = (void *)s->data;
    *size = s->size;
    return 1;
}
static void ctiff_unmap_proc(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

/* The first error is kept (the later ones follow from it); warnings are dropped. Never printed. */
static int ctiff_error(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif; (void)module;
    ctiff_image *img = (ctiff_image *)user;
    if (img->message[0] == 0) vsnprintf(img->message, sizeof img->message, format, ap);
    return 1;
}
static int ctiff_warning(TIFF *tif, void *user, const char *module, const char *format, va_list ap) {
    (void)tif; (void)user; (void)module; (void)format; (void)ap;
    return 1;
}

/* Whether a directory of this photometric interpretation holds a raw sensor's CFA or linear data. */
static inline int ctiff_is_sensor_photometric(uint16_t photometric) {
    return photometric == PHOTOMETRIC_CFA || photometric == CTIFF_PHOTOMETRIC_LINEAR_RAW;
}

/* Whether the current directory holds a raw sensor's CFA or linear data. */
static inline int ctiff_is_sensor_data(const ctiff *_Nonnull t, TIFF *_Nonnull tif) {
    int (*get)(TIFF *, uint32_t, ...) = (int (*)(TIFF *, uint32_t, ...))t->TIFFGetField;
    uint16_t photometric = 0;
    return get(tif, TIFFTAG_PHOTOMETRIC, &photometric) && ctiff_is_sensor_photometric(photometric);
}

/* Whether the current directory holds pixels libtiff's RGBA interface renders (not a raw sensor's
   CFA or linear data), and how many. */
static inline uint64_t ctiff_renderable_pixels(const ctiff *_Nonnull t, TIFF *_Nonnull tif) {
    int (*get)(TIFF *, uint32_t, ...) = (int (*)(TIFF *, uint32_t, ...))t->TIFFGetField;
    int (*defaulted)(TIFF *, uint32_t, ...) = (int (*)(TIFF *, uint32_t, ...))t->TIFFGetFieldDefaulted;
    uint32_t w = 0, h = 0;
    uint16_t photometric = 0, compression = COMPRESSION_NONE;
    if (!get(tif, TIFFTAG_IMAGEWIDTH, &w) || !get(tif, TIFFTAG_IMAGELENGTH, &h) || !get(tif, TIFFTAG_PHOTOMETRIC, &photometric)) return 0;
    defaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (ctiff_is_sensor_photometric(photometric) || !t->TIFFIsCODECConfigured(compression)) return 0;
    return (uint64_t)w * h;
}

/* A DNG's first directory is a small thumbnail; its SubIFDs hold the raw data and, in most (Apple's
   ProRAW, Adobe's converter, cameras), a large preview. The largest directory there that renders is
   made current; the first stays when none is larger. At most 16 are looked at. Returns whether any
   of them (the first too) holds sensor data. */
static inline int ctiff_choose_largest(const ctiff *_Nonnull t, TIFF *_Nonnull tif) {
    int (*get)(TIFF *, uint32_t, ...) = (int (*)(TIFF *, uint32_t, ...))t->TIFFGetField;
    int sensor = ctiff_is_sensor_data(t, tif);
    uint16_t count = 0;
    uint64_t *listed = NULL, offsets[16];
    if (!get(tif, TIFFTAG_SUBIFD, &count, &listed) || !listed || count == 0) return sensor;
    int n = count < 16 ? count : 16;
    memcpy(offsets, listed, (size_t)n * sizeof offsets[0]);  /* libtiff frees the list on the next directory */
    uint64_t best = ctiff_renderable_pixels(t, tif), chosen = 0;
    for (int i = 0; i < n; i++) {
        if (!t->TIFFSetSubDirectory(tif, offsets[i])) continue;
        sensor |= ctiff_is_sensor_data(t, tif);
        uint64_t pixels = ctiff_renderable_pixels(t, tif);
        if (pixels > best) { best = pixels; chosen = offsets[i]; }
    }
    if (chosen == 0 || !t->TIFFSetSubDirectory(tif, chosen)) t->TIFFSetDirectory(tif, 0);
    return sensor;
}

/* Opens `img` over `data` (or `fd` when data is NULL) of `size` bytes, no single allocation of libtiff's
   above `max_alloc`, and reads its first directory's orientation, then the size and ICC profile of the
   directory it renders (`ctiff_choose_largest`).
   0, or -1 with img->message set; ctiff_close frees whatever was made either way. */
static inline int ctiff_open(const ctiff *_Nonnull t, ctiff_image *_Nonnull img, const uint8_t *_Nullable data, int fd,
                             uint64_t size, int64_t max_alloc) {
    memset(img, 0, sizeof *img);
    img->source.data = data;
    img->source.fd = fd;
    img->source.size = size;
    img->options = t->TIFFOpenOptionsAlloc();
    if (!img->options) { snprintf(img->message, sizeof img->message, "out of memory"); return -1; }
    t->TIFFOpenOptionsSetMaxSingleMemAlloc(img->options, (tmsize_t)max_alloc);
    t->TIFFOpenOptionsSetErrorHandlerExtR(img->options, ctiff_error, img);
    t->TIFFOpenOptionsSetWarningHandlerExtR(img->options, ctiff_warning, img);
    img->tif = t->TIFFClientOpenExt("image", data ? "r" : "rm", (thandle_t)&img->source, ctiff_read_proc, ctiff_write_proc,
                                    ctiff_seek_proc, ctiff_close_proc, ctiff_size_proc, ctiff_map_proc, ctiff_unmap_proc, img->options);
    if (!img->tif) {
        if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "not a TIFF libtiff can open");
        return -1;
    }
    int (*get)(TIFF *, uint32_t, ...) = (int (*)(TIFF *, uint32_t, ...))t->TIFFGetField;
    int (*defaulted)(TIFF *, uint32_t, ...) = (int (*)(TIFF *, uint32_t, ...))t->TIFFGetFieldDefaulted;
    /* A DNG's orientation is its first directory's, for every image it holds. */
    if (!defaulted(img->tif, TIFFTAG_ORIENTATION, &img->orientation)) img->orientation = ORIENTATION_TOPLEFT;
    uint8_t *dng_version = NULL;
    int dng = get(img->tif, TIFFTAG_DNGVERSION, &dng_version);
    if (ctiff_choose_largest(t, img->tif) && !dng) {
        snprintf(img->message, sizeof img->message, "a camera maker's raw photo: sensor data in a TIFF that is no DNG");
        img->camera_raw = 1;
        return -1;
    }
    if (!get(img->tif, TIFFTAG_IMAGEWIDTH, &img->width) || !get(img->tif, TIFFTAG_IMAGELENGTH, &img->height)) {
        if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "no image size in the first directory");
        return -1;
    }
    if (ctiff_is_sensor_data(t, img->tif)) {
        snprintf(img->message, sizeof img->message, "raw sensor data only (no rendered image or preview): it needs demosaicing");
        img->raw_only = 1;
        return -1;
    }
    uint16_t photometric = PHOTOMETRIC_RGB, extra = 0;
    uint16_t *kinds = NULL;
    get(img->tif, TIFFTAG_PHOTOMETRIC, &photometric);
    int gray = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    uint16_t bits = 1, samples = 1, planar = PLANARCONFIG_CONTIG, inks = INKSET_CMYK;
    defaulted(img->tif, TIFFTAG_BITSPERSAMPLE, &bits);
    defaulted(img->tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    defaulted(img->tif, TIFFTAG_PLANARCONFIG, &planar);
    defaulted(img->tif, TIFFTAG_INKSET, &inks);
    img->cmyk = photometric == PHOTOMETRIC_SEPARATED && bits == 8 && samples == 4 && planar == PLANARCONFIG_CONTIG
        && inks == INKSET_CMYK && !t->TIFFIsTiled(img->tif);
    img->premultiplied = !(gray && defaulted(img->tif, TIFFTAG_EXTRASAMPLES, &extra, &kinds) && extra > 0 && kinds
                           && kinds[0] == EXTRASAMPLE_UNASSALPHA);
    uint32_t band = 0;
    if (t->TIFFIsTiled(img->tif)) get(img->tif, TIFFTAG_TILELENGTH, &band); else defaulted(img->tif, TIFFTAG_ROWSPERSTRIP, &band);
    img->rows_per_band = band;
    extra = 0;
    kinds = NULL;
    img->alpha = defaulted(img->tif, TIFFTAG_EXTRASAMPLES, &extra, &kinds) && extra > 0 && kinds
        && (kinds[0] == EXTRASAMPLE_ASSOCALPHA || kinds[0] == EXTRASAMPLE_UNASSALPHA);
    void *icc = NULL;
    uint32_t icc_size = 0;
    if (get(img->tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size > 0) {
        img->icc = (const uint8_t *)icc;
        img->icc_size = icc_size;
    }
    return 0;
}

/* Every pixel as R, G, B, A bytes (alpha associated, 255 where there is none), rows as stored: the
   file's orientation is asked for, so libtiff flips nothing and the caller turns the image. 0 or -1. */
static inline int ctiff_read_rgba(const ctiff *_Nonnull t, ctiff_image *_Nonnull img, uint32_t *_Nonnull raster) {
    char why[1024] = {0};
    if (!t->TIFFRGBAImageOK(img->tif, why)) {
        if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "%s", why);
        return -1;
    }
    uint16_t asked = img->orientation >= 1 && img->orientation <= 8 ? img->orientation : ORIENTATION_TOPLEFT;
    if (!t->TIFFReadRGBAImageOriented(img->tif, img->width, img->height, raster, asked, 1)) {
        if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "the image data cannot be read");
        return -1;
    }
    return 0;
}

/* Whether libtiff's RGBA interface renders this directory, read from its tags alone: what is refused
   is refused before a pixel is allocated. 0 or -1. */
static inline int ctiff_rgba_ok(const ctiff *_Nonnull t, ctiff_image *_Nonnull img) {
    char why[1024] = {0};
    if (t->TIFFRGBAImageOK(img->tif, why)) return 0;
    if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "%s", why);
    return -1;
}

/* `rows` rows from `row` on (as stored) as R, G, B, A bytes, alpha associated, into `raster` (width ×
   rows): libtiff's RGBA interface with a row offset, as TIFFReadRGBAStrip uses it, the file's own
   orientation asked for so nothing is flipped. A band at a time, the whole picture is never held. */
static inline int ctiff_read_rgba_rows(const ctiff *_Nonnull t, ctiff_image *_Nonnull img, uint32_t *_Nonnull raster,
                                       uint32_t row, uint32_t rows) {
    char why[1024] = {0};
    TIFFRGBAImage rgba;
    if (!t->TIFFRGBAImageBegin(&rgba, img->tif, 1, why)) {  /* Begin checks TIFFRGBAImageOK itself */
        if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "%s", why);
        return -1;
    }
    rgba.req_orientation = img->orientation >= 1 && img->orientation <= 8 ? img->orientation : ORIENTATION_TOPLEFT;
    rgba.row_offset = (int)row;
    rgba.col_offset = 0;
    int ok = t->TIFFRGBAImageGet(&rgba, raster, img->width, rows);
    t->TIFFRGBAImageEnd(&rgba);
    if (!ok) {
        if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "the image data cannot be read");
        return -1;
    }
    return 0;
}

/* A CMYK image's inks (ink amounts, 0 none), 4 bytes a pixel, rows as stored. 0 or -1. */
static inline int ctiff_read_cmyk(const ctiff *_Nonnull t, ctiff_image *_Nonnull img, uint8_t *_Nonnull out) {
    if (!img->cmyk) { snprintf(img->message, sizeof img->message, "not 8-bit CMYK in strips"); return -1; }
    for (uint32_t row = 0; row < img->height; row++) {
        if (t->TIFFReadScanline(img->tif, out + (size_t)row * img->width * 4, row, 0) < 0) {
            if (img->message[0] == 0) snprintf(img->message, sizeof img->message, "the image data cannot be read");
            return -1;
        }
    }
    return 0;
}

static inline void ctiff_close(const ctiff *_Nonnull t, ctiff_image *_Nonnull img) {
    if (img->tif) t->TIFFClose(img->tif);
    if (img->options) t->TIFFOpenOptionsFree(img->options);
    img->tif = NULL;
    img->options = NULL;
}
#endif
