#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <turbojpeg.h>
#include <pthread.h>
#include <errno.h>
#include <unistd.h>
#include <jpeglib.h>
#include <jpegint.h>  /* cinfo->coef->coef_arrays: a buffered-image decode's coefficients (split decode below) */
#include <jerror.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* libjpeg and TurboJPEG are opened the first time a JPEG is read or written, not linked: a process
   that touches no JPEG does not load them (`plan`: 0.08 ms of its start). libjpeg's calls in these
   headers go through the table below by its own names (the macros after it); Swift calls TurboJPEG
   through `ctj`. Both are opened by JPEGLibrary.swift. */

/* libjpeg's own, exported but not in its public headers: the optimal-table builder and the C
   accurate DCT (16-bit elements in libjpeg-turbo's SIMD builds). */
void jpeg_gen_optimal_table(j_compress_ptr cinfo, JHUFF_TBL *htbl, long freq[]);
void jpeg_fdct_islow(short *data);

#define CJPEG_FUNCTIONS(X) X(jpeg_std_error) X(jpeg_CreateDecompress) X(jpeg_CreateCompress) X(jpeg_destroy_decompress) \
    X(jpeg_destroy_compress) X(jpeg_abort_compress) X(jpeg_mem_src) X(jpeg_mem_dest) X(jpeg_read_header) X(jpeg_start_decompress) \
    X(jpeg_read_scanlines) X(jpeg_read_raw_data) X(jpeg_finish_decompress) X(jpeg_has_multiple_scans) X(jpeg_consume_input) \
    X(jpeg_start_output) X(jpeg_finish_output) X(jpeg_read_coefficients) X(jpeg_set_defaults) X(jpeg_set_colorspace) \
    X(jpeg_set_quality) X(jpeg_simple_progression) X(jpeg_start_compress) X(jpeg_write_scanlines) X(jpeg_write_raw_data) \
    X(jpeg_finish_compress) X(jpeg_gen_optimal_table) X(jpeg_fdct_islow) X(jpeg_resync_to_restart)
typedef struct cjpeg {
    CJPEG_FUNCTIONS(MP_TABLE_FIELD)
    const int *_Nonnull jpeg_natural_order;  /* data: the natural-order index of each zig-zag position */
} cjpeg;
static inline const char *const *_Nonnull cjpeg_symbols(void) { static const char *const s[] = { CJPEG_FUNCTIONS(MP_TABLE_NAME) "jpeg_natural_order", NULL }; return s; }
MP_TABLE_LIBRARIES(cjpeg, "libjpeg.so.62")

/* libjpeg's table, opened on the first call (JPEGLibrary.swift; a process that cannot open it stops
   with status 75, as one the loader could not start did). */
const void *_Nonnull mediaprep_libjpeg(void);
#define CJPEG_API ((const cjpeg *)mediaprep_libjpeg())
#define jpeg_std_error (CJPEG_API->jpeg_std_error)
#define jpeg_CreateDecompress (CJPEG_API->jpeg_CreateDecompress)
#define jpeg_CreateCompress (CJPEG_API->jpeg_CreateCompress)
#define jpeg_destroy_decompress (CJPEG_API->jpeg_destroy_decompress)
#define jpeg_destroy_compress (CJPEG_API->jpeg_destroy_compress)
#define jpeg_abort_compress (CJPEG_API->jpeg_abort_compress)
#define jpeg_mem_src (CJPEG_API->jpeg_mem_src)
#define jpeg_mem_dest (CJPEG_API->jpeg_mem_dest)
#define jpeg_read_header (CJPEG_API->jpeg_read_header)
#define jpeg_start_decompress (CJPEG_API->jpeg_start_decompress)
#define jpeg_read_scanlines (CJPEG_API->jpeg_read_scanlines)
#define jpeg_read_raw_data (CJPEG_API->jpeg_read_raw_data)
#define jpeg_finish_decompress (CJPEG_API->jpeg_finish_decompress)
#define jpeg_has_multiple_scans (CJPEG_API->jpeg_has_multiple_scans)
#define jpeg_consume_input (CJPEG_API->jpeg_consume_input)
#define jpeg_start_output (CJPEG_API->jpeg_start_output)
#define jpeg_finish_output (CJPEG_API->jpeg_finish_output)
#define jpeg_read_coefficients (CJPEG_API->jpeg_read_coefficients)
#define jpeg_set_defaults (CJPEG_API->jpeg_set_defaults)
#define jpeg_set_colorspace (CJPEG_API->jpeg_set_colorspace)
#define jpeg_set_quality (CJPEG_API->jpeg_set_quality)
#define jpeg_simple_progression (CJPEG_API->jpeg_simple_progression)
#define jpeg_start_compress (CJPEG_API->jpeg_start_compress)
#define jpeg_write_scanlines (CJPEG_API->jpeg_write_scanlines)
#define jpeg_write_raw_data (CJPEG_API->jpeg_write_raw_data)
#define jpeg_finish_compress (CJPEG_API->jpeg_finish_compress)
#define jpeg_gen_optimal_table (CJPEG_API->jpeg_gen_optimal_table)
#define jpeg_fdct_islow (CJPEG_API->jpeg_fdct_islow)
#define jpeg_resync_to_restart (CJPEG_API->jpeg_resync_to_restart)
#define jpeg_natural_order (CJPEG_API->jpeg_natural_order)

/* TurboJPEG, called from Swift through this table (`JPEGLibrary.turbo`). */
#define CTJ_FUNCTIONS(X) X(tjInitCompress) X(tjInitDecompress) X(tjInitTransform) X(tjDestroy) X(tjGetErrorStr2) X(tjGetErrorCode) \
    X(tjPlaneWidth) X(tjPlaneHeight) X(tjEncodeYUVPlanes) X(tjDecodeYUVPlanes) X(tjTransform) X(tjFree)
MP_DYNAMIC_TABLE(ctj, CTJ_FUNCTIONS, "libturbojpeg.so.0")

/* libjpeg's own API for decoding, so every warning is seen with its message code: benign ones
   (stray bytes before a marker, an unknown JFIF revision, a bad ICC or Adobe marker) leave the
   image whole; the others (premature end, bad Huffman or arithmetic code, lost sync, invalid
   progression) mean the pixels are not all there. TurboJPEG reports only the last message text. */

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int damage;          /* first damaging warning code, 0 if none */
    int benign;          /* benign warnings seen */
    char message[JMSG_LENGTH_MAX];
} cjpeg_err;

static inline int cjpeg_is_benign(int code) {
    return code == JWRN_EXTRANEOUS_DATA || code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC || code == JWRN_ADOBE_XFORM;
}

static void cjpeg_error_exit(j_common_ptr c) {
    cjpeg_err *e = (cjpeg_err *)c->err;
    (*c->err->format_message)(c, e->message);
    longjmp(e->jump, 1);
}

static void cjpeg_emit(j_common_ptr c, int level) {
    if (level >= 0) return;  /* trace messages */
    cjpeg_err *e = (cjpeg_err *)c->err;
    int code = c->err->msg_code;
    if (cjpeg_is_benign(code)) { e->benign++; return; }
    if (e->damage == 0) {
        e->damage = code;
        (*c->err->format_message)(c, e->message);
    }
}

/* Progressive files with thousands of tiny scans take quadratic time (a known decompression bomb);
   real encoders write about 10. */
#define CJPEG_MAX_SCANS 500
static void cjpeg_progress(j_common_ptr c) {
    if (c->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)c;
        if (d->input_scan_number > CJPEG_MAX_SCANS) {
            cjpeg_err *e = (cjpeg_err *)c->err;
            snprintf(e->message, sizeof(e->message), "more than %d scans", CJPEG_MAX_SCANS);
            longjmp(e->jump, 1);
        }
    }
}

static inline void cjpeg_init_err(struct jpeg_decompress_struct *cinfo, cjpeg_err *err) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = cjpeg_error_exit;
    err->pub.emit_message = cjpeg_emit;
    err->damage = 0;
    err->benign = 0;
    err->message[0] = 0;
}

/* Header fields; colorspace is libjpeg's J_COLOR_SPACE of the file. Returns 0, or -1 with `message`. */
typedef struct { int width, height, components, colorspace, progressive, arithmetic, multiscan, damage; char message[JMSG_LENGTH_MAX]; } cjpeg_header_info;

static inline int cjpeg_read_header(const unsigned char *data, unsigned long size, cjpeg_header_info *info) {
    struct jpeg_decompress_struct cinfo;
    cjpeg_err err;
    cjpeg_init_err(&cinfo, &err);
    if (setjmp(err.jump)) {
        memcpy(info->message, err.message, sizeof(info->message));
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    info->width = (int)cinfo.image_width;
    info->height = (int)cinfo.image_height;
    info->components = cinfo.num_components;
    info->colorspace = (int)cinfo.jpeg_color_space;
    info->progressive = cinfo.progressive_mode;
    info->arithmetic = cinfo.arith_code;
    /* Known once the first scan header is read: a progressive or non-interleaved file keeps every
       coefficient of the full-size image in memory, whatever the DCT scale. */
    info->multiscan = jpeg_has_multiple_scans(&cinfo);
    info->damage = err.damage;
    memcpy(info->message, err.message, sizeof(info->message));
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

/* A decode in steps, so rows can be used while later ones are still being decoded: open (header
   checks, DCT scale 1/scale_denom, output space JCS_GRAYSCALE, JCS_RGB or JCS_CMYK), rows, finish.
   Each step returns -1 on a fatal error with the message in err.message, and the reader is then
   already destroyed. Decoding always runs to EOI so damage anywhere in the file is seen. */
/* Parts of one file read as one stream, in order (`ranges`: start, length pairs, each length > 0):
   a progressive file with only some of its scans. Past the last part, EOI with a premature-end
   warning, as jpeg_mem_src does. */
typedef struct {
    struct jpeg_source_mgr pub;
    const unsigned char *data;
    const unsigned long *ranges;
    int count, next;
} cjpeg_parts;

/* A source's start and end, for sources that have nothing to do then (parts, file). */
static void cjpeg_src_nothing(j_decompress_ptr c) { (void)c; }

/* Installs `pub` as the decompressor's source, reading through `fill` and `skip`. */
static inline void cjpeg_src_install(j_decompress_ptr c, struct jpeg_source_mgr *pub, boolean (*fill)(j_decompress_ptr),
                                     void (*skip)(j_decompress_ptr, long)) {
    pub->init_source = cjpeg_src_nothing;
    pub->fill_input_buffer = fill;
    pub->skip_input_data = skip;
    pub->resync_to_restart = jpeg_resync_to_restart;
    pub->term_source = cjpeg_src_nothing;
    c->src = pub;
}

static boolean cjpeg_parts_fill(j_decompress_ptr c) {
    static const JOCTET eoi[2] = { 0xFF, JPEG_EOI };
    cjpeg_parts *p = (cjpeg_parts *)c->src;
    if (p->next < p->count) {
        p->pub.next_input_byte = p->data + p->ranges[2 * p->next];
        p->pub.bytes_in_buffer = p->ranges[2 * p->next + 1];
        p->next++;
        return TRUE;
    }
    WARNMS(c, JWRN_JPEG_EOF);
    p->pub.next_input_byte = eoi;
    p->pub.bytes_in_buffer = 2;
    return TRUE;
}

static void cjpeg_parts_skip(j_decompress_ptr c, long n) {
    cjpeg_parts *p = (cjpeg_parts *)c->src;
    while (n > 0) {
        if (p->pub.bytes_in_buffer == 0) (void)cjpeg_parts_fill(c);
        size_t take = (size_t)n < p->pub.bytes_in_buffer ? (size_t)n : p->pub.bytes_in_buffer;
        p->pub.next_input_byte += take;
        p->pub.bytes_in_buffer -= take;
        n -= (long)take;
    }
}

static inline void cjpeg_parts_src(j_decompress_ptr c, cjpeg_parts *p, const unsigned char *data, const unsigned long *ranges, int count) {
    memset(p, 0, sizeof(*p));
    p->data = data;
    p->ranges = ranges;
    p->count = count;
    cjpeg_src_install(c, &p->pub, cjpeg_parts_fill, cjpeg_parts_skip);
}

typedef struct {
    struct jpeg_decompress_struct cinfo;
    cjpeg_err err;
    struct jpeg_progress_mgr progress;
    int live;
    int buffered;  /* a split decode: output runs as one pass of buffered-image mode */
    cjpeg_parts parts;
} cjpeg_reader;

static inline void cjpeg_reader_close(cjpeg_reader *r) {
    if (r->live) jpeg_destroy_decompress(&r->cinfo);
    r->live = 0;
}

/* The output "space" asking for raw planes: Y, Cb, Cr at their own sampling (jpeg_read_raw_data). */
static inline int cjpeg_space_raw(void) { return -1; }

/* After the header: the scan limit, DCT scale 1/scale_denom, output space, accurate IDCT. */
static inline void cjpeg_reader_configure(cjpeg_reader *r, int scale_denom, int out_space) {
    r->progress.progress_monitor = cjpeg_progress;
    r->cinfo.progress = &r->progress;
    r->cinfo.scale_num = 1;
    r->cinfo.scale_denom = (unsigned int)scale_denom;
    if (out_space == cjpeg_space_raw()) {
        /* Raw planes for a 3-component YCbCr file; anything else decodes to RGB (the caller reads
           cjpeg_reader_is_raw to know which it got). */
        int raw = r->cinfo.num_components == 3 && r->cinfo.jpeg_color_space == JCS_YCbCr
            && r->cinfo.max_h_samp_factor <= 2 && r->cinfo.max_v_samp_factor <= 2;
        r->cinfo.out_color_space = raw ? JCS_YCbCr : JCS_RGB;
        r->cinfo.raw_data_out = raw ? TRUE : FALSE;
    } else {
        r->cinfo.out_color_space = (J_COLOR_SPACE)out_space;
    }
    r->cinfo.dct_method = JDCT_ISLOW;
}

static inline int cjpeg_reader_is_raw(const cjpeg_reader *r) { return r->cinfo.raw_data_out ? 1 : 0; }

/* A raw reader's component `ci`: its rows' width and the image's height in it, the bytes a row is
   written with (whole blocks), and its rows per iMCU row (what one jpeg_read_raw_data call gives). */
static inline void cjpeg_reader_plane(const cjpeg_reader *r, int ci, int *width, int *height, int *padded, int *rows) {
    const jpeg_component_info *c = &r->cinfo.comp_info[ci];
    *width = (int)c->downsampled_width;
    *height = (int)c->downsampled_height;
    *padded = (int)(c->width_in_blocks * (JDIMENSION)c->DCT_scaled_size);
    *rows = c->v_samp_factor * c->DCT_scaled_size;
}

/* The next iMCU row of a raw reader into planes[ci] + k × strides[ci] (k < that plane's rows per
   iMCU row). 0, or -1 with the reason in err.message. */
static inline int cjpeg_reader_raw(cjpeg_reader *r, unsigned char *const *planes, const size_t *strides) {
    if (setjmp(r->err.jump)) { cjpeg_reader_close(r); return -1; }
    JSAMPROW rows[3][32];
    JSAMPARRAY arrays[3];
    int lines = r->cinfo.max_v_samp_factor * r->cinfo.min_DCT_scaled_size;
    for (int ci = 0; ci < 3; ci++) {
        const jpeg_component_info *c = &r->cinfo.comp_info[ci];
        int n = c->v_samp_factor * c->DCT_scaled_size;
        if (n > 32 || lines > 32) ERREXIT(&r->cinfo, JERR_NOT_COMPILED);
        for (int k = 0; k < n; k++) rows[ci][k] = planes[ci] + (size_t)k * strides[ci];
        arrays[ci] = rows[ci];
    }
    if (jpeg_read_raw_data(&r->cinfo, arrays, (JDIMENSION)lines) == 0) {
        snprintf(r->err.message, sizeof(r->err.message), "the decoder stopped at row %u", r->cinfo.output_scanline);
        cjpeg_reader_close(r);
        return -1;
    }
    return 0;
}

/* A source that hands libjpeg the file's first bytes (already read while probing), then reads the
   rest from `fd` at its offsets, 64 KiB at a time, so a large file is never held whole. At the end
   of the file it does what jpeg_mem_src does: a warning (the file is cut short) and a fake EOI.
   Allocated in the decompressor's permanent pool, freed with it. */
#define CJPEG_FILE_BUFFER 65536
typedef struct {
    struct jpeg_source_mgr pub;
    const unsigned char *head;
    unsigned long head_size;
    int fd;
    int started;           /* the head was handed over */
    unsigned long offset;  /* where the next read starts */
    JOCTET *buffer;
} cjpeg_file_src;

static boolean cjpeg_file_fill(j_decompress_ptr c) {
    static const JOCTET eoi[2] = { 0xFF, JPEG_EOI };
    cjpeg_file_src *s = (cjpeg_file_src *)c->src;
    if (!s->started) {
        s->started = 1;
        s->offset = s->head_size;
        if (s->head_size > 0) {
            s->pub.next_input_byte = s->head;
            s->pub.bytes_in_buffer = s->head_size;
            return TRUE;
        }
    }
    ssize_t n;
    do { n = pread(s->fd, s->buffer, CJPEG_FILE_BUFFER, (off_t)s->offset); } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        WARNMS(c, JWRN_JPEG_EOF);
        s->pub.next_input_byte = eoi;
        s->pub.bytes_in_buffer = 2;
        return TRUE;
    }
    s->offset += (unsigned long)n;
    s->pub.next_input_byte = s->buffer;
    s->pub.bytes_in_buffer = (size_t)n;
    return TRUE;
}

static void cjpeg_file_skip(j_decompress_ptr c, long count) {
    struct jpeg_source_mgr *src = c->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(c);  /* at the end: the 2-byte fake EOI each time */
    }
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

static inline void cjpeg_file_source(j_decompress_ptr c, const unsigned char *head, unsigned long head_size, int fd) {
    cjpeg_file_src *s = (cjpeg_file_src *)(*c->mem->alloc_small)((j_common_ptr)c, JPOOL_PERMANENT, sizeof(cjpeg_file_src));
    memset(s, 0, sizeof(*s));
    s->buffer = (JOCTET *)(*c->mem->alloc_small)((j_common_ptr)c, JPOOL_PERMANENT, CJPEG_FILE_BUFFER);
    s->head = head;
    s->head_size = head_size;
    s->fd = fd;
    cjpeg_src_install(c, &s->pub, cjpeg_file_fill, cjpeg_file_skip);
}

/* 0: started (cinfo.output_width/height/components set); -1: error; -2: the header claims more
   pixels than the data can hold. With `fd` ≥ 0, `data` is the file's first `size` bytes and the
   rest is read from `fd` (`file_size` bytes in all); otherwise `data` is the whole file. */
static inline int cjpeg_reader_open(cjpeg_reader *r, const unsigned char *data, unsigned long size, int fd, unsigned long file_size,
                                    int scale_denom, int out_space, long max_memory) {
    memset(r, 0, sizeof(*r));
    cjpeg_init_err(&r->cinfo, &r->err);
    if (setjmp(r->err.jump)) { cjpeg_reader_close(r); return -1; }
    jpeg_create_decompress(&r->cinfo);
    r->live = 1;
    /* Past this, libjpeg's whole-image buffers fail with an error (no backing store) instead of
       allocating: the last line behind the pixel checks made before any decode. */
    r->cinfo.mem->max_memory_to_use = max_memory;
    if (fd >= 0) {
        cjpeg_file_source(&r->cinfo, data, size, fd);
        size = file_size;
    } else {
        jpeg_mem_src(&r->cinfo, data, size);
    }
    jpeg_read_header(&r->cinfo, TRUE);
    /* Huffman coding spends at least one bit per 8x8 luma block (a DC code); a frame header that
       claims more blocks than the data has bits is refused before the output is allocated. */
    if (!r->cinfo.arith_code) {
        double blocks = ((r->cinfo.image_width + 7) / 8) * (double)((r->cinfo.image_height + 7) / 8);
        if ((double)size * 8.0 < blocks) {
            snprintf(r->err.message, sizeof(r->err.message), "the frame header claims %ux%u, more than %lu bytes can hold",
                     r->cinfo.image_width, r->cinfo.image_height, size);
            cjpeg_reader_close(r);
            return -2;
        }
    }
    cjpeg_reader_configure(r, scale_denom, out_space);
    jpeg_start_decompress(&r->cinfo);
    return 0;
}

/* The chroma half of a split decode, on its own thread: its scans' coefficients. */
typedef struct {
    struct jpeg_decompress_struct cinfo;
    cjpeg_err err;
    struct jpeg_progress_mgr progress;
    cjpeg_parts parts;
    const unsigned char *data;
    const unsigned long *ranges;
    int count;
    long max_memory;
    jvirt_barray_ptr *coefs;
    int live;
    int rc;  /* 0 whole, 1 a damaging warning, -1 an error */
} cjpeg_chroma_job;

static void *cjpeg_chroma_run(void *arg) {
    cjpeg_chroma_job *j = (cjpeg_chroma_job *)arg;
    cjpeg_init_err(&j->cinfo, &j->err);
    if (setjmp(j->err.jump)) { j->rc = -1; return NULL; }
    jpeg_create_decompress(&j->cinfo);
    j->live = 1;
    j->cinfo.mem->max_memory_to_use = j->max_memory;
    j->progress.progress_monitor = cjpeg_progress;
    j->cinfo.progress = &j->progress;
    cjpeg_parts_src(&j->cinfo, &j->parts, j->data, j->ranges, j->count);
    jpeg_read_header(&j->cinfo, TRUE);
    j->coefs = jpeg_read_coefficients(&j->cinfo);
    j->rc = j->err.damage ? 1 : 0;
    return NULL;
}

/* A progressive file's luma scans and chroma scans decoded at once, one thread each (Huffman
   decoding is most of a progressive decode and runs a scan at a time), then the chroma
   coefficients put beside the luma ones and one output pass run over them: the pixels of
   cjpeg_reader_open's decode, bit for bit, for a file whose every coefficient is complete (the
   caller checks; block smoothing, which only a file missing scans would get, is off). Returns 0
   (started, as cjpeg_reader_open), or -3: not done, nothing kept, decode it the usual way
   (whatever went wrong is reported by that decode). */
static inline int cjpeg_reader_open_split(cjpeg_reader *r, const unsigned char *data, const unsigned long *luma, int luma_count,
                                          const unsigned long *chroma, int chroma_count, int scale_denom, int out_space,
                                          long max_memory) {
    cjpeg_chroma_job *job = (cjpeg_chroma_job *)calloc(1, sizeof(cjpeg_chroma_job));
    if (!job) return -3;
    job->data = data;
    job->ranges = chroma;
    job->count = chroma_count;
    job->max_memory = max_memory;
    pthread_t thread;
    volatile int started = 0;
    memset(r, 0, sizeof(*r));
    cjpeg_init_err(&r->cinfo, &r->err);
    if (setjmp(r->err.jump)) {
        if (started) pthread_join(thread, NULL);
        if (job->live) jpeg_destroy_decompress(&job->cinfo);
        free(job);
        cjpeg_reader_close(r);
        return -3;
    }
    jpeg_create_decompress(&r->cinfo);
    r->live = 1;
    r->cinfo.mem->max_memory_to_use = max_memory;
    cjpeg_parts_src(&r->cinfo, &r->parts, data, luma, luma_count);
    jpeg_read_header(&r->cinfo, TRUE);
    cjpeg_reader_configure(r, scale_denom, out_space);
    r->cinfo.buffered_image = TRUE;
    r->cinfo.do_block_smoothing = FALSE;
    if (r->cinfo.num_components != 3 || !r->cinfo.progressive_mode || r->cinfo.arith_code) ERREXIT(&r->cinfo, JERR_NOT_COMPILED);
    if (pthread_create(&thread, NULL, cjpeg_chroma_run, job) != 0) ERREXIT(&r->cinfo, JERR_NOT_COMPILED);
    started = 1;
    jpeg_start_decompress(&r->cinfo);
    int rc;
    do { rc = jpeg_consume_input(&r->cinfo); } while (rc != JPEG_REACHED_EOI && rc != JPEG_SUSPENDED);
    pthread_join(thread, NULL);
    started = 0;
    struct jpeg_decompress_struct *c = &job->cinfo;
    if (rc != JPEG_REACHED_EOI || job->rc != 0 || r->err.damage || r->err.benign || job->err.benign || !job->coefs
        || c->num_components != 3 || c->image_width != r->cinfo.image_width || c->image_height != r->cinfo.image_height
        || !r->cinfo.coef || !r->cinfo.coef->coef_arrays) ERREXIT(&r->cinfo, JERR_NOT_COMPILED);
    for (int ci = 1; ci < 3; ci++) {
        jpeg_component_info *to = &r->cinfo.comp_info[ci], *from = &c->comp_info[ci];
        if (to->width_in_blocks != from->width_in_blocks || to->height_in_blocks != from->height_in_blocks
            || to->h_samp_factor != from->h_samp_factor || to->v_samp_factor != from->v_samp_factor) ERREXIT(&r->cinfo, JERR_NOT_COMPILED);
        JDIMENSION rows = to->height_in_blocks;
        size_t bytes = (size_t)to->width_in_blocks * sizeof(JBLOCK);
        for (JDIMENSION y = 0; y < rows; y++) {
            JBLOCKARRAY src = (*c->mem->access_virt_barray)((j_common_ptr)c, job->coefs[ci], y, 1, FALSE);
            JBLOCKARRAY dst = (*r->cinfo.mem->access_virt_barray)((j_common_ptr)&r->cinfo, r->cinfo.coef->coef_arrays[ci], y, 1, TRUE);
            memcpy(dst[0], src[0], bytes);
        }
    }
    jpeg_destroy_decompress(&job->cinfo);
    job->live = 0;
    free(job);
    job = NULL;
    /* No longjmp can reach the cleanup above from here on with a freed job: reset it. */
    if (setjmp(r->err.jump)) { cjpeg_reader_close(r); return -3; }
    jpeg_start_output(&r->cinfo, r->cinfo.input_scan_number);
    r->buffered = 1;
    return 0;
}

/* Decodes the next `count` rows into out, out + stride, … (the band they form). */
static inline int cjpeg_reader_rows(cjpeg_reader *r, unsigned char *out, size_t stride, int count) {
    if (setjmp(r->err.jump)) { cjpeg_reader_close(r); return -1; }
    JSAMPROW rows[16];
    JDIMENSION start = r->cinfo.output_scanline;
    JDIMENSION end = r->cinfo.output_scanline + (JDIMENSION)count;
    if (end > r->cinfo.output_height) end = r->cinfo.output_height;
    while (r->cinfo.output_scanline < end) {
        int n = 0;
        while (n < 16 && r->cinfo.output_scanline + (JDIMENSION)n < end) {
            rows[n] = out + (size_t)(r->cinfo.output_scanline + (JDIMENSION)n - start) * stride;
            n++;
        }
        if (jpeg_read_scanlines(&r->cinfo, rows, (JDIMENSION)n) == 0) {
            snprintf(r->err.message, sizeof(r->err.message), "the decoder stopped at row %u", r->cinfo.output_scanline);
            cjpeg_reader_close(r);
            return -1;
        }
    }
    return 0;
}

/* Reads to EOI and closes: 0 when whole, 1 when a damaging warning was seen (code in err.damage,
   text in err.message), -1 on error. */
static inline int cjpeg_reader_finish(cjpeg_reader *r) {
    if (setjmp(r->err.jump)) { cjpeg_reader_close(r); return -1; }
    if (r->buffered) jpeg_finish_output(&r->cinfo);
    jpeg_finish_decompress(&r->cinfo);
    cjpeg_reader_close(r);
    return r->err.damage ? 1 : 0;
}

static inline int cjpeg_space_gray(void) { return JCS_GRAYSCALE; }
static inline int cjpeg_space_rgb(void) { return JCS_RGB; }
static inline int cjpeg_space_cmyk(void) { return JCS_CMYK; }
static inline int cjpeg_space_ycck(void) { return JCS_YCCK; }
static inline int cjpeg_is_eof_warning(int code) { return code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER; }

/* ---- Encoding through libjpeg's API: baseline (or progressive), accurate DCT, optimized Huffman
   tables. TurboJPEG 2.1 turns optimized tables on only through the TJ_OPTIMIZE environment
   variable, which a library must not set for its whole process; these write the same bytes as
   tjCompress2 / tjCompressFromYUVPlanes with it set (same defaults, same edge padding). ---- */

typedef struct { struct jpeg_compress_struct c; cjpeg_err err; unsigned char *buffer; unsigned long size; } cjpeg_writer;

/* TurboJPEG's setCompDefaults for 4:2:0, 4:4:4 (`full_chroma`) or gray (one component) at `quality`. */
static inline void cjpeg_writer_defaults(cjpeg_writer *w, int width, int height, J_COLOR_SPACE in, int components,
                                         int gray, int full_chroma, int quality, int progressive) {
    struct jpeg_compress_struct *c = &w->c;
    c->image_width = (JDIMENSION)width;
    c->image_height = (JDIMENSION)height;
    c->in_color_space = in;
    c->input_components = components;
    jpeg_set_defaults(c);
    c->optimize_coding = TRUE;
    jpeg_set_quality(c, quality, TRUE);
    c->dct_method = JDCT_ISLOW;
    jpeg_set_colorspace(c, gray ? JCS_GRAYSCALE : JCS_YCbCr);
    if (progressive) jpeg_simple_progression(c);
    c->comp_info[0].h_samp_factor = gray || full_chroma ? 1 : 2;
    c->comp_info[0].v_samp_factor = gray || full_chroma ? 1 : 2;
    if (!gray) {
        c->comp_info[1].h_samp_factor = c->comp_info[1].v_samp_factor = 1;
        c->comp_info[2].h_samp_factor = c->comp_info[2].v_samp_factor = 1;
    }
}

/* Sets up `w`; after a longjmp to its err.jump, cjpeg_writer_fail releases it. */
static inline void cjpeg_writer_open(cjpeg_writer *w) {
    memset(w, 0, sizeof(*w));
    w->c.err = jpeg_std_error(&w->err.pub);
    w->err.pub.error_exit = cjpeg_error_exit;
    jpeg_create_compress(&w->c);
    jpeg_mem_dest(&w->c, &w->buffer, &w->size);
}

static inline long cjpeg_writer_fail(cjpeg_writer *w, char *message, int message_len) {
    snprintf(message, (size_t)message_len, "%s", w->err.message);
    jpeg_destroy_compress(&w->c);
    free(w->buffer);
    return -1;
}

/* Packed rows (`components` 1, 3 or 4 bytes a pixel: gray, RGB, RGBX). Returns the size and the
   malloc'd JPEG in *out (free with free()), or -1 with a message. */
static inline long cjpeg_encode_pixels(const unsigned char *pixels, int stride, int width, int height, int components,
                                       int quality, int progressive, unsigned char **out, char *message, int message_len) {
    cjpeg_writer w;
    cjpeg_writer_open(&w);
    if (setjmp(w.err.jump)) return cjpeg_writer_fail(&w, message, message_len);
    J_COLOR_SPACE in = components == 1 ? JCS_GRAYSCALE : components == 4 ? JCS_EXT_RGBX : JCS_EXT_RGB;
    cjpeg_writer_defaults(&w, width, height, in, components, components == 1, 0, quality, progressive);
    jpeg_start_compress(&w.c, TRUE);
    while (w.c.next_scanline < w.c.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)w.c.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&w.c, &row, 1);
    }
    jpeg_finish_compress(&w.c);
    jpeg_destroy_compress(&w.c);
    *out = w.buffer;
    return (long)w.size;
}

/* Y, Cb, Cr planes of 4:2:0, 4:4:4 (`full_chroma`) or Y alone, as TurboJPEG's YUV functions lay them out: each plane
   PAD(size, 2) scaled by its sampling, rows `strides` apart. As tjCompressFromYUVPlanes does, rows
   and columns past a plane's padded size repeat its last ones to fill whole 8x8 blocks. Hands every
   row to a started raw-data compress; 0, or -1 without memory (message set). */
static inline int cjpeg_feed_planes(cjpeg_writer *w, const unsigned char *const planes[3], const int strides[3], int width,
                                    int height, unsigned char **tmp) {
    int n = w->c.num_components, maxh = w->c.max_h_samp_factor, maxv = w->c.max_v_samp_factor;
    int pw[3], ph[3], iw[3], th[3];
    size_t offset[3], total = 0;
    for (int i = 0; i < n; i++) {
        jpeg_component_info *ci = &w->c.comp_info[i];
        iw[i] = (int)ci->width_in_blocks * DCTSIZE;
        pw[i] = (width + maxh - 1) / maxh * maxh * ci->h_samp_factor / maxh;
        ph[i] = (height + maxv - 1) / maxv * maxv * ci->v_samp_factor / maxv;
        th[i] = ci->v_samp_factor * DCTSIZE;
        offset[i] = total;
        total += (size_t)iw[i] * (size_t)th[i];
    }
    if (!(*tmp = malloc(total))) { snprintf(w->err.message, sizeof(w->err.message), "out of memory"); return -1; }
    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = { rows[0], rows[1], rows[2] };
    for (int row = 0; row < height; row += maxv * DCTSIZE) {
        for (int i = 0; i < n; i++) {
            int crow = row * w->c.comp_info[i].v_samp_factor / maxv;
            for (int j = 0; j < th[i]; j++) {
                unsigned char *dst = *tmp + offset[i] + (size_t)j * (size_t)iw[i];
                rows[i][j] = dst;
                int r = crow + j < ph[i] ? crow + j : ph[i] - 1;  /* the last row again past the end */
                memcpy(dst, planes[i] + (size_t)r * (size_t)strides[i], (size_t)pw[i]);
                for (int k = pw[i]; k < iw[i]; k++) dst[k] = dst[pw[i] - 1];
            }
        }
        jpeg_write_raw_data(&w->c, arrays, (JDIMENSION)(maxv * DCTSIZE));
    }
    return 0;
}

/* Huffman tables in libjpeg's JHUFF_TBL layout, DC 0, AC 0, DC 1, AC 1: what its optimizing pass
   would build for one image at one quality (from cjpeg_measure_planes). */
typedef struct { unsigned char bits[4][17]; unsigned char huffval[4][256]; } cjpeg_tables;

static inline JHUFF_TBL *cjpeg_table_slot(struct jpeg_compress_struct *c, int t) {
    return (t & 1) ? c->ac_huff_tbl_ptrs[t >> 1] : c->dc_huff_tbl_ptrs[t >> 1];
}

/* Writes the planes at `quality`: with optimized Huffman tables computed by libjpeg's two passes
   (`tables` NULL), or in one pass with the tables measured before (the same bytes, at half the
   cost: libjpeg-turbo 2.1 counts symbols for its tables in plain C, 22 % of a hard photo's CPU). */
static inline long cjpeg_encode_planes(const unsigned char *const planes[3], const int strides[3], int width, int height, int gray,
                                       int full_chroma, int quality, int progressive, const cjpeg_tables *tables,
                                       unsigned char **out, char *message, int message_len) {
    cjpeg_writer w;
    unsigned char *tmp = NULL;
    cjpeg_writer_open(&w);
    if (setjmp(w.err.jump)) { free(tmp); return cjpeg_writer_fail(&w, message, message_len); }
    cjpeg_writer_defaults(&w, width, height, JCS_EXT_RGB, 3, gray, full_chroma, quality, progressive);
    w.c.raw_data_in = TRUE;
    if (tables && !progressive) {
        w.c.optimize_coding = FALSE;
        for (int t = 0; t < 4; t++) {
            JHUFF_TBL *h = cjpeg_table_slot(&w.c, t);
            memcpy(h->bits, tables->bits[t], sizeof(h->bits));
            memcpy(h->huffval, tables->huffval[t], sizeof(h->huffval));
        }
    }
    jpeg_start_compress(&w.c, TRUE);
    if (cjpeg_feed_planes(&w, planes, strides, width, height, &tmp) != 0) { free(tmp); return cjpeg_writer_fail(&w, message, message_len); }
    jpeg_finish_compress(&w.c);
    jpeg_destroy_compress(&w.c);
    free(tmp);
    *out = w.buffer;
    return (long)w.size;
}

#include "measure.h"
#include "splice.h"
#endif
